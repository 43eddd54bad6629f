"""The one scenario every run-time measure uses, built per framework and per backend.

The work is the same everywhere: instructions ("You answer weather questions..."), the
question "What is the weather in Paris?", one tool ``get_weather(city)`` that returns a short
string, and a model that answers the first request with a call to that tool and the request
carrying its result with the final text. Tools are plain ``def`` functions, as users write
them, unless ``async_tool`` asks for ``async def``.

Backends:

- offline (``backend=None``): the framework's own fake model, stateless so one agent serves
  any number of runs. affordance: ``ScriptedAdapter(responder=...)``; pydantic-ai:
  ``FunctionModel`` with an ``async def`` function (a sync one runs in a worker thread);
  openai-agents: a ``Model`` subclass returning canned ``ModelResponse`` objects; llm: an
  ``llm.Model`` / ``llm.AsyncModel`` subclass with ``supports_tools``.
- :class:`Loopback`: the real ``openai`` SDK over HTTP to the loopback server
  (``_loopback_process``), Chat Completions or Responses. affordance: ``OpenAIAdapter``;
  pydantic-ai: ``OpenAIChatModel`` / ``OpenAIResponsesModel``; openai-agents:
  ``OpenAIChatCompletionsModel`` / ``OpenAIResponsesModel``; ``openai-sdk``: the two requests
  written by hand with the typed SDK (the floor); ``openai-sdk-raw``: the same JSON bodies
  through the client's public ``post`` (``cast_to`` the HTTP response) and one ``json.loads``
  (the SDK's fastest path; ``with_raw_response.create(..., extra_body=...)`` sends the same
  bytes about 120 µs a request slower).

openai-agents runs with tracing disabled: its default exporter would upload traces.
Build an agent inside the event loop that will await it (its async HTTP client binds to it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx2
from _harness import Skip

__all__ = ["ANSWER", "Agent", "Loopback", "affordance_prompt", "build"]

MODEL = "gpt-loopback"
INSTRUCTIONS = "You answer weather questions. Use the get_weather tool."
QUESTION = "What is the weather in Paris?"
ANSWER = "It is sunny in Paris."
CITY = "Paris"
TOOL_DESCRIPTION = "Current weather for a city."
PARAMETERS = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def forecast(city: str) -> str:
    return f"Sunny, 24 C in {city}."


@dataclass(frozen=True, slots=True)
class Loopback:
    """The loopback server at ``base_url``, spoken to through ``api``."""

    base_url: str
    api: str  # "chat" or "responses"


@dataclass(frozen=True, slots=True)
class Agent:
    """One framework's run: ``run_sync()`` / ``await run_async()`` return the final text.

    Either may be ``None`` when the framework has no such form here; ``aclose`` closes the
    HTTP clients of a loopback agent.
    """

    run_sync: Callable[[], str] | None
    run_async: Callable[[], Awaitable[str]] | None
    aclose: Callable[[], Awaitable[None]] | None = None


def build(framework: str, backend: Loopback | None = None, *, async_tool: bool = False) -> Agent:
    """The scenario for ``framework``; raises :class:`Skip` where it cannot run."""
    builder = _BUILDERS.get(framework)
    if builder is None:
        raise Skip(f"no {framework} scenario")
    try:
        return builder(backend, async_tool)
    except ImportError as error:
        raise Skip(f"not installed: {error}") from None


def _clients(backend: Loopback) -> tuple[Any, Any]:
    """Sync and async SDK clients for the loopback server, configured alike for everyone.

    Plain HTTP needs no CA bundle (``verify=False`` skips loading one); connections are capped
    at 100 so a burst of runs queues in the client's pool instead of flooding the server.
    """
    import openai

    try:
        import httpx2 as httpx  # what openai 3.x is built on
    except ImportError:
        import httpx

    http: dict[str, Any] = {
        "verify": False,
        "limits": httpx.Limits(max_connections=100, max_keepalive_connections=100),
    }
    options: dict[str, Any] = {"base_url": backend.base_url, "api_key": "bench", "max_retries": 0}
    sync_client = openai.OpenAI(**options, http_client=openai.DefaultHttpxClient(**http))
    async_client = openai.AsyncOpenAI(**options, http_client=openai.DefaultAsyncHttpxClient(**http))
    return sync_client, async_client


def _closer(sync_client: Any, async_client: Any) -> Callable[[], Awaitable[None]]:
    async def aclose() -> None:
        sync_client.close()
        await async_client.close()

    return aclose


# -- affordance --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Weather:
    """``get_weather``'s params in the affordance scenario."""

    city: str


