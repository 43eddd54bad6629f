"""The shared scenario of ``_agents``, grown along one dimension, per framework.

Two kinds of run, each returning the final text:

- :func:`loopback_run`: the scenario over real HTTP to the loopback server (the real ``openai``
  SDK, clients configured as ``_agents`` configures them), Chat Completions, an ``async def``
  ``get_weather``, with ``tools`` tools declared (``get_weather`` and ``tools - 1`` dummies,
  :func:`dummy_names`) and a transcript already holding ``turns`` complete earlier turns
  (:func:`earlier_turn`) before the question. affordance: ``OpenAIAdapter(api="chat")``; with
  turns, the history and the question go in ``messages=`` (the rendered prompt then becomes the
  instructions, ``specs/RUNTIME.md``, "Transcript rule"). pydantic-ai: ``OpenAIChatModel``,
  the history as ``message_history=``. openai-agents: ``OpenAIChatCompletionsModel``, the
  history and the question as ``Runner.run``'s list of input items.
- :func:`offline_run`: the framework's own fake model (as ``_agents`` builds them), whose first
  answer makes ``calls`` calls of ``get_weather`` (distinct call ids) and whose next answers
  with the text; the tool is an ``async def`` returning ``output``, a string built beforehand.
  The fakes report usage, so pydantic-ai's ``FunctionModel`` does not estimate tokens by
  splitting every message into words (a cost of the fake, not of the framework).

Every history, tool list and canned answer is built before the run is returned, so a run
times only the framework. openai-agents runs with tracing disabled, as in ``_agents``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from _agents import (
    ANSWER,
    CITY,
    INSTRUCTIONS,
    MODEL,
    QUESTION,
    TOOL_DESCRIPTION,
    Loopback,
    Question,
    Weather,
    _clients,  # the SDK clients every HTTP measure configures alike, and their closing
    _closer,
    forecast,
)
from _harness import Skip

__all__ = [
    "ARGUMENTS",
    "Run",
    "affordance_history",
    "dummy_names",
    "earlier_turn",
    "lookup_tools",
    "loopback_run",
    "offline_run",
]

Run = Callable[[], Awaitable[object]]
BuiltT = TypeVar("BuiltT")
ARGUMENTS = json.dumps({"city": CITY})
"""``get_weather``'s arguments as the Chat Completions API sends them (a JSON string)."""
DUMMY_DESCRIPTION = "Look up a record of kind {index} by name; count is how many to return."


def dummy_names(count: int) -> list[tuple[str, str]]:
    """The ``(name, description)`` of ``count`` distinct dummy tools, each taking a string
    ``name`` and an integer ``count`` (never called: they only grow the declarations)."""
    return [(f"lookup_{i}", DUMMY_DESCRIPTION.format(index=i)) for i in range(count)]


def earlier_turn(index: int) -> tuple[str, str, str, str]:
    """Turn ``index`` of a history: its question, call id, tool result and answer."""
    question = f"Question {index}: what is the weather in Paris now?"
    return question, f"hist_{index}", forecast(CITY), f"It is sunny in Paris ({index})."


def build(framework: str, make: dict[str, Callable[[], BuiltT]]) -> BuiltT:
    """``make[framework]()``; raises :class:`Skip` when there is none or it is not installed."""
    builder = make.get(framework)
    if builder is None:
        raise Skip(f"no {framework} scenario")
    try:
        return builder()
    except ImportError as error:
        raise Skip(f"not installed: {error}") from None


# -- over HTTP ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoopbackRun:
    """A run over HTTP and the closing of its clients."""

    run: Run
    aclose: Callable[[], Awaitable[None]]


def loopback_run(framework: str, base_url: str, *, tools: int, turns: int) -> LoopbackRun:
    """The scenario over Chat Completions to the loopback server at ``base_url``, with ``tools``
    tools and ``turns`` earlier turns; build it inside the event loop that will await it."""
    backend = Loopback(base_url, "chat")
    make: dict[str, Callable[[], LoopbackRun]] = {
        "affordance": lambda: _affordance_loopback(backend, tools, turns),
        "pydantic-ai": lambda: _pydantic_ai_loopback(backend, tools, turns),
        "openai-agents": lambda: _openai_agents_loopback(backend, tools, turns),
    }
    return build(framework, make)


# A dummy tool's params in affordance. No docstring: it would go on the wire as the schema's
# description, which the peers' dummies do not send.
@dataclass(frozen=True, slots=True)
class Lookup:
    name: str
    count: int


