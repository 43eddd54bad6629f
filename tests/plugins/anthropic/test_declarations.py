"""Tool declarations as ``tool_declarations`` shows them (what ``affordance render`` prints):
strict whenever the params schema fits the strict subset, the schema as is otherwise, and a
request never spends more on strict tools than the API accepts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loopback import message_text

from affordance import MarkdownSection, PromptTemplate, Tool
from affordance.adapters import StrictBudget, within_strict_budget
from affordance.runtime.model.messages import ToolResultMessage
from affordance_anthropic import AnthropicAdapter
from affordance_anthropic.serializers import (
    AnthropicOutputSerializer,
    AnthropicToolResultSerializer,
    AnthropicToolSerializer,
)


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


def test_declarations_are_strict_when_the_schema_allows_it_and_keep_optional_fields() -> None:
    declared = AnthropicAdapter("m").connection.tool_declarations([SEARCH, TAG, NO_PARAMS])

    assert declared[0] == {
        "name": "search",
        "description": "Search the notes.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {"type": "integer", "description": '{"default": 10}'},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "strict": True,
    }
    assert declared[1] == {  # a mapping: strict objects are closed, so sent as is
        "name": "tag",
        "description": "Tag counts.",
        "input_schema": dict(TAG.parameters_schema()),
    }
    assert declared[2]["input_schema"] == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    assert declared[2]["strict"] is True


def test_a_non_strict_declaration_says_why_in_its_note() -> None:
    adapter = AnthropicAdapter("m")

    assert adapter.connection.declaration(SEARCH).note is None
    assert (
        adapter.connection.declaration(TAG).note
        == "not strict: property 'tags' is a mapping; strict objects are closed"
    )


def test_a_declaration_is_built_once_per_tool_and_shown_without_a_deep_copy() -> None:
    """Each call answers new top-level dicts around the declaration kept for the tool: a
    caller may set a key of its own; below that the kept declaration is shared, read-only."""
    adapter = AnthropicAdapter("m")
    first = adapter.connection.declaration(SEARCH)

    assert adapter.connection.declaration(SEARCH) is first
    shown = adapter.connection.tool_declarations([SEARCH])
    again = adapter.connection.tool_declarations([SEARCH])
    assert shown[0] is not again[0]
    shown[0]["name"] = "renamed"
    assert again[0]["name"] == "search" == adapter.connection.tool_declarations([SEARCH])[0]["name"]
    assert shown[0]["input_schema"] is first.wire["input_schema"]  # shared: no copy per call
    assert SEARCH.parameters_schema()["required"] == ["query"]  # the core's schema is untouched


def test_a_serializer_without_strict_mode_sends_schemas_as_they_are() -> None:
    adapter = AnthropicAdapter("m", serializers={"tool": AnthropicToolSerializer(strict=False)})

    (declared,) = adapter.connection.tool_declarations([SEARCH])

    assert "strict" not in declared
    assert declared["input_schema"] == SEARCH.parameters_schema()


def test_the_output_serializer_can_be_told_to_use_instructions() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}

    native = AnthropicOutputSerializer().output_format(schema, "Thing").wire
    instructed = AnthropicOutputSerializer(native=False).output_format(schema, "Thing").wire

    assert native == {"output_config": {"format": {"type": "json_schema", "schema": schema}}}
    assert list(instructed) == ["system"]
    assert "(Thing)" in instructed["system"]


def test_a_tool_result_block_is_flagged_only_when_it_failed_and_omits_empty_content() -> None:
    serializer = AnthropicToolResultSerializer()

    assert serializer.serialize(ToolResultMessage("t1", "x", "ok")) == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "ok",
    }
    assert serializer.serialize(ToolResultMessage("t2", "x", "", is_error=True)) == {
        "type": "tool_result",
        "tool_use_id": "t2",
        "is_error": True,
    }


def strict_tool(name: str, optional: int = 0, unions: int = 0) -> dict[str, Any]:
    properties: dict[str, Any] = {f"o{i}": {"type": "string"} for i in range(optional)}
    properties.update(
        {f"u{i}": {"anyOf": [{"type": "string"}, {"type": "null"}]} for i in range(unions)}
    )
    required = [f"u{i}" for i in range(unions)]
    schema = {"type": "object", "properties": properties, "required": required}
    return {"name": name, "input_schema": schema, "strict": True}


def test_strict_tools_beyond_the_request_budget_are_sent_without_strict_in_order() -> None:
    budget = StrictBudget(tools=3, optional=5, unions=2, schema_field="input_schema")
    declared = [
        strict_tool("a", optional=3),
        strict_tool("b", optional=3),  # would make 6 optional: over
        {"name": "loose", "input_schema": {"type": "object"}},
        strict_tool("c", unions=2),
        strict_tool("d", optional=2),
        strict_tool("e"),  # a fourth strict tool: over
    ]

    kept = within_strict_budget(declared, budget)

    assert [d.get("strict", False) for d in kept] == [True, False, False, True, True, False]
    assert kept[1] == {k: v for k, v in declared[1].items() if k != "strict"}
    assert declared[1]["strict"] is True  # the cached declarations are not changed


def test_a_request_with_many_strict_tools_keeps_twenty_strict(loopback: Any) -> None:
    tools = [Tool[SearchParams, str](name=f"search_{i}", description="Search.") for i in range(30)]
    section = MarkdownSection(title="Task", template="Search.", tools=tools)
    loopback.script("evaluate", message_text("Nothing."))

    loopback.run("evaluate", PromptTemplate(ns="t", key="many", sections=[section]))

    sent = loopback.bodies()[0]["tools"]
    # one optional field each (limit): the 20-tool limit is reached before 24 optional fields
    assert sum(1 for tool in sent if tool.get("strict")) == 20
    assert [tool.get("strict", False) for tool in sent[:20]] == [True] * 20
