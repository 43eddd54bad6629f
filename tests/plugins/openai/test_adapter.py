"""``OpenAIAdapter`` construction and clients: given clients are used as they are, missing ones
are built once from the environment, and a path without its kind of client says so."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest
from loopback import RESPONSES_PATH, LoopbackServer, response_text

from affordance import PromptEvaluationError, PromptTemplate
from affordance_openai import OpenAIAdapter


def test_a_sync_client_alone_serves_evaluate_and_aevaluate_says_what_is_missing(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, response_text("Fine."))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    assert adapter.evaluate(prompt).text == "Fine."
    with pytest.raises(RuntimeError, match=r"async_client=openai\.AsyncOpenAI"):
        asyncio.run(adapter.aevaluate(prompt))


def test_an_async_client_alone_serves_aevaluate_and_evaluate_says_what_is_missing(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, response_text("Fine."))

    async def run() -> str | None:
        async with clients.async_() as client:
            adapter = OpenAIAdapter("gpt-test", client=client)
            with pytest.raises(RuntimeError, match=r"client=openai.OpenAI\(\.\.\.\)"):
                adapter.evaluate(prompt)
            return (await adapter.aevaluate(prompt)).text

    assert asyncio.run(run()) == "Fine."


def test_both_clients_serve_their_paths(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, response_text("sync"), response_text("async"))

    async def run() -> tuple[str | None, str | None]:
        async with clients.async_() as async_client:
            adapter = OpenAIAdapter("gpt-test", client=clients.sync(), async_client=async_client)
            return adapter.evaluate(prompt).text, (await adapter.aevaluate(prompt)).text

    assert asyncio.run(run()) == ("sync", "async")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"client": object()}, TypeError, "openai.OpenAI or openai.AsyncOpenAI"),
        ({"async_client": object()}, TypeError, "async_client must be"),
        ({"api": "completions"}, ValueError, "api must be"),
        ({"max_output_tokens": 0}, ValueError, "max_output_tokens"),
    ],
)
def test_bad_options_fail_at_construction(
    options: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        OpenAIAdapter("gpt-test", **options)


def test_two_async_clients_are_refused() -> None:
    first = openai.AsyncOpenAI(
        api_key="k", http_client=openai.DefaultAsyncHttpxClient(verify=False)
    )
    second = openai.AsyncOpenAI(
        api_key="k", http_client=openai.DefaultAsyncHttpxClient(verify=False)
    )

    with pytest.raises(TypeError, match="async_client is given too"):
        OpenAIAdapter("gpt-test", client=first, async_client=second)


def test_without_clients_one_of_each_kind_is_built_from_the_environment_and_reused(
    server: LoopbackServer, prompt: PromptTemplate[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.set_responder(lambda request: response_text("Fine."), path=RESPONSES_PATH)
    adapter = OpenAIAdapter("gpt-test")

    async def run_async() -> None:
        await adapter.aevaluate(prompt)
        await adapter.aevaluate(prompt)
        await adapter.aclose()

    adapter.evaluate(prompt)
    adapter.evaluate(prompt)
    asyncio.run(run_async())
    adapter.close()

    assert [r.headers["authorization"] for r in server.requests] == ["Bearer from-env"] * 4
    # one connection per client, reused by its second request
    assert len({r.connection_id for r in server.requests}) == 2


def test_a_missing_api_key_is_an_evaluation_error(
    prompt: PromptTemplate[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    adapter = OpenAIAdapter("gpt-test")

    with pytest.raises(PromptEvaluationError, match="OPENAI_API_KEY") as raised:
        adapter.evaluate(prompt)

    assert raised.value.provider == "openai"


def test_the_adapter_is_a_provider_named_openai() -> None:
    adapter = OpenAIAdapter("gpt-test", max_turns=3)

    assert (adapter.name, adapter.model, adapter.api, adapter.max_turns) == (
        "openai",
        "gpt-test",
        "responses",
        3,
    )