def lookup_tools(count: int) -> list[Any]:
    """``count`` affordance dummy tools (:func:`dummy_names`), sharing one params type."""
    from affordance import Tool, ToolResult

    async def lookup(params: Lookup) -> ToolResult[str]:
        return ToolResult.ok(params.name * params.count)

    return [
        Tool[Lookup, str](name=name, description=description, handler=lookup)
        for name, description in dummy_names(count)
    ]


def affordance_history(turns: int, arguments: str | dict[str, Any]) -> tuple[Any, ...]:
    """``turns`` earlier turns as affordance messages; ``arguments`` as stored (a JSON string
    from OpenAI, an object from Anthropic or Google)."""
    from affordance.adapters import AssistantMessage, ToolCall, ToolResultMessage, UserMessage

    history: list[Any] = []
    for index in range(turns):
        question, call_id, result, answer = earlier_turn(index)
        history += (
            UserMessage(question),
            AssistantMessage(None, (ToolCall(call_id, "get_weather", arguments),)),
            ToolResultMessage(call_id, "get_weather", result),
            AssistantMessage(answer),
        )
    return tuple(history)


def _affordance_prompt(tools: list[Any], question: bool) -> Any:
    """The scenario's prompt holding ``tools``; without ``question``, instructions only (the
    question then comes as a caller message)."""
    from affordance import MarkdownSection, PromptTemplate

    sections: list[Any] = [
        MarkdownSection(title="Instructions", template=INSTRUCTIONS, tools=tools)
    ]
    if question:
        template = "What is the weather in ${city}?"
        sections.append(MarkdownSection[Question](title="Question", template=template))
    return PromptTemplate(name="weather", sections=sections)


def _weather_tool(output: str | None = None) -> Any:
    """affordance's ``get_weather``, ``async def``, returning ``output`` or the forecast."""
    from affordance import Tool, ToolResult

    async def get_weather(params: Weather) -> ToolResult[str]:
        return ToolResult.ok(forecast(params.city) if output is None else output)

    return Tool[Weather, str](name="get_weather", description=TOOL_DESCRIPTION, handler=get_weather)


def _affordance_loopback(backend: Loopback, tools: int, turns: int) -> LoopbackRun:
    try:
        from affordance_openai import OpenAIAdapter
    except ImportError as error:
        raise Skip(f"plugin not installed: {error}") from None
    from affordance.adapters import UserMessage

    clients = _clients(backend)
    adapter = OpenAIAdapter(MODEL, client=clients[0], async_client=clients[1], api="chat")
    declared = [_weather_tool(), *lookup_tools(tools - 1)]
    if not turns:
        prompt = _affordance_prompt(declared, question=True)
        params = Question(CITY)

        async def run() -> object:
            return (await adapter.aevaluate(prompt, params)).text

        return LoopbackRun(run, _closer(*clients))

    chat = _affordance_prompt(declared, question=False)
    messages = (*affordance_history(turns, ARGUMENTS), UserMessage(QUESTION))

    async def run_chat() -> object:
        return (await adapter.aevaluate(chat, messages=messages)).text

    return LoopbackRun(run_chat, _closer(*clients))


async def _lookup(name: str, count: int) -> str:
    """Look up a record by name."""
    return name * count


def _pydantic_ai_loopback(backend: Loopback, tools: int, turns: int) -> LoopbackRun:
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def get_weather(city: str) -> str:
        """Current weather for a city."""
        return forecast(city)

    clients = _clients(backend)
    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=clients[1]))
    dummies = [
        Tool(_lookup, name=name, description=description)
        for name, description in dummy_names(tools - 1)
    ]
    agent = Agent(model, instructions=INSTRUCTIONS, tools=[get_weather, *dummies])
    history: list[Any] = []
    for index in range(turns):
        question, call_id, result, answer = earlier_turn(index)
        history += (
            ModelRequest(parts=[UserPromptPart(question)]),
            ModelResponse(parts=[ToolCallPart("get_weather", ARGUMENTS, tool_call_id=call_id)]),
            ModelRequest(parts=[ToolReturnPart("get_weather", result, tool_call_id=call_id)]),
            ModelResponse(parts=[TextPart(answer)]),
        )

    async def run() -> object:
        return (await agent.run(QUESTION, message_history=history or None)).output

    return LoopbackRun(run, _closer(*clients))


