"""A request's strict budget: how many strict tools one request may declare, and how complex
their schemas may be in all, where a provider caps it (Anthropic refuses a request over its
budget with a 400).

The budget is data, the provider's numbers (a :class:`StrictBudget`);
:func:`within_strict_budget` spends it in declaration order and sends a declaration that would
overspend it without ``strict``, rather than have the request refused. What a schema spends is
:func:`~affordance.adapters.schema_cost`, counted once per schema object: declarations are built
once per tool and reused by every request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affordance._frozen import frozen
from affordance.adapters.resolution import IdentityCache
from affordance.adapters.schema_walk import SchemaCost, schema_cost

__all__ = ["StrictBudget", "within_strict_budget"]


@frozen
class StrictBudget:
    """What one request may spend on strict tools: ``tools`` strict declarations, and across
    their schemas ``optional`` optional properties and ``unions`` union properties (see
    :class:`~affordance.adapters.SchemaCost`). ``schema_field`` names the declaration's field
    holding its schema (``input_schema`` on Anthropic)."""

    tools: int
    optional: int
    unions: int
    schema_field: str


def within_strict_budget(
    declarations: Sequence[Mapping[str, Any]], budget: StrictBudget
) -> list[Mapping[str, Any]]:
    """The declarations, each strict one (``"strict": true``) kept strict while the request's
    ``budget`` lasts, in order; one that would overspend it is a copy without ``strict`` (the
    declarations themselves are never changed)."""
    count = optional = unions = 0
    kept: list[Mapping[str, Any]] = []
    for declaration in declarations:
        if declaration.get("strict") is not True:
            kept.append(declaration)
            continue
        schema = declaration.get(budget.schema_field)
        # a dict told before the Mapping ABC's check (a call into the ABC machinery)
        cost = _cost_of(schema) if isinstance(schema, (dict, Mapping)) else _NO_COST
        if (
            count + 1 <= budget.tools
            and optional + cost.optional <= budget.optional
            and unions + cost.unions <= budget.unions
        ):
            count, optional, unions = count + 1, optional + cost.optional, unions + cost.unions
            kept.append(declaration)
        else:
            kept.append({k: v for k, v in declaration.items() if k != "strict"})
    return kept


_COSTS: IdentityCache[Mapping[str, Any], SchemaCost] = IdentityCache()
_NO_COST = SchemaCost(0, 0)


def _cost_of(schema: Mapping[str, Any]) -> SchemaCost:
    """A declaration's schema's cost, counted once per schema object."""
    cost = _COSTS.get(schema)
    return cost if cost is not None else _COSTS.put(schema, schema_cost(schema))
