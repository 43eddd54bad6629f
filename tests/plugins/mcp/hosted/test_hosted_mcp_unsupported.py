"""Chat Completions and Gemini cannot host MCP: an ``mcp`` tool there fails while the request
is built — nothing is sent — naming the kind and the providers that can; and a setting a
provider cannot honour fails the same way, naming the setting."""

from __future__ import annotations

from typing import Any

import pytest
from hosted_mcp_samples import LABEL, URL, prompt
from hosted_tools.runs import PROVIDER_WIRES, available

from affordance import PromptEvaluationError, UnsupportedHostedConfigError
from affordance_mcp.hosted import ApprovalFilter, MCPServerConfig, UnsupportedMCPConfigError


def streamed(adapter: Any) -> None:
    with adapter.stream(prompt()) as events:
        for _ in events:
            pass


@pytest.mark.parametrize("provider", available("openai-chat", "google"))
def test_a_provider_that_cannot_host_mcp_fails_before_any_request(provider: str) -> None:
    with PROVIDER_WIRES[provider].running() as (server, adapter):
        with pytest.raises(PromptEvaluationError) as raised:
            adapter.evaluate(prompt())
        with pytest.raises(PromptEvaluationError, match="'mcp' is not supported"):
            streamed(adapter)

    assert server.requests == ()
    error = raised.value
    assert error.phase == "render"
    assert f"hosted tool kind 'mcp' is not supported by provider {provider!r}" in str(error)
    assert "providers that support it: anthropic, openai" in str(error)


REFUSED = [
    ("headers", MCPServerConfig(LABEL, URL, headers={"X-Team": "a"})),
    ("server_description", MCPServerConfig(LABEL, URL, server_description="Docs")),
    ("require_approval", MCPServerConfig(LABEL, URL, require_approval="always")),
    (
        "require_approval",
        MCPServerConfig(LABEL, URL, require_approval=ApprovalFilter(always=("search",))),
    ),
    ("server_url", MCPServerConfig(LABEL, "http://mcp.example.com/docs")),
]


@pytest.mark.parametrize(("field", "config"), REFUSED, ids=[f for f, _ in REFUSED])
def test_anthropic_refuses_what_its_connector_cannot_do(
    field: str, config: MCPServerConfig
) -> None:
    with (
        PROVIDER_WIRES["anthropic"].running() as (server, adapter),
        pytest.raises(UnsupportedMCPConfigError) as raised,
    ):
        adapter.evaluate(prompt(config))

    assert server.requests == ()
    assert isinstance(raised.value, UnsupportedHostedConfigError)
    assert (raised.value.field, raised.value.provider, raised.value.tool_name) == (
        field,
        "anthropic",
        "mcp",
    )


def test_anthropic_accepts_never_which_is_what_it_does() -> None:
    from hosted_mcp_samples import anthropic_body

    config = MCPServerConfig(LABEL, URL, require_approval="never")
    with PROVIDER_WIRES["anthropic"].running() as (server, adapter):
        PROVIDER_WIRES["anthropic"].script_plain(server, anthropic_body())
        response = adapter.evaluate(prompt(config))

    assert "mcp" in response.hosted_outputs
