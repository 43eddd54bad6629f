"""A type given as a JSON Schema with a validator: parsed into a dict, described by its schema,
and usable as a tool's params type (the executor validates calls with it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from affordance import MarkdownSection, PromptTemplate
from affordance.errors import PromptValidationError
from affordance.serde import FieldError, JSONSchemaType, ParseError, dump, parse, schema
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance.tools import Tool, ToolExample, ToolResult

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "Where to look"}},
    "required": ["city"],
}


def needs_city(arguments: Mapping[str, Any]) -> Sequence[FieldError]:
    if not isinstance(arguments.get("city"), str):
        return [FieldError(("city",), "a string is required")]
    return []


CITY = JSONSchemaType(SCHEMA, needs_city, name="lookup")


def test_parse_answers_a_new_dict_when_the_validator_accepts() -> None:
    data = {"city": "Lyon"}
    parsed = parse(CITY, data)
    assert parsed == data
    assert parsed is not data


def test_parse_lists_what_the_validator_found() -> None:
    with pytest.raises(ParseError) as info:
        parse(CITY, {"city": 3})
    assert info.value.type_name == "lookup"
    assert [str(error) for error in info.value.errors] == ["city: a string is required"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([1, 2], "expected an object, got"),
        ({1: "x"}, "object keys must be strings"),
    ],
)
def test_parse_refuses_what_is_not_an_object_with_string_keys(data: object, expected: str) -> None:
    with pytest.raises(ParseError, match=expected):
        parse(CITY, data)


def test_parse_refuses_data_nested_past_the_limit() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(200):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(ParseError, match="nested"):
        parse(CITY, deep)


def test_a_validator_that_raises_fails_the_parse_not_the_caller() -> None:
    def broken(arguments: Mapping[str, Any]) -> Sequence[FieldError]:
        raise SystemError("validator bug")

    with pytest.raises(ParseError, match="the schema's validator raised SystemError"):
        parse(JSONSchemaType(SCHEMA, broken), {"city": "x"})


def test_without_a_validator_any_object_is_accepted() -> None:
    assert parse(JSONSchemaType(SCHEMA), {"anything": [1]}) == {"anything": [1]}


def test_schema_answers_the_schema_and_dump_the_dict() -> None:
    assert schema(CITY) == SCHEMA
    assert schema(CITY) is schema(CITY)
    assert dump(parse(CITY, {"city": "Oslo"})) == {"city": "Oslo"}


def test_only_object_schemas_describe_params() -> None:
    with pytest.raises(ValueError, match="describes an object"):
        JSONSchemaType({"type": "array"})


def test_a_tool_takes_it_as_its_params_type_with_descriptions_and_examples() -> None:
    tool = Tool(
        name="lookup",
        description="Look a city up.",
        handler=lambda params: ToolResult.ok(params["city"].upper()),
        params_type=CITY,
        examples=(ToolExample("Lyon", {"city": "Lyon"}, "LYON"),),
    )
    assert tool.parameters_schema() == SCHEMA
    assert tool.param_descriptions == {"city": "Where to look"}
    with pytest.raises(PromptValidationError, match="does not fit the schema"):
        Tool(
            name="lookup",
            description="Look a city up.",
            handler=lambda params: ToolResult.ok(None),
            params_type=CITY,
            examples=(ToolExample("bad", {"town": 1}, None),),
        )


def test_the_executor_validates_calls_with_it_and_the_handler_gets_the_dict() -> None:
    seen: list[Mapping[str, Any]] = []

    def lookup(params: Mapping[str, Any]) -> ToolResult[str]:
        seen.append(params)
        return ToolResult.ok(params["city"].upper())

    tool = Tool(name="lookup", description="Look a city up.", handler=lookup, params_type=CITY)
    prompt = PromptTemplate(
        ns="t", key="t", sections=[MarkdownSection(title="Task", template="Go.", tools=[tool])]
    )
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("lookup", {"city": 7})),
            tool_calls(tool_call("lookup", {"city": "Lyon"})),
            text("done"),
        ]
    )
    response = adapter.evaluate(prompt)
    refused, ran = (call.result for call in response.tool_results)
    assert not refused.success
    assert "city: a string is required" in refused.message
    assert ran.value == "LYON"
    assert seen == [{"city": "Lyon"}]
