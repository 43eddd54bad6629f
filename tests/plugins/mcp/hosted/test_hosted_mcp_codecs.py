"""The ``mcp`` codecs on plain dicts: what each declares, what it reads from a response, the
approvals it finds and the answers it writes; both pass affordance-testing's codec contract,
the entry module its plugin contract."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hosted_mcp_samples import (
    ARGUMENTS,
    CONFIG,
    EXPECTED,
    LABEL,
    OUTPUT,
    URL,
    anthropic_body,
    anthropic_listing,
    anthropic_result,
    anthropic_use,
    openai_answer,
    openai_approval_request,
    openai_body,
    openai_call,
    openai_list_tools,
)

from affordance.tools import HostedApprovalRequest, HostedTool
from affordance_mcp.hosted import (
    ApprovalFilter,
    HostedMCPResult,
    MCPCallResult,
    MCPServerConfig,
    hosted_mcp_tool,
)
from affordance_mcp.hosted.anthropic_messages import ANTHROPIC_MCP_BETA, AnthropicMCPCodec
from affordance_mcp.hosted.openai_responses import OpenAIMCPCodec
from affordance_testing.codec_contract import CodecContract
from affordance_testing.plugin_contract import PluginContract

TOOL = hosted_mcp_tool(CONFIG)


class TestOpenAIMCPCodec(CodecContract):
    @pytest.fixture
    def codec(self) -> OpenAIMCPCodec:
        return OpenAIMCPCodec()

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[MCPServerConfig]:
        return TOOL

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return openai_body()["output"]  # type: ignore[no-any-return]


class TestAnthropicMCPCodec(CodecContract):
    @pytest.fixture
    def codec(self) -> AnthropicMCPCodec:
        return AnthropicMCPCodec()

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[MCPServerConfig]:
        return TOOL

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return anthropic_body()["content"]  # type: ignore[no-any-return]


class TestPlugin(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "affordance_mcp.plugin"


# -- OpenAI Responses -------------------------------------------------------------------------


def test_openai_declares_every_setting_it_is_given() -> None:
    config = MCPServerConfig(
        LABEL,
        URL,
        authorization="t",
        headers={"X-Team": "a"},
        allowed_tools=("search", "fetch"),
        require_approval=ApprovalFilter(always=("fetch",), never=("search",)),
        server_description="The product docs",
    )
    assert OpenAIMCPCodec().serialize(hosted_mcp_tool(config)) == {
        "type": "mcp",
        "server_label": LABEL,
        "server_url": URL,
        "authorization": "t",
        "headers": {"X-Team": "a"},
        "allowed_tools": ["search", "fetch"],
        "require_approval": {
            "always": {"tool_names": ["fetch"]},
            "never": {"tool_names": ["search"]},
        },
        "server_description": "The product docs",
    }


def test_openai_declares_only_the_server_by_default_and_asks_nothing_else() -> None:
    codec = OpenAIMCPCodec()
    assert codec.serialize(TOOL) == {"type": "mcp", "server_label": LABEL, "server_url": URL}
    assert not hasattr(codec, "request_extras")
    assert not hasattr(codec, "request_headers")


def test_openai_reads_every_call_of_its_server_in_order() -> None:
    items = [
        openai_list_tools(),
        openai_call("c1"),
        openai_call("x1", label="other"),
        openai_call("c2", name="fetch", arguments='{"id": 7}', output=None, error="timeout"),
        openai_answer(),
    ]
    result = OpenAIMCPCodec().parse_output(items, TOOL)

    assert result == HostedMCPResult(
        (
            MCPCallResult(LABEL, "search", ARGUMENTS, output=OUTPUT, call_id="c1"),
            MCPCallResult(LABEL, "fetch", {"id": 7}, error="timeout", call_id="c2"),
        ),
        EXPECTED.tools,
    )


@pytest.mark.parametrize(
    ("error", "status", "expected"),
    [
        (
            {"type": "http_error", "code": 502, "message": "Bad Gateway"},
            "failed",
            "http_error: 502 Bad Gateway",
        ),
        (
            {"type": "mcp_protocol_error", "code": -32602, "message": "bad params"},
            "failed",
            "mcp_protocol_error: -32602 bad params",
        ),
        (
            {
                "type": "mcp_tool_execution_error",
                "content": [{"type": "text", "text": "no such page"}],
            },
            "failed",
            "no such page",
        ),
        ({"type": "mcp_tool_execution_error", "content": {"code": 3}}, "failed", '{"code": 3}'),
        (None, "failed", "the call is failed"),
        (None, "incomplete", "the call is incomplete"),
        (None, "completed", None),
    ],
)
def test_openai_words_a_calls_error(error: Any, status: str, expected: str | None) -> None:
    item = openai_call(output=None, error=error, status=status)
    result = OpenAIMCPCodec().parse_output([item], TOOL)

    assert result is not None
    assert result.error == expected


def test_openai_finds_the_approvals_of_its_server_and_writes_the_answers() -> None:
    codec = OpenAIMCPCodec()
    asking = openai_approval_request()
    items = [openai_list_tools(), asking, openai_approval_request("r9", label="other")]

    (request,) = codec.approval_requests(items, TOOL)
    assert request == HostedApprovalRequest("mcpr_1", "search", ARGUMENTS, asking)
    assert codec.parse_output(items, TOOL) is None  # nothing ran yet
    assert codec.approval_answer(request, True, "", TOOL) == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": True,
    }
    assert codec.approval_answer(request, False, "too costly", TOOL)["reason"] == "too costly"


# -- Anthropic Messages -----------------------------------------------------------------------


def test_anthropic_declares_a_toolset_a_server_and_the_beta() -> None:
    codec = AnthropicMCPCodec()
    config = MCPServerConfig(LABEL, URL, authorization="t", allowed_tools=("search",))
    tool = hosted_mcp_tool(config, name="docs")

    assert codec.serialize(tool) == {
        "type": "mcp_toolset",
        "mcp_server_name": LABEL,
        "default_config": {"enabled": False},
        "configs": {"search": {"enabled": True}},
    }
    assert codec.request_extras(tool) == {
        "mcp_servers": [{"type": "url", "url": URL, "name": LABEL, "authorization_token": "t"}]
    }
    assert codec.request_headers(tool) == {"anthropic-beta": ANTHROPIC_MCP_BETA}
    assert codec.serialize(TOOL) == {"type": "mcp_toolset", "mcp_server_name": LABEL}


def test_anthropic_pairs_each_use_with_its_result_and_reads_errors() -> None:
    blocks = [
        anthropic_use("u1"),
        anthropic_use("u2", name="fetch", input={"id": 7}),
        anthropic_use("x1", label="other"),
        anthropic_result("u2", content="page not found", is_error=True),
        anthropic_result(
            "u1", content=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
        ),
        anthropic_listing(),
    ]
    result = AnthropicMCPCodec().parse_output(blocks, TOOL)

    assert result == HostedMCPResult(
        (
            MCPCallResult(LABEL, "search", ARGUMENTS, output="ab", call_id="u1"),
            MCPCallResult(LABEL, "fetch", {"id": 7}, error="page not found", call_id="u2"),
        ),
        EXPECTED.tools,
    )


def test_anthropic_a_use_without_its_result_has_neither_output_nor_error() -> None:
    result = AnthropicMCPCodec().parse_output([anthropic_use("u1")], TOOL)

    assert result == HostedMCPResult((MCPCallResult(LABEL, "search", ARGUMENTS, call_id="u1"),))


def test_anthropic_asks_for_no_approval() -> None:
    assert not hasattr(AnthropicMCPCodec(), "approval_requests")
