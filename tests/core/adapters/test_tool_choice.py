"""``wire_tool_choice`` (``affordance.adapters.tool_choice``): a request's tool choice in a wire
format's words — keywords as the format spells them, any other string a tool's name, a mapping
(the caller's own wire value) and no choice as they are."""

from __future__ import annotations

from affordance.adapters import wire_tool_choice

KEYWORDS = {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}}


def named(name: str) -> dict[str, str]:
    return {"type": "tool", "name": name}


def test_keywords_are_spelled_as_the_format_spells_them() -> None:
    assert wire_tool_choice("required", named, KEYWORDS) == {"type": "any"}
    assert wire_tool_choice("auto", named, KEYWORDS) == {"type": "auto"}


def test_without_a_spelling_the_keywords_go_as_they_are() -> None:
    assert [wire_tool_choice(k, named) for k in ("auto", "none", "required")] == [
        "auto",
        "none",
        "required",
    ]


def test_any_other_string_is_a_tool_name() -> None:
    assert wire_tool_choice("get_weather", named, KEYWORDS) == named("get_weather")
    assert wire_tool_choice("get_weather", named) == named("get_weather")


def test_a_mapping_and_no_choice_go_as_they_are() -> None:
    mapping = {"type": "allowed_tools", "tools": []}

    assert wire_tool_choice(mapping, named, KEYWORDS) is mapping
    assert wire_tool_choice(None, named, KEYWORDS) is None
