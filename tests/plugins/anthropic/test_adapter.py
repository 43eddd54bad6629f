"""``AnthropicAdapter`` construction and clients: given clients are used as they are, missing ones
are built once from the environment, and a path without its kind of client says so."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest
from loopback import MESSAGES_PATH, message_text

from affordance import PromptEvaluationError, PromptTemplate
from affordance_anthropic import DEFAULT_MAX_TOKENS, AnthropicAdapter


def test_a_sync_client_alone_serves_evaluate_and_aevaluate_says_what_is_missing(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    loopback.server.script(MESSAGES_PATH, message_text("Fine."))
    adapter = AnthropicAdapter("claude-test", client=loopback.sync())

    assert adapter.evaluate(prompt).text == "Fine."
    with pytest.raises(RuntimeError, match=r"async_client=anthropic\.AsyncAnthropic"):
        asyncio.run(adapter.aevaluate(prompt))


def test_an_async_client_alone_serves_aevaluate_and_evaluate_says_what_is_missing(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    loopback.server.script(MESSAGES_PATH, message_text("Fine."))

    async def run() -> str | None:
        async with loopback.async_() as client:
            adapter = AnthropicAdapter("claude-test", client=client)
            with pytest.raises(RuntimeError, match=r"client=anthropic.Anthropic\(\.\.\.\)"):
                adapter.evaluate(prompt)
            return (await adapter.aevaluate(prompt)).text

    assert asyncio.run(run()) == "Fine."


def test_both_clients_serve_their_paths(loopback: Any, prompt: PromptTemplate[Any]) -> None:
    loopback.server.script(MESSAGES_PATH, message_text("sync"), message_text("async"))

    async def run() -> tuple[str | None, str | None]:
        async with loopback.async_() as async_client:
            adapter = AnthropicAdapter(
                "claude-test", client=loopback.sync(), async_client=async_client
            )
            return adapter.evaluate(prompt).text, (await adapter.aevaluate(prompt)).text

    assert asyncio.run(run()) == ("sync", "async")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"client": object()}, TypeError, "anthropic.Anthropic or anthropic.AsyncAnthropic"),
        ({"async_client": object()}, TypeError, "async_client must be"),
        ({"max_tokens": 0}, ValueError, "max_tokens"),
        ({"max_tokens": True}, ValueError, "max_tokens"),
    ],
)
def test_bad_options_fail_at_construction(
    options: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        AnthropicAdapter("claude-test", **options)


def test_a_model_is_required() -> None:
    with pytest.raises(ValueError, match="model"):
        AnthropicAdapter("")


def test_without_clients_one_of_each_kind_is_built_from_the_environment_and_reused(
    loopback: Any, prompt: PromptTemplate[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.server.base_url)
    loopback.server.set_responder(lambda request: message_text("Fine."), path=MESSAGES_PATH)
    adapter = AnthropicAdapter("claude-test")

    async def run_async() -> None:
        await adapter.aevaluate(prompt)
        await adapter.aevaluate(prompt)
        await adapter.aclose()

    adapter.evaluate(prompt)
    adapter.evaluate(prompt)
    asyncio.run(run_async())
    adapter.close()

    requests = loopback.server.requests
    assert {r.headers.get("x-api-key") or r.headers.get("authorization") for r in requests} <= {
        "from-env",
        "Bearer from-env",
    }
    assert all(r.headers["anthropic-version"] for r in requests)
    # one connection per client, reused by its second request
    assert len({r.connection_id for r in requests}) == 2


def test_a_missing_api_key_is_an_evaluation_error(
    prompt: PromptTemplate[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # never reached
    adapter = AnthropicAdapter("claude-test")

    with pytest.raises(PromptEvaluationError, match="ANTHROPIC_API_KEY") as raised:
        adapter.evaluate(prompt)

    assert raised.value.provider == "anthropic"


def test_the_adapter_is_a_provider_named_anthropic_with_a_default_max_tokens() -> None:
    adapter = AnthropicAdapter("claude-test", max_turns=3)

    assert (adapter.name, adapter.model, adapter.max_tokens, adapter.max_turns) == (
        "anthropic",
        "claude-test",
        DEFAULT_MAX_TOKENS,
        3,
    )
    assert DEFAULT_MAX_TOKENS == 8192


def test_the_sdk_classes_are_the_ones_the_adapter_pairs() -> None:
    adapter = AnthropicAdapter(
        "claude-test",
        client=anthropic.Anthropic(
            api_key="k", http_client=anthropic.DefaultHttpxClient(verify=False)
        ),
    )

    with pytest.raises(RuntimeError, match="aevaluate needs an async client"):
        adapter.connection.clients.async_client()