def _openai_agents_loopback(backend: Loopback, tools: int, turns: int) -> LoopbackRun:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from agents.tracing import set_tracing_disabled

    set_tracing_disabled(True)

    @function_tool
    async def get_weather(city: str) -> str:
        """Current weather for a city."""
        return forecast(city)

    clients = _clients(backend)
    model = OpenAIChatCompletionsModel(model=MODEL, openai_client=clients[1])
    dummies = [
        function_tool(_lookup, name_override=name, description_override=description)
        for name, description in dummy_names(tools - 1)
    ]
    agent = Agent(
        name="weather", instructions=INSTRUCTIONS, tools=[get_weather, *dummies], model=model
    )
    items: list[Any] = []
    for index in range(turns):
        question, call_id, result, answer = earlier_turn(index)
        items += (
            {"role": "user", "content": question},
            {
                "type": "function_call",
                "call_id": call_id,
                "name": "get_weather",
                "arguments": ARGUMENTS,
            },
            {"type": "function_call_output", "call_id": call_id, "output": result},
            {"role": "assistant", "content": answer},
        )
    given: str | list[Any] = [*items, {"role": "user", "content": QUESTION}] if turns else QUESTION

    async def run() -> object:
        return (await Runner.run(agent, given)).final_output

    return LoopbackRun(run, _closer(*clients))


# -- offline -----------------------------------------------------------------------------------


def offline_run(framework: str, *, calls: int, output: str | None = None) -> Run:
    """The scenario with the framework's fake model: ``calls`` calls of ``get_weather`` in its
    first answer, each returning ``output`` (default: the forecast), then the final text."""
    make: dict[str, Callable[[], Run]] = {
        "affordance": lambda: _affordance_offline(calls, output),
        "pydantic-ai": lambda: _pydantic_ai_offline(calls, output),
        "openai-agents": lambda: _openai_agents_offline(calls, output),
    }
    return build(framework, make)


def _call_ids(calls: int) -> list[str]:
    return [f"call_{i}" for i in range(calls)]


def _affordance_offline(calls: int, output: str | None) -> Run:
    from affordance.adapters import ModelRequest, ProviderTurn, ToolResultMessage
    from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

    prompt, params = _affordance_prompt([_weather_tool(output)], question=True), Question(CITY)
    asked = tool_calls(*(tool_call("get_weather", ARGUMENTS, call_id=i) for i in _call_ids(calls)))
    answer = text(ANSWER)

    def responder(request: ModelRequest) -> ProviderTurn:
        return answer if isinstance(request.messages[-1], ToolResultMessage) else asked

    # record=False: the peers' fakes keep no history either
    adapter = ScriptedAdapter(responder=responder, record=False)

    async def run() -> object:
        return (await adapter.aevaluate(prompt, params)).text

    return run


def _pydantic_ai_offline(calls: int, output: str | None) -> Run:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage

    asked = [ToolCallPart("get_weather", ARGUMENTS, tool_call_id=i) for i in _call_ids(calls)]
    usage = RequestUsage(input_tokens=10, output_tokens=5)

    async def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
            return ModelResponse(parts=[TextPart(ANSWER)], usage=usage)
        return ModelResponse(parts=list(asked), usage=usage)

    agent = Agent(FunctionModel(respond), instructions=INSTRUCTIONS)

    @agent.tool_plain
    async def get_weather(city: str) -> str:
        """Current weather for a city."""
        return forecast(city) if output is None else output

    async def run() -> object:
        return (await agent.run(QUESTION)).output

    return run


def _openai_agents_offline(calls: int, output: str | None) -> Run:
    from agents import Agent, Model, ModelResponse, Runner, Usage, function_tool
    from agents.tracing import set_tracing_disabled
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    set_tracing_disabled(True)
    asked: list[Any] = [
        ResponseFunctionToolCall(
            id=f"fc_{i}", call_id=i, type="function_call", name="get_weather", arguments=ARGUMENTS
        )
        for i in _call_ids(calls)
    ]
    answer: list[Any] = [
        ResponseOutputMessage(
            id="msg_1",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(text=ANSWER, type="output_text", annotations=[])],
        )
    ]

    def answered(last: Any) -> bool:
        kind = last.get("type") if isinstance(last, dict) else getattr(last, "type", None)
        return kind == "function_call_output"

    class CannedModel(Model):
        """Calls get_weather ``calls`` times; answers once tool outputs end the input."""

        async def get_response(self, system_instructions, input, *args, **kwargs):  # type: ignore[no-untyped-def]
            done = not isinstance(input, str) and answered(input[-1])
            output_items = answer if done else asked
            return ModelResponse(output=list(output_items), usage=Usage(), response_id=None)

        async def stream_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise NotImplementedError("the benchmark does not stream")
            yield  # pragma: no cover - makes this an async generator

    @function_tool
    async def get_weather(city: str) -> str:
        """Current weather for a city."""
        return forecast(city) if output is None else output

    agent = Agent(
        name="weather", instructions=INSTRUCTIONS, tools=[get_weather], model=CannedModel()
    )

    async def run() -> object:
        return (await Runner.run(agent, QUESTION)).final_output

    return run
