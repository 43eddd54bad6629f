"""Provider-hosted MCP through each provider's real adapter and SDK over the loopback server,
with the codecs the installed plugin registers: the same scene read on OpenAI Responses and
Anthropic gives the same ``HostedMCPResult``, equal plain, streamed, sync and async; the
request declares the server as each API wants it (Anthropic: ``mcp_servers`` and the beta
header)."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from hosted_mcp_samples import (
    ANSWER,
    CONFIG,
    EXPECTED,
    LABEL,
    URL,
    anthropic_body,
    anthropic_stream,
    openai_body,
    openai_stream,
    prompt,
)
from hosted_tools.runs import PROVIDER_WIRES, available, run_all_ways
from loopback import JsonReply

from affordance import HostedToolResult
from affordance_mcp.hosted import HostedMCPResult, MCPServerConfig

PROVIDERS = available("openai", "anthropic")
BODIES = {"openai": openai_body, "anthropic": anthropic_body}
STREAMS = {"openai": openai_stream, "anthropic": anthropic_stream}


def script(server: Any, provider: str, body: dict[str, Any], *, times: int = 1) -> None:
    """``body`` plain then streamed, ``times`` over (one reply per way)."""
    path = PROVIDER_WIRES[provider].path
    for _ in range(times):
        server.script(path, JsonReply(body), STREAMS[provider](body))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_result_is_the_same_plain_streamed_sync_and_async(provider: str) -> None:
    with PROVIDER_WIRES[provider].running() as (server, adapter):
        script(server, provider, BODIES[provider](), times=2)
        runs = run_all_ways(adapter, prompt(), asynchronous=True)
        server.assert_script_consumed()

    result = runs.plain.hosted_outputs["mcp"]
    assert result == EXPECTED
    assert runs.plain.text == ANSWER
    assert [response.hosted_outputs for response in runs.all()] == [{"mcp": EXPECTED}] * 4
    assert runs.streamed_results == [HostedToolResult("mcp", EXPECTED)]


def test_openai_declares_the_server_as_an_mcp_tool() -> None:
    config = MCPServerConfig(
        server_label=LABEL,
        server_url=URL,
        authorization="token-1",
        allowed_tools=("search",),
        require_approval="never",
        server_description="The product docs",
    )
    with PROVIDER_WIRES["openai"].running() as (server, adapter):
        PROVIDER_WIRES["openai"].script_plain(server, openai_body())
        adapter.evaluate(prompt(config))

    (request,) = server.requests
    assert request.body["tools"] == [
        {
            "type": "mcp",
            "server_label": LABEL,
            "server_url": URL,
            "authorization": "token-1",
            "allowed_tools": ["search"],
            "require_approval": "never",
            "server_description": "The product docs",
        }
    ]
    assert "anthropic-beta" not in request.headers


def test_anthropic_declares_a_toolset_the_server_and_the_beta() -> None:
    config = MCPServerConfig(
        server_label=LABEL, server_url=URL, authorization="token-1", allowed_tools=("search",)
    )
    with PROVIDER_WIRES["anthropic"].running() as (server, adapter):
        script(server, "anthropic", anthropic_body())
        adapter.evaluate(prompt(config))
        with adapter.stream(prompt(config)) as events:
            for _ in events:
                pass

    for request in server.requests:  # plain and streamed alike
        assert request.body["tools"] == [
            {
                "type": "mcp_toolset",
                "mcp_server_name": LABEL,
                "default_config": {"enabled": False},
                "configs": {"search": {"enabled": True}},
            }
        ]
        assert request.body["mcp_servers"] == [
            {"type": "url", "url": URL, "name": LABEL, "authorization_token": "token-1"}
        ]
        assert request.headers["anthropic-beta"] == "mcp-client-2025-11-20"


def test_the_beta_is_added_to_the_clients_own_betas() -> None:
    wire = PROVIDER_WIRES["anthropic"]
    with wire.server() as server:
        client = anthropic.Anthropic(
            base_url=server.base_url,
            api_key="test",
            max_retries=0,
            default_headers={"anthropic-beta": "context-1m-2025-08-07"},
        )
        from affordance_anthropic import AnthropicAdapter

        with AnthropicAdapter("claude-test", client=client, close_clients=True) as adapter:
            wire.script_plain(server, anthropic_body())
            adapter.evaluate(prompt())

    (request,) = server.requests
    assert request.headers["anthropic-beta"] == "context-1m-2025-08-07, mcp-client-2025-11-20"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_two_servers_each_get_their_own_calls(provider: str) -> None:
    other = MCPServerConfig(server_label="tickets", server_url="https://mcp.example.com/t")
    from affordance import MarkdownSection, PromptTemplate
    from affordance_mcp.hosted import HostedMCPSection

    two = PromptTemplate(
        ns="tests",
        key="two",
        sections=[
            MarkdownSection(title="Task", template="Refunds?"),
            HostedMCPSection(CONFIG, key="docs", name="docs"),
            HostedMCPSection(other, key="tickets", name="tickets"),
        ],
    )
    with PROVIDER_WIRES[provider].running() as (server, adapter):
        PROVIDER_WIRES[provider].script_plain(server, BODIES[provider]())
        response = adapter.evaluate(two)

    assert response.hosted_outputs == {"docs": EXPECTED}  # the tickets server made no call
    (request,) = server.requests
    if provider == "anthropic":
        names = [entry["name"] for entry in request.body["mcp_servers"]]
        assert names == ["docs", "tickets"]
        assert request.headers["anthropic-beta"] == "mcp-client-2025-11-20"  # once
    else:
        assert [tool["server_label"] for tool in request.body["tools"]] == ["docs", "tickets"]


def test_the_answer_is_read_after_a_paused_anthropic_turn() -> None:
    from hosted_mcp_samples import anthropic_listing, anthropic_result, anthropic_use
    from loopback import message, text_block

    paused = message([anthropic_listing(), anthropic_use()], stop_reason="pause_turn")
    done = message([anthropic_result(), text_block(ANSWER)])
    with PROVIDER_WIRES["anthropic"].running() as (server, adapter):
        PROVIDER_WIRES["anthropic"].script_plain(server, dict(paused.body), dict(done.body))
        response = adapter.evaluate(prompt())

    result = response.hosted_outputs["mcp"]
    assert isinstance(result, HostedMCPResult)
    assert result == EXPECTED
    assert len(server.requests) == 2
    resent = server.requests[1].body["messages"][-1]  # the paused turn, resent unchanged
    assert [block["type"] for block in resent["content"]] == ["mcp_tool_listing", "mcp_tool_use"]
