"""``ToolSets`` (``affordance.adapters``): what a request builder makes of a request's
tools together, built once per tool set and kept while every one of its tools lives."""

from __future__ import annotations

import gc
from typing import Any

from affordance import Tool, ToolResult
from affordance.adapters import ToolDeclaration, ToolSets


def handler(params: None) -> ToolResult[None]:
    return ToolResult(message="done", value=None)


def tool(name: str) -> Tool[None, None]:
    return Tool[None, None](name=name, description=f"The {name} tool.", handler=handler)


def declare(tool: Tool[Any, Any]) -> ToolDeclaration:
    return ToolDeclaration({"name": tool.name})


class Builder:
    """Names the declared tools, counting what it builds."""

    def __init__(self) -> None:
        self.built = 0

    def __call__(self, tools: tuple[Tool[Any, Any], ...], declare: Any) -> tuple[str, ...]:
        self.built += 1
        return tuple(declare(tool).wire["name"] for tool in tools)


def test_a_set_is_built_once_for_the_same_tools_in_a_new_tuple() -> None:
    sets, build = ToolSets(), Builder()
    first, second = tool("first"), tool("second")

    made = sets.of((first, second), build, declare)
    again = sets.of((first, second), build, declare)  # the next run's tuple, the same tools

    assert made == ("first", "second")
    assert again is made
    assert build.built == 1


def test_other_tools_another_order_or_another_builder_make_another_set() -> None:
    sets, build, other = ToolSets(), Builder(), Builder()
    first, second = tool("first"), tool("second")
    sets.of((first, second), build, declare)

    assert sets.of((second, first), build, declare) == ("second", "first")
    assert sets.of((first, tool("second")), build, declare) == ("first", "second")
    assert sets.of((first, second), other, declare) == ("first", "second")
    assert (build.built, other.built) == (3, 1)


class SameHash(tuple[Tool[Any, Any], ...]):
    """A tool tuple whose hash is any other's: two sets that collide."""

    def __hash__(self) -> int:
        return 7


def test_a_set_whose_hash_another_has_is_never_taken_for_it() -> None:
    sets, build = ToolSets(), Builder()
    first, second = SameHash((tool("first"),)), SameHash((tool("second"),))

    assert sets.of(first, build, declare) == ("first",)
    assert sets.of(second, build, declare) == ("second",)
    assert sets.of(first, build, declare) == ("first",)
    assert build.built == 3


def test_a_set_goes_when_one_of_its_tools_dies() -> None:
    sets, build = ToolSets(), Builder()
    kept = tool("kept")
    sets.of((kept,), build, declare)
    dropped = tool("dropped")
    sets.of((kept, dropped), build, declare)
    assert len(sets) == 2

    del dropped
    gc.collect()

    assert len(sets) == 1
    assert sets.of((kept,), build, declare) == ("kept",)
    assert build.built == 2
