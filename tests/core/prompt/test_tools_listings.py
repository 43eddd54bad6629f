"""Rendering a section that lists its tools at render from a listing taken ahead
(``Section.tools_listing`` / ``Section.listed``, ``PromptTemplate.tools_listings`` /
``with_listings``): what a durable run's workflow renders, without I/O."""

from __future__ import annotations

import json
from typing import Any

import pytest
from named_tools import Noop, make_tool

from affordance import MarkdownSection, PromptTemplate, SectionVisibility
from affordance.errors import PromptRenderError
from affordance.prompt import Section
from affordance.tools import Tool


class Server(Section[None]):
    """A section listing its tools from a "server" (a list it reads each time it is asked)."""

    tools_listed_at_render = True

    def __init__(self, *names: str, summary: str | None = None) -> None:
        super().__init__(
            title="Server",
            summary=summary,
            visibility=SectionVisibility.FULL if summary is None else SectionVisibility.SUMMARY,
        )
        self.names = list(names)
        self.fixed: dict[str, Any] | None = None
        self.asked = 0

    def _listing(self) -> dict[str, Any]:
        if self.fixed is not None:
            return self.fixed
        self.asked += 1
        return {"tools": list(self.names), "text": f"Serving {len(self.names)} tool(s)."}

    def tools(self) -> tuple[Tool[Noop, str], ...]:
        return tuple(make_tool(name) for name in self._listing()["tools"])

    def render_body(self, params: None) -> str:
        return str(self._listing()["text"])

    def tools_listing(self) -> dict[str, Any]:
        return self._listing()

    def listed(self, listing: Any) -> Server:
        fixed = Server(summary=self.summary)
        fixed.fixed = listing
        return fixed


def prompt_with(server: Server) -> PromptTemplate[None]:
    group = MarkdownSection(title="Group", key="group", template="Tools below.", children=[server])
    return PromptTemplate(ns="t", key="t", sections=[group])


def test_the_listings_are_the_sections_own_by_dotted_path_as_json() -> None:
    prompt = prompt_with(Server("a", "b"))

    listings = prompt.tools_listings()

    assert listings == {"group.server": {"tools": ["a", "b"], "text": "Serving 2 tool(s)."}}
    assert json.loads(json.dumps(listings)) == listings
    assert prompt.listed_section_paths() == (("group", "server"),)


def test_a_prompt_with_listings_renders_them_without_asking_the_section() -> None:
    server = Server("a", "b")
    prompt = prompt_with(server)
    listings = json.loads(json.dumps(prompt.tools_listings()))  # as it crosses a boundary
    server.names = ["c"]  # the server changes its list afterwards
    asked = server.asked

    fixed = prompt.with_listings(listings)
    rendered = fixed.render()

    assert [tool.name for tool in rendered.tools] == ["a", "b"]
    assert "Serving 2 tool(s)." in rendered.text
    assert server.asked == asked  # no listing: the fixed form never asks
    assert (fixed.ns, fixed.key, fixed.name) == (prompt.ns, prompt.key, prompt.name)
    assert [tool.name for tool in prompt.render().tools] == ["c"]  # the live prompt still lists


def test_an_opened_section_renders_the_same_listing() -> None:
    prompt = prompt_with(Server("a", summary="A server."))
    fixed = prompt.with_listings({"group.server": {"tools": ["x"], "text": "Fixed."}})

    summarized = fixed.render()
    opened = fixed.render(visibility_overrides={("group", "server"): SectionVisibility.FULL})

    assert [tool.name for tool in summarized.tools] == ["open_sections"]
    assert [tool.name for tool in opened.tools] == ["x"]
    assert "Fixed." in opened.text


def test_the_same_listing_gives_the_same_prompt() -> None:
    prompt = prompt_with(Server("a"))
    listing = {"group.server": {"tools": ["a"], "text": "t"}}

    assert prompt.with_listings(listing) is prompt.with_listings(json.loads(json.dumps(listing)))
    assert prompt.with_listings(listing) is not prompt.with_listings(
        {"group.server": {"tools": ["b"], "text": "t"}}
    )


def test_a_prompt_without_listed_sections_is_returned_as_is() -> None:
    prompt = PromptTemplate(ns="t", key="t", sections=[MarkdownSection(title="A", template="a")])

    assert prompt.tools_listings() == {}
    assert prompt.with_listings({}) is prompt


def test_a_missing_or_unknown_listing_is_a_render_error() -> None:
    prompt = prompt_with(Server("a"))

    with pytest.raises(PromptRenderError, match="no listing was given") as missing:
        prompt.with_listings({})
    assert missing.value.section_path == ("group", "server")
    with pytest.raises(PromptRenderError, match="'group', which is not a section listing"):
        prompt.with_listings({"group": {}, "group.server": {"tools": [], "text": ""}})


def test_a_section_without_the_seam_says_so() -> None:
    class Plain(Section[None]):
        tools_listed_at_render = True

    section = Plain(title="Plain")
    with pytest.raises(NotImplementedError, match=r"Section\.tools_listing"):
        section.tools_listing()
    with pytest.raises(NotImplementedError, match=r"Section\.listed"):
        section.listed({})
