"""Golden request bodies: the exact bytes each provider's real SDK sends to the loopback server,
for every provider API, plain and streamed, sync and async.

One run per API covers what shapes a body: instructions and user text, function tools with
varied schemas (a nested dataclass, an optional field, an enum, a list), a tool round whose
results go back (one call succeeded, one failed), a structured output type, the web-search
hosted tool, the loop's tool choice and parallel-call options, and the adapter's settings
(temperature, max tokens, ``extra_body``). Each request's raw body is compared byte for byte
(key order included) with ``tests/plugins/golden/<api>/<way>-<request>.json``; the async runs
must send the sync bytes.

Regenerate the files, after a change that is meant to change a body, with
``AFFORDANCE_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/plugins/test_golden_bodies.py``
(never automatic: without the variable a missing or different file fails, with a diff).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from golden_files import GOLDEN, REGENERATE, check_golden
from hosted_tools.runs import PROVIDER_WIRES, Wire, available
from loopback import (
    JsonReply,
    LoopbackServer,
    chat_text,
    chat_tool_calls,
    google_function_calls,
    google_text,
    message_text,
    message_tool_uses,
    response_function_calls,
    response_text,
)

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.adapters import ProviderAdapter, UserMessage
from affordance_web_search import WebSearchSection

# -- the prompt ----------------------------------------------------------------------------------


class Unit(Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


@dataclass(frozen=True)
class Place:
    city: str
    country: str | None = None


@dataclass(frozen=True)
class ForecastParams:
    place: Place
    days: int
    unit: Unit = Unit.CELSIUS
    hours: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class AlertParams:
    regions: list[str]
    severe_only: bool = False


@dataclass(frozen=True)
class Report:
    summary: str
    highs: list[float]
    unit: Unit


def _forecast(params: ForecastParams) -> ToolResult[str]:
    where = f"{params.place.city} ({params.place.country or '?'})"
    return ToolResult(message=f"{where}: {params.days} days, 21 {params.unit.value}", value=None)


def _alerts(params: AlertParams) -> ToolResult[str]:
    raise RuntimeError(f"alert service down for {', '.join(params.regions)}")


def golden_prompt() -> PromptTemplate[Report]:
    tools = [
        Tool[ForecastParams, str](
            name="forecast", description="The forecast for a place.", handler=_forecast
        ),
        Tool[AlertParams, str](
            name="alerts", description="Weather alerts for regions.", handler=_alerts
        ),
    ]
    task = MarkdownSection(
        title="Task", template="Report the weather, with sources where you searched.", tools=tools
    )
    return PromptTemplate(
        ns="tests", key="golden", sections=[task, WebSearchSection()], output_type=Report
    )


USER_TEXT = "Wie wird das Wetter in Zürich? Answer in English."
FORECAST_ARGS = {"place": {"city": "Zürich", "country": "CH"}, "days": 3, "unit": "c", "hours": [9]}
ALERT_ARGS = {"regions": ["ZH", "GR"], "severe_only": True}
FINAL = json.dumps({"summary": "Mild, some rain.", "highs": [14.5, 12.0], "unit": "c"})


# -- each API ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Api:
    """One provider API: its loopback wire, the adapter's settings and the two answers."""

    wire: str
    options: dict[str, Any]
    answers: Callable[[], tuple[Any, Any]]


def _responses_answers() -> tuple[Any, Any]:
    calls = [("call_f", "forecast", FORECAST_ARGS), ("call_a", "alerts", ALERT_ARGS)]
    return response_function_calls(calls).body, response_text(FINAL).body


def _chat_answers() -> tuple[Any, Any]:
    calls = [("call_f", "forecast", FORECAST_ARGS), ("call_a", "alerts", ALERT_ARGS)]
    return chat_tool_calls(calls).body, chat_text(FINAL).body


def _messages_answers() -> tuple[Any, Any]:
    calls = [("toolu_f", "forecast", FORECAST_ARGS), ("toolu_a", "alerts", ALERT_ARGS)]
    return message_tool_uses(calls, text="Checking.").body, message_text(FINAL).body


def _gemini_answers() -> tuple[Any, Any]:
    calls = [("forecast", FORECAST_ARGS, "fc_1"), ("alerts", ALERT_ARGS)]
    return google_function_calls(calls, thought_signature=b"sig"), google_text(FINAL)


LOOP_OPTIONS = {"tool_choice": "forecast", "parallel_tool_calls": False}
"""A named choice (sent on the first turn, ``auto`` after it) and no parallel calls."""

