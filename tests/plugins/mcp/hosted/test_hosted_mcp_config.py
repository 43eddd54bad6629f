"""``MCPServerConfig`` and ``ApprovalFilter`` check themselves when built, naming the field,
keep secrets out of their ``repr``, and say which settings they ask for; the result types
hold what a codec read."""

from __future__ import annotations

import pytest
from hosted_mcp_samples import CONFIG, LABEL, URL

from affordance import PromptValidationError
from affordance_mcp.hosted import (
    ApprovalFilter,
    HostedMCPResult,
    MCPCallResult,
    MCPServerConfig,
)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"server_label": ""}, "server_label must be a letter"),
        ({"server_label": "1docs"}, "server_label must be a letter"),
        ({"server_label": "docs server"}, "server_label must be a letter"),
        ({"server_url": "mcp.example.com"}, "server_url must be an https:// URL"),
        ({"server_url": "ftp://mcp.example.com"}, "server_url must be an https:// URL"),
        ({"server_url": "https://"}, "server_url must be an https:// URL"),
        ({"authorization": " "}, "authorization must be a non-empty string"),
        ({"headers": [("X", "y")]}, "headers must map header names to values"),
        ({"headers": {"Bad Name": "y"}}, "'Bad Name' is no header name"),
        ({"headers": {"X-Ok": "a\r\nInjected: 1"}}, "must be a one-line string"),
        ({"allowed_tools": "search"}, "not one string"),
        ({"allowed_tools": ()}, "allowed_tools is empty"),
        ({"allowed_tools": ("a", "a")}, "names a tool twice"),
        ({"require_approval": "sometimes"}, "require_approval must be 'always', 'never'"),
        ({"server_description": ""}, "server_description must be a non-empty string"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(changes: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"server_label": LABEL, "server_url": URL, **changes}
    with pytest.raises(PromptValidationError, match=message):
        MCPServerConfig(**settings)  # type: ignore[arg-type]


def test_an_approval_filter_needs_names_and_no_name_in_both_lists() -> None:
    with pytest.raises(PromptValidationError, match="needs tool names"):
        ApprovalFilter()
    with pytest.raises(PromptValidationError, match="lists search in both"):
        ApprovalFilter(always=("search",), never=("search", "fetch"))
    assert ApprovalFilter(never=["fetch"]).never == ("fetch",)  # type: ignore[arg-type]


def test_secrets_stay_out_of_the_repr_and_the_config_is_hashable() -> None:
    config = MCPServerConfig(
        LABEL, URL, authorization="sk-secret", headers={"X-Key": "hidden-value"}
    )

    assert "sk-secret" not in repr(config)
    assert "hidden-value" not in repr(config)
    assert hash(config) == hash(MCPServerConfig(LABEL, URL, authorization="sk-secret"))
    with pytest.raises(TypeError):
        config.headers["X-Key"] = "changed"  # type: ignore[index]


def test_requested_lists_only_what_the_config_sets() -> None:
    assert CONFIG.requested() == ("server_label", "server_url")
    full = MCPServerConfig(
        LABEL,
        URL,
        authorization="t",
        headers={"X": "y"},
        allowed_tools=("search",),
        require_approval="never",
        server_description="Docs",
    )
    assert full.requested() == (
        "server_label",
        "server_url",
        "authorization",
        "headers",
        "allowed_tools",
        "require_approval",
        "server_description",
    )


def test_a_result_has_at_least_one_call_and_its_shortcuts_are_the_last_calls() -> None:
    with pytest.raises(PromptValidationError, match="at least one call"):
        HostedMCPResult(())
    result = HostedMCPResult(
        (
            MCPCallResult(LABEL, "search", {"q": "a"}, output="found"),
            MCPCallResult(LABEL, "fetch", {}, error="http_error: 502 Bad Gateway"),
        )
    )
    assert (result.tool, result.output, result.error) == (
        "fetch",
        None,
        "http_error: 502 Bad Gateway",
    )
    assert [call.ok for call in result.calls] == [True, False]
