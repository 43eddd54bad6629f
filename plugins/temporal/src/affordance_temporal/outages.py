"""Provider outages in a durable run: the adapter that sends each attempt once, so that
Temporal's retry policy is the only one, and the wait Temporal makes between attempts.

An adapter's own retries (the SDK client's ``max_retries``, a ``RequestRetryPolicy``) hold a
worker slot while they wait, are lost with the worker and never show in the run's history;
and they give up after seconds. Inside the model activity each request is sent once
(:func:`single_attempt`), and a transient failure (``PromptEvaluationError.transient``, which
the adapters set: 408, 409, 429, 5xx, a lost connection or a timeout) fails the attempt for
Temporal to retry with its backoff, until the run's deadline or ``provider_outage_limit``.
"""

from __future__ import annotations

import copy
from typing import Any

from temporalio.common import RetryPolicy as TemporalRetryPolicy

from affordance import Evaluator
from affordance.adapters import NO_REQUEST_RETRIES, ClientPair, RequestRetryPolicy

__all__ = ["retry_delay", "single_attempt"]


def retry_delay(policy: TemporalRetryPolicy | None, attempt: int) -> float:
    """How long Temporal waits after failed attempt ``attempt`` (1-based) under ``policy``:
    its initial interval, times its coefficient per earlier attempt, capped at its maximum."""
    if policy is None:
        return 0.0
    delay = policy.initial_interval.total_seconds() * policy.backoff_coefficient ** (attempt - 1)
    if policy.maximum_interval is not None:
        delay = min(delay, policy.maximum_interval.total_seconds())
    return delay


def single_attempt(adapter: Evaluator) -> Evaluator:
    """``adapter`` sending each request once, through the retry settings it already has: a
    ``RequestRetryPolicy`` (``adapter.retry``, e.g. Google's) becomes ``NO_REQUEST_RETRIES``;
    SDK clients with ``max_retries`` (``adapter.clients``, openai and anthropic) are used
    through their ``with_options(max_retries=0)`` copies. A shallow copy: ``adapter`` itself
    is left as it is. An adapter with neither is used as it is."""
    retry = getattr(adapter, "retry", None)
    if isinstance(retry, RequestRetryPolicy):
        if retry.max_retries == 0:
            return adapter
        twin = copy.copy(adapter)
        twin.retry = NO_REQUEST_RETRIES  # type: ignore[attr-defined]
        return twin
    clients = getattr(adapter, "clients", None)
    if isinstance(clients, ClientPair):
        twin = copy.copy(adapter)
        twin.clients = _OneAttemptClients(clients)  # type: ignore[attr-defined]
        return twin
    return adapter


class _OneAttemptClients:
    """Stands in for an adapter's ``ClientPair``: its clients, without the SDK's retries. The
    pair stays the owner: it builds the clients and closes them."""

    __slots__ = ("_copies", "pair")

    def __init__(self, pair: ClientPair[Any, Any]) -> None:
        self.pair = pair
        self._copies: dict[str, tuple[Any, Any]] = {}

    def sync_client(self) -> Any:
        return self._once("sync", self.pair.sync_client())

    def async_client(self) -> Any:
        return self._once("async", self.pair.async_client())

    def _once(self, kind: str, client: Any) -> Any:
        known = self._copies.get(kind)
        if known is not None and known[0] is client:
            return known[1]
        once = client
        with_options = getattr(client, "with_options", None)
        if getattr(client, "max_retries", 0) and callable(with_options):
            once = with_options(max_retries=0)
        self._copies[kind] = (client, once)
        return once