OPENAI_EXTRA = {"text": {"verbosity": "low"}, "store": False, "metadata": {"run": "golden"}}

APIS = {
    "openai-responses": Api(
        "openai",
        {"max_output_tokens": 512, "temperature": 0.25, "extra_body": OPENAI_EXTRA},
        _responses_answers,
    ),
    "openai-chat": Api(
        "openai-chat",
        {"max_output_tokens": 512, "temperature": 0.25, "extra_body": {"seed": 7}},
        _chat_answers,
    ),
    "anthropic-messages": Api(
        "anthropic",
        {
            "max_tokens": 1024,
            "temperature": 0.5,
            "extra_body": {"stop_sequences": ["END"], "metadata": {"user_id": "golden"}},
        },
        _messages_answers,
    ),
    "google-gemini": Api(
        "google",
        {
            "max_output_tokens": 256,
            "temperature": 0.0,
            "extra_body": {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}},
        },
        _gemini_answers,
    ),
}
INSTALLED = [name for name, api in APIS.items() if available(api.wire)]


# -- running -------------------------------------------------------------------------------------


def _script(
    server: LoopbackServer, wire: Wire, answers: tuple[Any, Any], *, streamed: bool
) -> None:
    for body in answers:
        if streamed:
            server.script(wire.stream_path or wire.path, wire.stream(body))
        else:
            server.script(wire.path, JsonReply(body))


def _run(adapter: ProviderAdapter, *, streamed: bool, asynchronous: bool) -> Any:
    prompt, messages = golden_prompt(), [UserMessage(USER_TEXT)]
    if not asynchronous:
        if not streamed:
            return adapter.evaluate(prompt, messages=messages)
        with adapter.stream(prompt, messages=messages) as events:
            for _ in events:
                pass
        return events.response

    async def run() -> Any:
        try:
            if not streamed:
                return await adapter.aevaluate(prompt, messages=messages)
            async with adapter.astream(prompt, messages=messages) as events:
                async for _ in events:
                    pass
            return events.response
        finally:
            await adapter.aclose()  # its client belongs to this loop

    return asyncio.run(run())


def sent_bodies(name: str, *, streamed: bool, asynchronous: bool) -> list[bytes]:
    """The raw request bodies one run of ``name``'s API sends, in order."""
    api = APIS[name]
    wire = PROVIDER_WIRES[api.wire]
    with wire.running(**LOOP_OPTIONS, **api.options) as (server, adapter):
        _script(server, wire, api.answers(), streamed=streamed)
        response = _run(adapter, streamed=streamed, asynchronous=asynchronous)
        server.assert_script_consumed()
        bodies = [request.raw_body for request in server.requests]
    assert response.output == Report("Mild, some rain.", [14.5, 12.0], Unit.CELSIUS)
    return bodies


# -- comparing -----------------------------------------------------------------------------------


# -- the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("name", INSTALLED)
def test_each_request_body_is_byte_identical_to_its_golden_file(name: str, streamed: bool) -> None:
    bodies = sent_bodies(name, streamed=streamed, asynchronous=False)

    assert len(bodies) == 2  # the tool round, then the answer
    way = "streamed" if streamed else "plain"
    for number, body in enumerate(bodies, start=1):
        check_golden(GOLDEN / name / f"{way}-{number}.json", body)


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("name", INSTALLED)
def test_the_async_driver_sends_the_sync_bytes(name: str, streamed: bool) -> None:
    synchronous = sent_bodies(name, streamed=streamed, asynchronous=False)

    asynchronous = sent_bodies(name, streamed=streamed, asynchronous=True)

    assert asynchronous == synchronous


def test_a_changed_body_fails_with_a_readable_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(REGENERATE, raising=False)
    golden = tmp_path / "body.json"
    golden.write_bytes(b'{"model": "m", "temperature": 0.25}')

    with pytest.raises(pytest.fail.Exception) as failed:
        check_golden(golden, b'{"model": "m", "temperature": 0.5}')

    assert '-  "temperature": 0.25' in str(failed.value)
    assert '+  "temperature": 0.5' in str(failed.value)


def test_bytes_that_spell_the_same_json_differently_still_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(REGENERATE, raising=False)
    golden = tmp_path / "body.json"
    golden.write_bytes(b'{"a": 1, "b": 2}')

    with pytest.raises(pytest.fail.Exception) as failed:
        check_golden(golden, b'{"a":1,"b":2}')

    assert "the same JSON, other bytes from offset 5" in str(failed.value)