@dataclass(frozen=True, slots=True)
class Question:
    """The affordance prompt's params (shared by its two forms, so either takes them)."""

    city: str


def affordance_prompt(async_tool: bool) -> tuple[Any, Question]:
    """The scenario as an affordance prompt, and its params: ``get_weather`` a ``def`` tool, or
    an ``async def`` one with ``async_tool`` (what a run awaited on a loop calls inline, as the
    hand-written paths do)."""
    from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult

    def get_weather(params: Weather) -> ToolResult[str]:
        return ToolResult.ok(forecast(params.city))

    async def aget_weather(params: Weather) -> ToolResult[str]:
        return ToolResult.ok(forecast(params.city))

    tool = Tool[Weather, str](
        name="get_weather",
        description=TOOL_DESCRIPTION,
        handler=aget_weather if async_tool else get_weather,
    )
    prompt = PromptTemplate(
        name="weather",
        sections=[
            MarkdownSection(title="Instructions", template=INSTRUCTIONS, tools=[tool]),
            MarkdownSection[Question](title="Question", template="What is the weather in ${city}?"),
        ],
    )
    return prompt, Question(CITY)


def _affordance(backend: Loopback | None, async_tool: bool) -> Agent:
    prompt, params = affordance_prompt(async_tool)
    aclose = None
    if backend is None:
        from affordance.adapters import ModelRequest, ProviderTurn, ToolResultMessage
        from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

        call = tool_calls(tool_call("get_weather", {"city": CITY}, call_id="call_1"))
        answer = text(ANSWER)

        def responder(request: ModelRequest) -> ProviderTurn:
            for message in request.messages:
                if isinstance(message, ToolResultMessage):
                    return answer
            return call

        # record=False: the peers' fakes keep no history either
        adapter: Any = ScriptedAdapter(responder=responder, record=False)
    else:
        try:
            from affordance_openai import OpenAIAdapter
        except ImportError as error:
            raise Skip(f"plugin not installed: {error}") from None
        sync_client, async_client = _clients(backend)
        adapter = OpenAIAdapter(
            MODEL, client=sync_client, async_client=async_client, api=backend.api
        )
        aclose = _closer(sync_client, async_client)

    def run_sync() -> str:
        return adapter.evaluate(prompt, params).text  # type: ignore[no-any-return]

    async def run_async() -> str:
        return (await adapter.aevaluate(prompt, params)).text  # type: ignore[no-any-return]

    return Agent(run_sync, run_async, aclose)


# -- the openai SDK by hand (the floor) --------------------------------------------------------


def _openai_sdk(backend: Loopback | None, async_tool: bool, raw: bool = False) -> Agent:
    if backend is None:
        raise Skip("the raw SDK has no offline model")
    sync_client, async_client = _clients(backend)
    exchange = _ChatByHand(raw) if backend.api == "chat" else _ResponsesByHand(raw)

    def run_sync() -> str:
        def send(body: dict[str, Any]) -> Any:
            return exchange.read(exchange.post(sync_client, body))

        return exchange.run(send)

    async def run_async() -> str:
        bodies: list[dict[str, Any]] = [exchange.first_body()]
        reply = exchange.read(await exchange.post(async_client, bodies[0]))
        second = exchange.second_body(bodies[0], reply)
        return exchange.final_text(exchange.read(await exchange.post(async_client, second)))

    return Agent(run_sync, run_async, _closer(sync_client, async_client))


