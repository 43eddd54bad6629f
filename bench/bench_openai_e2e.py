"""A one-tool agent run through ``OpenAIAdapter.evaluate`` versus the same two requests by hand.

Each round runs, against the loopback server: the model calls ``get_weather`` once, the tool
runs, the model answers. Contenders, interleaved round by round so drift hits all alike:

- ``adapter``: ``OpenAIAdapter(...).evaluate(prompt)`` (render, loop, executor, translation);
- ``sdk typed``: what a careful user writes with the SDK: ``client.responses.create(...)`` with
  typed params, read ``response.output``, run the tool, send the second request;
- ``sdk raw``: the SDK's fastest path, which the adapter itself uses: ``with_raw_response`` with
  the body as ``extra_body`` and one ``json.loads`` (the floor for any SDK-based adapter).

``--sdk-paths`` instead times one request (the run's second, carrying the tool result) three
ways: typed ``create`` + ``model_dump()``; typed ``with_raw_response.create`` + ``json.loads``;
``with_raw_response.create`` with the body as ``extra_body`` + ``json.loads`` (the adapter's).

Run: ``.venv/bin/python bench/bench_openai_e2e.py [--api chat] [--rounds 300] [--sdk-paths]``.
Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fixtures"))

import openai
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    RecordedRequest,
    Reply,
    chat_text,
    chat_tool_calls,
    openai_server,
    response_function_calls,
    response_text,
)

from affordance import MarkdownSection, Prompt, Tool, ToolResult
from affordance_openai import OpenAIAdapter

MODEL = "gpt-bench"
TASK = "What is the weather in Paris? Use the tool, then answer in one sentence."


@dataclass(frozen=True, slots=True)
class WeatherParams:
    city: str
    unit: str = "c"


def get_weather(params: WeatherParams) -> ToolResult[str]:
    return ToolResult.ok(f"{params.city}: 21 degrees {params.unit}, sunny")


WEATHER = Tool[WeatherParams, str](
    name="get_weather", description="Current weather for a city.", handler=get_weather
)
PROMPT = Prompt(
    ns="bench",
    key="weather",
    sections=[MarkdownSection(title="Task", template=TASK, tools=[WEATHER])],
)
RESPONSES_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
    "strict": True,
}
CHAT_TOOL = {
    "type": "function",
    "function": {k: v for k, v in RESPONSES_TOOL.items() if k != "type"},
}
ARGUMENTS = {"city": "Paris", "unit": "c"}


def responder(api: str) -> Callable[[RecordedRequest], Reply]:
    """First request of a run: a tool call; a request carrying the tool result: the answer."""
    call = [("call_1", "get_weather", ARGUMENTS)]
    if api == "chat":
        first: Reply = chat_tool_calls(call)
        final: Reply = chat_text("It is sunny in Paris.")
        return lambda request: final if len(request.body["messages"]) > 1 else first
    first = response_function_calls(call)
    final = response_text("It is sunny in Paris.")
    return lambda request: final if len(request.body["input"]) > 1 else first


def typed_run(client: openai.OpenAI, api: str) -> str | None:
    if api == "chat":
        messages: list[Any] = [{"role": "user", "content": TASK}]
        first = client.chat.completions.create(model=MODEL, messages=messages, tools=[CHAT_TOOL])  # type: ignore[list-item]
        message = first.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        for tool_call in message.tool_calls or ():
            result = get_weather(WeatherParams(**json.loads(tool_call.function.arguments)))  # type: ignore[union-attr]
            messages.append(
                {"role": "tool", "tool_call_id": tool_call.id, "content": result.message}
            )
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[CHAT_TOOL])  # type: ignore[list-item]
        return second.choices[0].message.content
    items: list[Any] = [{"role": "user", "content": TASK}]
    response = client.responses.create(model=MODEL, input=items, tools=[RESPONSES_TOOL])  # type: ignore[list-item]
    for item in response.output:
        items.append(item)
        if item.type == "function_call":
            result = get_weather(WeatherParams(**json.loads(item.arguments)))
            items.append(
                {"type": "function_call_output", "call_id": item.call_id, "output": result.message}
            )
    final = client.responses.create(model=MODEL, input=items, tools=[RESPONSES_TOOL])  # type: ignore[list-item]
    return final.output_text


def raw_run(client: openai.OpenAI, api: str) -> str | None:
    def post(body: dict[str, Any]) -> Any:
        if api == "chat":
            raw: Any = client.chat.completions.with_raw_response.create(
                model=MODEL, messages=[], extra_body=body
            )
        else:
            raw = client.responses.with_raw_response.create(model=MODEL, input=[], extra_body=body)
        return json.loads(raw.http_response.content)

    if api == "chat":
        messages: list[Any] = [{"role": "user", "content": TASK}]
        first = post({"model": MODEL, "messages": messages, "tools": [CHAT_TOOL]})
        message = first["choices"][0]["message"]
        messages.append(message)
        for tool_call in message.get("tool_calls") or ():
            params = WeatherParams(**json.loads(tool_call["function"]["arguments"]))
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": tool_call["id"],
                    "content": get_weather(params).message,
                }
            )
        second = post({"model": MODEL, "messages": messages, "tools": [CHAT_TOOL]})
        return second["choices"][0]["message"]["content"]  # type: ignore[no-any-return]
    items: list[Any] = [{"role": "user", "content": TASK}]
    data = post({"model": MODEL, "input": items, "tools": [RESPONSES_TOOL]})
    for item in data["output"]:
        items.append(item)
        if item["type"] == "function_call":
            params = WeatherParams(**json.loads(item["arguments"]))
            output = get_weather(params).message
            items.append(
                {"type": "function_call_output", "call_id": item["call_id"], "output": output}
            )
    final = post({"model": MODEL, "input": items, "tools": [RESPONSES_TOOL]})
    return final["output"][0]["content"][0]["text"]  # type: ignore[no-any-return]


def sdk_paths(client: openai.OpenAI, api: str, body: dict[str, Any]) -> dict[str, Any]:
    """One request three ways, each returning the plain dict a codec or parser would read."""
    if api == "chat":
        chat = client.chat.completions
        return {
            "typed + model_dump": lambda: chat.create(**body).model_dump(),
            "typed raw + json.loads": lambda: json.loads(
                chat.with_raw_response.create(**body).http_response.content
            ),
            "extra_body raw + json.loads": lambda: json.loads(
                chat.with_raw_response.create(
                    model=MODEL, messages=[], extra_body=body
                ).http_response.content
            ),
        }
    responses = client.responses
    return {
        "typed + model_dump": lambda: responses.create(**body).model_dump(),
        "typed raw + json.loads": lambda: json.loads(
            responses.with_raw_response.create(**body).http_response.content
        ),
        "extra_body raw + json.loads": lambda: json.loads(
            responses.with_raw_response.create(
                model=MODEL, input=[], extra_body=body
            ).http_response.content
        ),
    }


def timed(
    contenders: dict[str, Callable[[], object]], rounds: int, warmup: int
) -> dict[str, float]:
    """Median milliseconds per contender, rounds interleaved."""
    for run in contenders.values():
        for _ in range(warmup):
            run()
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(samples) * 1e3 for name, samples in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", choices=("responses", "chat"), default="responses")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--sdk-paths", action="store_true", help="compare SDK paths instead")
    args = parser.parse_args()
    path = CHAT_COMPLETIONS_PATH if args.api == "chat" else RESPONSES_PATH

    with openai_server() as server:
        server.set_responder(responder(args.api), path=path)
        client = openai.OpenAI(
            base_url=server.base_url,
            api_key="bench",
            max_retries=0,
            http_client=openai.DefaultHttpxClient(verify=False),
        )
        adapter = OpenAIAdapter(MODEL, client=client, api=args.api)
        if args.sdk_paths:
            adapter.evaluate(PROMPT)
            body = server.requests[-1].body  # the second request: transcript + tool result
            medians = timed(sdk_paths(client, args.api, body), args.rounds, args.warmup)
            client.close()
            print(f"one request (the run's second), api={args.api}, {args.rounds} rounds")
            for name, ms in medians.items():
                print(f"{name:30s}{ms:8.3f} ms")
            return
        medians = timed(
            {
                "adapter.evaluate": lambda: adapter.evaluate(PROMPT).text,
                "sdk typed": lambda: typed_run(client, args.api),
                "sdk raw": lambda: raw_run(client, args.api),
            },
            args.rounds,
            args.warmup,
        )
        client.close()
        server.assert_script_consumed()

    adapter_ms = medians["adapter.evaluate"]
    print(f"one-tool agent run, api={args.api}, {args.rounds} interleaved rounds (2 requests each)")
    print(f"{'':18s}{'median ms':>10s}{'adapter overhead':>18s}")
    for name, ms in medians.items():
        overhead = "" if name == "adapter.evaluate" else f"{(adapter_ms - ms) / ms * 100:+.1f} %"
        print(f"{name:18s}{ms:10.3f}{overhead:>18s}")


if __name__ == "__main__":
    main()
