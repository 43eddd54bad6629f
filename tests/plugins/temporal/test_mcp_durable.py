"""A prompt with an MCP server's tools (affordance-mcp) cannot run durably yet: the workflow
renders the prompt itself, without I/O, and cannot ask the server for its tools. The registry
refuses it when the prompt is built — before any workflow task could fail and be retried
forever — saying which sections and what to do instead."""

from __future__ import annotations

import sys

import pytest

from affordance import MarkdownSection, PromptTemplate
from affordance.prompt import Section
from affordance_temporal import PromptRegistry, UnsupportedPromptError


class Listed(Section[None]):
    """A section whose tools are listed at render, as an MCP section's are (without a server:
    the registry must refuse it before asking for any tool)."""

    tools_listed_at_render = True

    def tools(self) -> tuple[()]:
        raise AssertionError("the registry asked the section for its tools")


def test_the_registry_refuses_a_prompt_whose_tools_are_listed_at_render() -> None:
    registry = PromptRegistry()
    task = MarkdownSection(title="Task", template="Go.", children=[Listed(title="Clock")])
    registry.add("clock.agent", lambda: PromptTemplate(ns="c", key="a", sections=[task]))
    with pytest.raises(UnsupportedPromptError) as info:
        registry.prompt("clock.agent")
    assert info.value.sections == ("task.clock",)
    assert "run it with evaluate/aevaluate" in str(info.value)
    with pytest.raises(UnsupportedPromptError):
        registry.build_all()  # a worker refuses to start with it


def test_an_mcp_section_is_refused_without_connecting() -> None:
    mcp = pytest.importorskip("affordance_mcp", reason="affordance-mcp is not installed")
    section = mcp.MCPSection.stdio(sys.executable, ["-c", "raise SystemExit(3)"], title="Clock")
    registry = PromptRegistry()
    registry.add("clock.agent", lambda: PromptTemplate(ns="c", key="a", sections=[section]))
    with pytest.raises(UnsupportedPromptError, match=r"section\(s\) clock list"):
        registry.prompt("clock.agent")
    assert section.connection.connects == 0
