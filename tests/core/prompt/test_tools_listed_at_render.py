"""Sections whose tools are known only when they render (an MCP server's): the prompt does not
ask for them when it is built, and checks their names at each render instead."""

from __future__ import annotations

import pytest
from named_tools import Noop, make_tool

from affordance import MarkdownSection, PromptTemplate
from affordance.errors import PromptRenderError
from affordance.prompt import Section
from affordance.tools import Tool


class Listed(Section[None]):
    tools_listed_at_render = True

    def __init__(self, *names: str) -> None:
        super().__init__(title="Listed")
        self.names = list(names)
        self.asked = 0

    def tools(self) -> tuple[Tool[Noop, str], ...]:
        self.asked += 1
        return tuple(make_tool(name) for name in self.names)


def test_building_the_prompt_does_not_ask_for_the_tools() -> None:
    listed = Listed("a")
    PromptTemplate(ns="t", key="t", sections=[listed])
    assert listed.asked == 0


def test_each_render_lists_them_anew() -> None:
    listed = Listed("a")
    prompt = PromptTemplate(ns="t", key="t", sections=[listed])
    assert [tool.name for tool in prompt.render().tools] == ["a"]
    listed.names.append("b")
    assert [tool.name for tool in prompt.render().tools] == ["a", "b"]


def test_a_name_another_section_declares_fails_the_render() -> None:
    listed = Listed("a")
    local = MarkdownSection(title="Local", template="x", tools=[make_tool("a")])
    prompt = PromptTemplate(ns="t", key="t", sections=[local, listed])
    with pytest.raises(PromptRenderError, match="duplicate tool name 'a'"):
        prompt.render()


def test_the_builtin_name_is_refused_at_render() -> None:
    prompt = PromptTemplate(ns="t", key="t", sections=[Listed("open_sections")])
    with pytest.raises(PromptRenderError, match="reserved for the builtin tool"):
        prompt.render()
