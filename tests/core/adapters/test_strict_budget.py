"""``within_strict_budget`` (``affordance.adapters.strict_budget``): strict declarations kept
strict in order while a request's budget lasts, the rest sent without ``strict``, the
declarations themselves never changed."""

from __future__ import annotations

from typing import Any

from affordance.adapters import StrictBudget, within_strict_budget

BUDGET = StrictBudget(tools=2, optional=3, unions=1, schema_field="parameters")


def strict(name: str, optional: int = 0, unions: int = 0) -> dict[str, Any]:
    properties: dict[str, Any] = {f"o{i}": {"type": "string"} for i in range(optional)}
    properties.update({f"u{i}": {"type": ["string", "null"]} for i in range(unions)})
    schema = {"type": "object", "properties": properties, "required": list(properties)[optional:]}
    return {"name": name, "parameters": schema, "strict": True}


def test_each_strict_declaration_spends_the_budget_in_order() -> None:
    declared = [strict("a", optional=2), strict("b", optional=2), strict("c", optional=1)]

    kept = within_strict_budget(declared, BUDGET)

    # b would make 4 optional properties: sent without strict; c still fits after it
    assert [d.get("strict", False) for d in kept] == [True, False, True]
    assert kept[1] == {"name": "b", "parameters": declared[1]["parameters"]}
    assert declared[1]["strict"] is True  # a copy: the kept declaration is unchanged
    assert kept[0] is declared[0]


def test_the_number_of_strict_tools_and_their_unions_are_capped_too() -> None:
    declared = [strict("a", unions=1), strict("b", unions=1), strict("c"), strict("d")]

    kept = within_strict_budget(declared, BUDGET)

    assert [d.get("strict", False) for d in kept] == [True, False, True, False]


def test_declarations_that_are_not_strict_pass_as_they_are_and_spend_nothing() -> None:
    loose = {"name": "loose", "parameters": {"type": "object"}, "strict": False}
    other_field = {"name": "x", "input_schema": {"properties": {"a": {}}}, "strict": True}

    kept = within_strict_budget([loose, loose, other_field, strict("a", optional=3)], BUDGET)

    assert kept[:2] == [loose, loose]
    # the schema is read from `schema_field`: one under another field costs a tool, no more
    assert [d.get("strict") for d in kept[2:]] == [True, True]
