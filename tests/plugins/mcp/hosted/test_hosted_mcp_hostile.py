"""The ``mcp`` codecs on hostile responses — missing fields, wrong types, text that is no JSON,
huge values — read what they can, skip the rest with a metadata-only warning on
``affordance.hosted`` and never raise; through the real adapters a hostile reply still ends
in an answer."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from hosted_mcp_samples import (
    ANSWER,
    ARGUMENTS,
    CONFIG,
    LABEL,
    OUTPUT,
    anthropic_body,
    anthropic_result,
    anthropic_use,
    openai_answer,
    openai_approval_request,
    openai_body,
    openai_call,
    openai_list_tools,
    prompt,
)
from hosted_tools.runs import PROVIDER_WIRES

from affordance_mcp.hosted import HostedMCPResult, MCPCallResult, hosted_mcp_tool
from affordance_mcp.hosted.anthropic_messages import AnthropicMCPCodec
from affordance_mcp.hosted.openai_responses import OpenAIMCPCodec

TOOL = hosted_mcp_tool(CONFIG)
LEAK = "leak-secret-value"
"""What a malformed item carries: it may reach no log record."""
CODECS: dict[str, Any] = {"openai": OpenAIMCPCodec(), "anthropic": AnthropicMCPCodec()}


def skipped(caplog: pytest.LogCaptureFixture, provider: str) -> list[tuple[str, str]]:
    """``(position, problem)`` of each skipped item, each record checked to hold metadata."""
    found = []
    for record in caplog.records:
        if record.name != "affordance.hosted":
            continue
        assert LEAK not in record.getMessage() + repr(vars(record))
        fields = vars(record)
        assert (fields["affordance_kind"], fields["affordance_provider"]) == ("mcp", provider)
        found.append((fields["affordance_item"], fields["affordance_problem"]))
    return found


def read(provider: str, items: Any, caplog: pytest.LogCaptureFixture) -> HostedMCPResult | None:
    with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
        result = CODECS[provider].parse_output(items, TOOL)
    assert result is None or isinstance(result, HostedMCPResult)
    return result


@pytest.mark.parametrize("provider", sorted(CODECS))
@pytest.mark.parametrize("items", ["output", 7, {"type": "mcp_call"}, None])
def test_items_that_are_no_list_read_as_nothing(
    provider: str, items: Any, caplog: pytest.LogCaptureFixture
) -> None:
    assert read(provider, items, caplog) is None


def test_openai_an_unreadable_call_is_skipped_and_the_others_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    items = [
        "mcp_call",
        openai_call("bad", name=None),  # type: ignore[arg-type]
        openai_call("c1", arguments="{not json " + LEAK, output=17),
        openai_call("c2", arguments="[1, 2]", error=["nested", LEAK]),
        openai_call("c3", arguments=5),
    ]
    result = read("openai", items, caplog)

    assert result == HostedMCPResult(
        (
            MCPCallResult(LABEL, "search", {"value": "{not json " + LEAK}, call_id="c1"),
            MCPCallResult(LABEL, "search", {"value": [1, 2]}, output=OUTPUT, call_id="c2"),
            MCPCallResult(LABEL, "search", {"value": 5}, output=OUTPUT, call_id="c3"),
        )
    )
    assert skipped(caplog, "openai") == [
        ("output[0]", "not an object"),
        ("output[1]", "no name"),
        ("output[2].arguments", "not JSON"),
        ("output[2].output", "not a string"),
        ("output[3].arguments", "not a JSON object"),
        ("output[3].error", "not an object or a string"),
        ("output[4].arguments", "not an object or a JSON string"),
    ]


def test_openai_a_broken_listing_keeps_the_tools_it_can_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    listing = openai_list_tools()
    listing["tools"] = [{"description": LEAK}, "search", *listing["tools"]]
    result = read("openai", [listing, openai_call()], caplog)

    assert result is not None
    assert [tool.name for tool in result.tools] == ["search"]
    assert skipped(caplog, "openai") == [
        ("output[0].tools[0]", "no name"),
        ("output[0].tools[1]", "not an object"),
    ]


def test_openai_arguments_nested_past_the_parsers_depth_are_kept_as_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    result = read("openai", [openai_call(arguments=deep)], caplog)

    assert result is not None
    assert result.calls[0].arguments == {"value": deep}


def test_a_huge_output_is_read_whole_in_linear_time(caplog: pytest.LogCaptureFixture) -> None:
    huge = "x" * 20_000_000
    blocks = [anthropic_use(), anthropic_result(content=[{"type": "text", "text": huge}] * 2)]
    started = time.perf_counter()
    openai = read("openai", [openai_call(output=huge)], caplog)
    anthropic = read("anthropic", blocks, caplog)
    elapsed = time.perf_counter() - started

    assert openai is not None
    assert openai.output == huge
    assert anthropic is not None
    assert anthropic.output == huge * 2
    assert elapsed < 5


def test_openai_an_approval_without_an_id_is_skipped_one_without_json_still_shown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    nameless = openai_approval_request("r1")
    del nameless["name"]
    idless = openai_approval_request("r2")
    idless["id"] = 12
    with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
        found = OpenAIMCPCodec().approval_requests(
            [nameless, idless, openai_approval_request("r3", arguments="not json")], TOOL
        )

    assert [(r.call_id, dict(r.arguments)) for r in found] == [("r3", {"value": "not json"})]
    assert skipped(caplog, "openai") == [
        ("output[0]", "no name"),
        ("output[1]", "no id"),
        ("output[2].arguments", "not JSON"),
    ]


def test_anthropic_malformed_blocks_cost_only_themselves(
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocks = [
        anthropic_use("u1", input=[LEAK]),
        anthropic_use("u2", name=7),  # type: ignore[arg-type]
        anthropic_use("u3"),
        anthropic_result("u1", content=17),
        anthropic_result(
            "u3", content=[{"type": "image", "source": {}}, {"type": "text", "text": 5}]
        ),
        {"type": "mcp_tool_result", "tool_use_id": ["u3"], "content": LEAK},
        {"type": "mcp_tool_listing", "mcp_server_name": LABEL, "tools": LEAK},
    ]
    result = read("anthropic", blocks, caplog)

    assert result == HostedMCPResult(
        (
            MCPCallResult(LABEL, "search", {"value": [LEAK]}, call_id="u1"),
            MCPCallResult(LABEL, "search", ARGUMENTS, call_id="u3"),
        )
    )
    assert skipped(caplog, "anthropic") == [
        ("content[0].input", "not an object or a JSON string"),
        ("content[3].content", "not a list"),
        ("content[1]", "no name"),
        ("content[4].content[1].text", "not a string"),
        ("content[6].tools", "not a list"),
    ]


def test_anthropic_an_error_flag_that_is_no_bool_is_not_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    result = read("anthropic", [anthropic_use(), anthropic_result(is_error="yes")], caplog)

    assert result is not None
    assert result.error is None
    assert result.output is not None


def test_through_openai_a_hostile_reply_still_ends_in_the_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hostile = openai_body(
        {"type": "mcp_call", "server_label": LABEL, "arguments": LEAK},
        openai_approval_request("r1") | {"id": None},
        openai_answer(),
    )
    with PROVIDER_WIRES["openai"].running() as (server, adapter):
        PROVIDER_WIRES["openai"].script_plain(server, hostile)
        with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
            response = adapter.evaluate(prompt())

    assert response.text == ANSWER
    assert response.hosted_outputs == {}
    assert response.pending_confirmations == ()
    assert ("output[0]", "no name") in skipped(caplog, "openai")


def test_through_anthropic_a_hostile_reply_still_ends_in_the_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hostile = anthropic_body(
        {"type": "mcp_tool_use", "id": "u1", "server_name": LABEL, "input": {}},
        {"type": "mcp_tool_result", "tool_use_id": 5, "content": None},
        {"type": "text", "text": ANSWER},
    )
    with PROVIDER_WIRES["anthropic"].running() as (server, adapter):
        PROVIDER_WIRES["anthropic"].script_plain(server, hostile)
        with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
            response = adapter.evaluate(prompt())

    assert response.text == ANSWER
    assert response.hosted_outputs == {}
