"""``ProviderAdapter`` holds a ``ProviderModel``: the runner (loop options, evaluate API) on one
side, the provider's model (wire format, clients, serializers, codecs) on the other.

The model is a ``Model`` any runner can hold, the adapter hands its resolution options to the
model, closes it, and is named after it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from affordance import MarkdownSection, PromptTemplate, Tool
from affordance.adapters import (
    ModelRequest,
    ProviderAdapter,
    ProviderModel,
    ProviderTurn,
    ToolDeclaration,
)
from affordance.adapters.resolution import WeakIdentityCache
from affordance.runtime import Evaluator, ToolExecutor
from affordance.testing import FakeClock, ScriptedAdapter, ScriptedModel, text


class EchoModel(ProviderModel):
    """Answers with the opening message; counts how often it was closed."""

    name = "echo"

    def __init__(self) -> None:
        super().__init__()
        self.closed = 0
        self.aclosed = 0

    def send(self, request: ModelRequest) -> ProviderTurn:
        return ProviderTurn(text=f"echo: {request.messages[0]}")

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)

    def close(self) -> None:
        self.closed += 1

    async def aclose(self) -> None:
        self.aclosed += 1


class EchoAdapter(ProviderAdapter[EchoModel]):
    def __init__(self, **options: Any) -> None:
        super().__init__(EchoModel(), **options)


class Renamed(ProviderAdapter[EchoModel]):
    name = "renamed"


def prompt() -> PromptTemplate[Any]:
    return PromptTemplate(
        ns="tests", key="hold", sections=[MarkdownSection(title="Task", template="Say it.")]
    )


def test_any_runner_holds_a_provider_model() -> None:
    runner = Evaluator(ScriptedModel([text("from the model")]), max_turns=2)

    response = runner.evaluate(prompt())

    assert response.text == "from the model"
    assert runner.max_turns == 2  # the runner's option; the model never sees it


def test_an_adapter_is_named_after_its_model_unless_it_names_itself() -> None:
    assert (EchoAdapter.name, Renamed.name, ScriptedAdapter.name) == ("echo", "renamed", "scripted")
    assert EchoAdapter().evaluate(prompt()).text is not None


def test_an_adapter_needs_a_provider_model() -> None:
    with pytest.raises(TypeError, match="needs a ProviderModel, got str"):
        ProviderAdapter("gpt-4o")  # type: ignore[type-var]


class Upper:
    """A role-``tool`` serializer override."""

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        return ToolDeclaration({"name": tool.name.upper()})


def test_the_adapter_hands_serializers_codecs_and_registry_to_its_model() -> None:
    from affordance.plugins import PluginHost

    registry = PluginHost(autoload=False).registry()
    tool = Tool[None, None](name="lookup", description="Look it up.", handler=None)

    adapter = EchoAdapter(serializers={"tool": Upper()}, codecs={}, registry=registry)

    assert adapter.connection.declaration(tool).wire == {"name": "LOOKUP"}
    assert adapter.connection.resolution().registry is registry
    with pytest.raises(ValueError, match="unknown role"):
        EchoAdapter(serializers={"tools": Upper()})


def test_closing_the_adapter_closes_its_model() -> None:
    with EchoAdapter() as adapter:
        pass

    async def in_async() -> EchoAdapter:
        async with EchoAdapter() as opened:
            return opened

    other = asyncio.run(in_async())
    assert (adapter.connection.closed, other.connection.aclosed) == (1, 1)


def test_executor_of_gives_the_executor_an_adapter_will_run_tools_with() -> None:
    given = ToolExecutor(clock=FakeClock())
    options: dict[str, Any] = {"executor": given}
    assert ProviderAdapter.executor_of(options) is given

    empty: dict[str, Any] = {"executor": None}
    made = ProviderAdapter.executor_of(empty)
    assert empty["executor"] is made  # the adapter built from these options uses it
    assert EchoAdapter(**empty).executor is made

    with pytest.raises(TypeError, match="executor must be a ToolExecutor, got str"):
        ProviderAdapter.executor_of({"executor": "fast"})


class Counting:
    """A role-``tool`` serializer counting the declarations it builds."""

    def __init__(self) -> None:
        self.built = 0

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        self.built += 1
        return ToolDeclaration({"name": tool.name})


def many_tools(count: int) -> list[Tool[None, None]]:
    return [
        Tool[None, None](name=f"t{n}", description="A tool.", handler=None) for n in range(count)
    ]


def test_a_busy_model_declares_each_living_tool_once_however_many_it_has_served() -> None:
    """No bound a busy adapter cycles through: the first tool's declaration survives 1,100
    later ones, and every tool is declared once while it lives."""
    serializer = Counting()
    adapter = EchoAdapter(serializers={"tool": serializer}, registry=_empty_registry())
    first, *others = many_tools(1101)
    declared = adapter.connection.declaration(first)
    for tool in others:
        adapter.connection.declaration(tool)

    assert adapter.connection.declaration(first) is declared
    assert [adapter.connection.declaration(tool) for tool in others[:3]] == [
        ToolDeclaration({"name": "t1"}),
        ToolDeclaration({"name": "t2"}),
        ToolDeclaration({"name": "t3"}),
    ]
    assert serializer.built == 1101


def test_a_declaration_goes_with_its_tool() -> None:
    import gc

    cache: WeakIdentityCache[Tool[Any, Any], str] = WeakIdentityCache()
    kept, dropped = many_tools(2)
    cache.put(kept, "kept")
    cache.put(dropped, "dropped")
    del dropped
    gc.collect()

    assert (len(cache), cache.get(kept)) == (1, "kept")


def _empty_registry() -> Any:
    from affordance.plugins import PluginHost

    return PluginHost(autoload=False).registry()
