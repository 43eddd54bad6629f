"""The code interpreter through each provider's real adapter and SDK over the loopback server,
with the codecs the installed plugin registers: the same sum read into the same typed result,
plain, streamed, sync and async. Chat Completions has no code interpreter: an error before any
request, naming the providers that have one."""

from __future__ import annotations

from typing import Any

import pytest
from hosted_tools import CODE_ANSWER, SUM_OUTPUT, load
from hosted_tools.runs import PROVIDER_WIRES, available, run_all_ways

from affordance import HostedToolResult, MarkdownSection, PromptEvaluationError, PromptTemplate
from affordance_code_interpreter import (
    CodeInterpreterConfig,
    CodeInterpreterResult,
    CodeInterpreterSection,
    UnsupportedCodeInterpreterConfigError,
)

SAMPLES = {
    "openai": "openai_responses_code_interpreter",
    "anthropic": "anthropic_code_execution",
    "google": "google_code_execution",
}
PROVIDERS = available(*SAMPLES)
DECLARED = {
    "openai": {"type": "code_interpreter", "container": {"type": "auto"}},
    "anthropic": {"type": "code_execution_20250825", "name": "code_execution"},
    "google": {"codeExecution": {}},
}


def prompt(config: CodeInterpreterConfig | None = None) -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="What is the sum of 1 to 100?")
    return PromptTemplate(ns="tests", key="sum", sections=[task, CodeInterpreterSection(config)])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_run_is_the_same_result_plain_streamed_sync_and_async(provider: str) -> None:
    wire = PROVIDER_WIRES[provider]
    with wire.running() as (server, adapter):
        wire.script(server, load(SAMPLES[provider]), times=2)
        runs = run_all_ways(adapter, prompt(), asynchronous=True)

    result = runs.plain.hosted_outputs["code_interpreter"]
    assert isinstance(result, CodeInterpreterResult)
    assert "print(sum(range(1, 101)))" in result.code
    assert result.output == SUM_OUTPUT
    assert [r.hosted_outputs for r in runs.all()] == [{"code_interpreter": result}] * 4
    assert runs.streamed_results == [HostedToolResult("code_interpreter", result)]
    assert server.requests[0].body["tools"] == [DECLARED[provider]]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_result_carries_the_answer_text(provider: str) -> None:
    wire = PROVIDER_WIRES[provider]
    with wire.running() as (server, adapter):
        wire.script_plain(server, load(SAMPLES[provider]))
        result = adapter.evaluate(prompt()).hosted_outputs["code_interpreter"]

    assert isinstance(result, CodeInterpreterResult)
    assert result.text.endswith(CODE_ANSWER)


def test_an_openai_container_setting_reaches_the_request() -> None:
    wire = PROVIDER_WIRES["openai"]
    with wire.running() as (server, adapter):
        wire.script_plain(server, load(SAMPLES["openai"]))
        adapter.evaluate(prompt(CodeInterpreterConfig(container_id="cntr_7")))

    assert server.requests[0].body["tools"] == [{"type": "code_interpreter", "container": "cntr_7"}]


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p != "openai"])
def test_a_container_setting_is_refused_before_any_request(provider: str) -> None:
    wire = PROVIDER_WIRES[provider]
    with (
        wire.running() as (server, adapter),
        pytest.raises(UnsupportedCodeInterpreterConfigError) as raised,
    ):
        adapter.evaluate(prompt(CodeInterpreterConfig(memory_limit="4g")))

    assert (raised.value.field, raised.value.provider) == ("memory_limit", provider)
    assert server.requests == ()


def test_chat_has_no_code_interpreter() -> None:
    wire = PROVIDER_WIRES["openai-chat"]
    with wire.running() as (server, adapter), pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt())

    message = str(raised.value)
    assert "not supported by provider 'openai-chat'" in message
    assert "providers that support it: anthropic, google, openai" in message
    assert server.requests == ()
