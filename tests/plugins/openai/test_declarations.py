"""Function declarations as ``tool_declarations`` shows them (what ``affordance render``
prints): strict whenever the params schema can be made strict, the schema as is otherwise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from affordance import Tool
from affordance_openai import OpenAIAdapter


@dataclass(frozen=True)
class SearchParams:
    query: str = field(metadata={"description": "What to look for"})
    limit: int = 10


@dataclass(frozen=True)
class TagParams:
    tags: dict[str, int]


SEARCH = Tool[SearchParams, str](name="search", description="Search the notes.")
TAG = Tool[TagParams, str](name="tag", description="Tag counts.")
NO_PARAMS = Tool[None, str](name="ping", description="Check the service.")

STRICT_SEARCH_PARAMETERS = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for"},
        "limit": {"type": ["integer", "null"]},
    },
    "required": ["query", "limit"],
    "additionalProperties": False,
}


def test_responses_declarations_are_flat_and_strict_when_possible() -> None:
    declared = OpenAIAdapter("m").connection.tool_declarations([SEARCH, TAG, NO_PARAMS])

    assert declared[0] == {
        "type": "function",
        "name": "search",
        "description": "Search the notes.",
        "parameters": STRICT_SEARCH_PARAMETERS,
        "strict": True,
    }
    assert declared[1] == {
        "type": "function",
        "name": "tag",
        "description": "Tag counts.",
        "parameters": dict(TAG.parameters_schema()),  # a mapping: open object, not strict
        "strict": False,
    }
    assert declared[2]["parameters"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert declared[2]["strict"] is True


def test_chat_declarations_nest_the_same_function() -> None:
    declared = OpenAIAdapter("m", api="chat").connection.tool_declarations([SEARCH, TAG])

    assert declared[0] == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the notes.",
            "parameters": STRICT_SEARCH_PARAMETERS,
            "strict": True,
        },
    }
    assert declared[1]["function"]["strict"] is False
    assert declared[1]["function"]["parameters"]["properties"]["tags"] == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }


def test_non_strict_declarations_keep_defaults_for_the_model() -> None:
    @dataclass(frozen=True)
    class Open:
        extra: dict[str, Any]
        limit: int = 5

    loose = Tool[Open, str](name="loose", description="Anything goes.")

    (declared,) = OpenAIAdapter("m").connection.tool_declarations([loose])

    assert declared["strict"] is False
    assert declared["parameters"]["properties"]["limit"] == {"type": "integer", "default": 5}


def test_a_declaration_is_built_once_per_tool_and_shown_without_a_deep_copy() -> None:
    """Each call answers new top-level dicts around the declaration kept for the tool: a
    caller may set a key of its own; below that the kept declaration is shared, read-only."""
    adapter = OpenAIAdapter("m")
    first = adapter.connection.declaration(SEARCH)

    assert adapter.connection.declaration(SEARCH) is first
    shown = adapter.connection.tool_declarations([SEARCH])
    again = adapter.connection.tool_declarations([SEARCH])
    assert shown[0] is not again[0]
    shown[0]["name"] = "renamed"
    assert again[0]["name"] == "search" == adapter.connection.tool_declarations([SEARCH])[0]["name"]
    assert shown[0]["parameters"] is first.wire["parameters"]  # shared: no copy per call
    assert SEARCH.parameters_schema()["required"] == ["query"]  # the core's schema is untouched