class _ChatByHand:
    """Chat Completions by hand: typed (``create``) or raw JSON (the client's ``post``)."""

    path = "/chat/completions"

    def __init__(self, raw: bool) -> None:
        self.raw = raw
        self.tools = [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": TOOL_DESCRIPTION,
                    "parameters": PARAMETERS,
                    "strict": True,
                },
            }
        ]

    def post(self, client: Any, body: dict[str, Any]) -> Any:
        if self.raw:
            return client.post(self.path, cast_to=httpx2.Response, body=body)
        return client.chat.completions.create(**body)

    def read(self, answer: Any) -> Any:
        return json.loads(answer.content) if self.raw else answer

    def first_body(self) -> dict[str, Any]:
        messages = [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": QUESTION},
        ]
        return {"model": MODEL, "messages": messages, "tools": self.tools}

    def second_body(self, first: dict[str, Any], reply: Any) -> dict[str, Any]:
        messages = list(first["messages"])
        if self.raw:
            message = reply["choices"][0]["message"]
            calls = [
                (c["id"], c["function"]["name"], c["function"]["arguments"])
                for c in message.get("tool_calls") or ()
            ]
            content = message.get("content")
        else:
            message = reply.choices[0].message
            calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
            content = message.content
        messages.append(
            {
                "role": "assistant",
                "content": content,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                    for i, n, a in calls
                ],
            }
        )
        for call_id, _name, arguments in calls:
            output = forecast(**json.loads(arguments))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
        return {**first, "messages": messages}

    def final_text(self, reply: Any) -> str:
        if self.raw:
            return reply["choices"][0]["message"]["content"]  # type: ignore[no-any-return]
        return reply.choices[0].message.content  # type: ignore[no-any-return]

    def run(self, send: Callable[[dict[str, Any]], Any]) -> str:
        first = self.first_body()
        return self.final_text(send(self.second_body(first, send(first))))


