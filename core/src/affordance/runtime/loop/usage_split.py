"""A run's usage beyond the sum: priced by the run's prices, split by the provider that
answered once a second one does (a fallback, a nested run on another provider), and the
events a fallback's switches publish. The loop's common case — one provider, no prices — never
calls into here."""

from __future__ import annotations

import dataclasses

from affordance.runtime.model.connection import Model, model_name_of
from affordance.runtime.model.prices import Prices
from affordance.runtime.model.turn import NO_USAGE, ProviderTurn, Usage
from affordance.runtime.record.events import ModelSwitched

__all__ = ["added", "priced", "switch_events"]


def priced(turn: ProviderTurn, prices: Prices, connection: Model) -> Usage:
    """``turn``'s usage with its cost (``None``: the price is unknown): the model the turn
    names (a fallback's), else the connection's configured one."""
    cost = prices.cost(
        turn.usage,
        provider=turn.provider or connection.name,
        model=turn.model or model_name_of(connection),
    )
    return dataclasses.replace(turn.usage, cost=cost)


def added(
    total: Usage,
    by_provider: dict[str, Usage] | None,
    usage: Usage,
    provider: str,
    home: str,
) -> tuple[Usage, dict[str, Usage] | None]:
    """``usage`` (spent by ``provider``) added to the run's ``total`` and to the split, which
    starts (``home``: the connection's own share so far) when another provider first spends."""
    if by_provider is None:
        if provider == home:
            return total + usage, None
        by_provider = {home: total} if total is not NO_USAGE else {}
    by_provider[provider] = by_provider.get(provider, NO_USAGE) + usage
    return total + usage, by_provider


def switch_events(
    turn: ProviderTurn, prompt_name: str, run_id: str, turn_number: int, runner: object
) -> list[ModelSwitched]:
    """One ``ModelSwitched`` per model that failed before the one answering ``turn``."""
    connection = getattr(runner, "connection", None)
    name = getattr(connection, "name", None)
    provider = turn.provider or (name if isinstance(name, str) else "provider")
    return [
        ModelSwitched(
            prompt_name,
            run_id,
            turn_number,
            switch.provider,
            switch.model,
            switch.status,
            switch.message,
            provider,
        )
        for switch in turn.switches
    ]
