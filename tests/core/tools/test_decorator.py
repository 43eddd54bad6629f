"""@tool builds a Tool from a typed function."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from affordance import PromptTemplate, PromptValidationError, Section, ToolContext, ToolResult, tool
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class LookupParams:
    entity_id: str


@dataclass(frozen=True)
class Entity:
    entity_id: str


def run(tool_obj, arguments):
    prompt = PromptTemplate(sections=[Section(title="T", tools=[tool_obj])])
    adapter = ScriptedAdapter([tool_calls(tool_call(tool_obj.name, arguments)), text("ok")])
    return adapter.evaluate(prompt).tool_results[0].result


def test_a_function_taking_a_params_dataclass_keeps_it():
    @tool
    def lookup_entity(params: LookupParams, *, context: ToolContext) -> ToolResult[Entity]:
        """Fetch an entity by id.

        More text that is not part of the description.
        """
        return ToolResult.ok(Entity(params.entity_id))

    assert lookup_entity.name == "lookup_entity"
    assert lookup_entity.description == "Fetch an entity by id."
    assert lookup_entity.params_type is LookupParams
    assert lookup_entity.result_type is Entity
    assert run(lookup_entity, {"entity_id": "e1"}).value == Entity("e1")


def test_a_plain_typed_function_gets_a_generated_params_dataclass():
    @tool(destructive=True, name="create-task")
    def create_task(title: str, priority: str = "medium", tags: list[str] | None = None) -> dict:
        """Create a task.

        Args:
            title: Task title, 1-255 characters
            priority: One of low, medium, high
        """
        return {"title": title, "priority": priority, "tags": tags}

    assert create_task.name == "create-task"
    assert create_task.destructive is True
    assert create_task.params_type.__name__ == "CreateTaskParams"
    schema = create_task.parameters_schema()
    assert schema["required"] == ["title"]
    assert schema["properties"]["title"]["description"] == "Task title, 1-255 characters"
    assert create_task.param_descriptions == {
        "title": "Task title, 1-255 characters",
        "priority": "One of low, medium, high",
    }


def test_plain_return_values_are_wrapped_and_context_is_passed():
    seen: list[str] = []

    @tool
    def greet(name: str, *, context: ToolContext) -> str:
        """Greet someone."""
        seen.append(context.call_id)
        return f"hello {name}"

    result = run(greet, {"name": "Ada"})
    assert (result.success, result.value) == (True, "hello Ada")
    (call_id,) = seen
    assert call_id.startswith("call_")


def test_async_functions_stay_async():
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        await asyncio.sleep(0)
        return url.upper()

    assert fetch.is_async
    assert run(fetch, {"url": "x"}).value == "X"


def test_missing_description_or_annotations_are_refused():
    with pytest.raises(PromptValidationError, match="description"):

        @tool
        def nameless(x: int) -> int:
            return x

    with pytest.raises(PromptValidationError, match="annotation"):

        @tool(description="Untyped.")
        def untyped(x) -> int:  # type: ignore[no-untyped-def]
            return 1

    with pytest.raises(PromptValidationError, match=r"\*args"):

        @tool(description="Variadic.")
        def variadic(*args: int) -> int:
            return 1


def test_validation_of_generated_params_reaches_the_model():
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    assert run(add, {"a": 1, "b": 2}).value == 3
    failed = run(add, {"a": "one"})
    assert not failed.success
    assert "a" in failed.message
    assert "b: missing required field" in failed.message