class _ResponsesByHand(_ChatByHand):
    """Responses by hand: function calls echoed back with their outputs."""

    path = "/responses"

    def __init__(self, raw: bool) -> None:
        super().__init__(raw)
        self.tools = [
            {
                "type": "function",
                "name": "get_weather",
                "description": TOOL_DESCRIPTION,
                "parameters": PARAMETERS,
                "strict": True,
            }
        ]

    def post(self, client: Any, body: dict[str, Any]) -> Any:
        if self.raw:
            return client.post(self.path, cast_to=httpx2.Response, body=body)
        return client.responses.create(**body)

    def first_body(self) -> dict[str, Any]:
        return {
            "model": MODEL,
            "instructions": INSTRUCTIONS,
            "input": [{"role": "user", "content": QUESTION}],
            "tools": self.tools,
        }

    def second_body(self, first: dict[str, Any], reply: Any) -> dict[str, Any]:
        items = list(first["input"])
        if self.raw:
            calls = [
                (item["call_id"], item["name"], item["arguments"])
                for item in reply["output"]
                if item["type"] == "function_call"
            ]
        else:
            calls = [
                (item.call_id, item.name, item.arguments)
                for item in reply.output
                if item.type == "function_call"
            ]
        for call_id, name, arguments in calls:
            items.append(
                {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
            )
            output = forecast(**json.loads(arguments))
            items.append({"type": "function_call_output", "call_id": call_id, "output": output})
        return {**first, "input": items}

    def final_text(self, reply: Any) -> str:
        if self.raw:
            for item in reply["output"]:
                if item["type"] == "message":
                    return "".join(part.get("text", "") for part in item["content"])
            return ""
        return reply.output_text  # type: ignore[no-any-return]


# -- pydantic-ai -------------------------------------------------------------------------------


def _pydantic_ai(backend: Loopback | None, async_tool: bool) -> Agent:
    from pydantic_ai import Agent as PydanticAgent

    aclose = None
    model: Any
    if backend is None:
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel

        call = ToolCallPart("get_weather", {"city": CITY}, tool_call_id="call_1")

        async def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
            if any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
                return ModelResponse(parts=[TextPart(ANSWER)])
            return ModelResponse(parts=[call])

        model = FunctionModel(respond)
    else:
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        sync_client, async_client = _clients(backend)
        provider = OpenAIProvider(openai_client=async_client)
        model_type = OpenAIChatModel if backend.api == "chat" else OpenAIResponsesModel
        model = model_type(MODEL, provider=provider)
        aclose = _closer(sync_client, async_client)

    agent = PydanticAgent(model, instructions=INSTRUCTIONS)

    if async_tool:

        @agent.tool_plain
        async def get_weather(city: str) -> str:
            """Current weather for a city."""
            return forecast(city)

    else:

        @agent.tool_plain
        def get_weather(city: str) -> str:
            """Current weather for a city."""
            return forecast(city)

    def run_sync() -> str:
        return agent.run_sync(QUESTION).output

    async def run_async() -> str:
        return (await agent.run(QUESTION)).output

    # run_sync drives the async client on a loop of its own; only offline is comparable
    return Agent(run_sync if backend is None else None, run_async, aclose)


# -- openai-agents -----------------------------------------------------------------------------


def _openai_agents(backend: Loopback | None, async_tool: bool) -> Agent:
    from agents import Agent as OpenAIAgent
    from agents import Runner, function_tool
    from agents.tracing import set_tracing_disabled

    set_tracing_disabled(True)
    aclose = None
    model: Any
    if backend is None:
        model = _canned_openai_agents_model()
    else:
        from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel

        sync_client, async_client = _clients(backend)
        model_type = OpenAIChatCompletionsModel if backend.api == "chat" else OpenAIResponsesModel
        model = model_type(model=MODEL, openai_client=async_client)
        aclose = _closer(sync_client, async_client)

    if async_tool:

        @function_tool
        async def get_weather(city: str) -> str:
            """Current weather for a city."""
            return forecast(city)

    else:

        @function_tool
        def get_weather(city: str) -> str:
            """Current weather for a city."""
            return forecast(city)

    agent = OpenAIAgent(name="weather", instructions=INSTRUCTIONS, tools=[get_weather], model=model)

    def run_sync() -> str:
        return Runner.run_sync(agent, QUESTION).final_output  # type: ignore[no-any-return]

    async def run_async() -> str:
        return (await Runner.run(agent, QUESTION)).final_output  # type: ignore[no-any-return]

    return Agent(run_sync if backend is None else None, run_async, aclose)


def _canned_openai_agents_model() -> Any:
    from agents import Model, ModelResponse, Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    def item_type(item: Any) -> Any:
        return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)

    class CannedModel(Model):
        """Calls get_weather on the first request; answers once a tool output is in the input."""

        async def get_response(self, system_instructions, input, *args, **kwargs):  # type: ignore[no-untyped-def]
            answered = not isinstance(input, str) and any(
                item_type(item) == "function_call_output" for item in input
            )
            if answered:
                output: list[Any] = [
                    ResponseOutputMessage(
                        id="msg_1",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[
                            ResponseOutputText(text=ANSWER, type="output_text", annotations=[])
                        ],
                    )
                ]
            else:
                output = [
                    ResponseFunctionToolCall(
                        id="fc_1",
                        call_id="call_1",
                        type="function_call",
                        name="get_weather",
                        arguments=json.dumps({"city": CITY}),
                    )
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        async def stream_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise NotImplementedError("the benchmark does not stream")
            yield  # pragma: no cover - makes this an async generator

    return CannedModel()


# -- llm ---------------------------------------------------------------------------------------


def _llm(backend: Loopback | None, async_tool: bool) -> Agent:
    if backend is not None:
        raise Skip("llm's OpenAI models take no client or base URL from Python; not measured")
    import llm

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return forecast(city)

    async def aget_weather(city: str) -> str:
        """Current weather for a city."""
        return forecast(city)

    def step(prompt: Any, response: Any) -> str | None:
        if prompt.tool_results:
            return ANSWER
        response.add_tool_call(
            llm.ToolCall(name="get_weather", arguments={"city": CITY}, tool_call_id="call_1")
        )
        return None

    class CannedModel(llm.Model):
        model_id = "bench-canned"
        supports_tools = True

        def execute(self, prompt, stream, response, conversation):  # type: ignore[no-untyped-def]
            text = step(prompt, response)
            if text is not None:
                yield text

    class AsyncCannedModel(llm.AsyncModel):
        model_id = "bench-canned-async"
        supports_tools = True

        async def execute(self, prompt, stream, response, conversation):  # type: ignore[no-untyped-def]
            text = step(prompt, response)
            if text is not None:
                yield text

    model, async_model = CannedModel(), AsyncCannedModel()
    tool = aget_weather if async_tool else get_weather

    def run_sync() -> str:
        return model.chain(QUESTION, system=INSTRUCTIONS, tools=[get_weather]).text()

    async def run_async() -> str:
        return await async_model.chain(QUESTION, system=INSTRUCTIONS, tools=[tool]).text()

    return Agent(run_sync, run_async)


def _openai_sdk_raw(backend: Loopback | None, async_tool: bool) -> Agent:
    return _openai_sdk(backend, async_tool, raw=True)


_BUILDERS: dict[str, Callable[[Loopback | None, bool], Agent]] = {
    "affordance": _affordance,
    "openai-sdk": _openai_sdk,
    "openai-sdk-raw": _openai_sdk_raw,
    "pydantic-ai": _pydantic_ai,
    "openai-agents": _openai_agents,
    "llm": _llm,
}
