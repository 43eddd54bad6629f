"""Prompt overrides reach the wire: the Responses request body declares the overridden tool
description and parameter descriptions, and a run without overrides on the same adapter still
declares the originals (the declaration cache is keyed by the tool object each render uses)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from loopback import RESPONSES_PATH, LoopbackServer, response_text

from affordance import MarkdownSection, PromptTemplate, Tool
from affordance.prompt.overrides import seed_overrides
from affordance_openai import OpenAIAdapter


@dataclass(frozen=True)
class FindParams:
    query: str = field(metadata={"description": "What to look for"})


FIND = Tool[FindParams, str](name="find", description="Search the notes.")
PROMPT = PromptTemplate(
    key="notes", sections=[MarkdownSection(title="Notes", template="Use find.", tools=[FIND])]
)


def test_the_request_declares_the_overridden_texts_and_then_the_originals_again(
    server: LoopbackServer, clients: Any
) -> None:
    seeded = seed_overrides(PROMPT)
    tuned = dataclasses.replace(
        seeded,
        sections={
            "notes": dataclasses.replace(seeded.sections["notes"], template="Use find first.")
        },
        tools={
            "find": dataclasses.replace(
                seeded.tools["find"],
                description="Full-text search over the user's notes.",
                params={"query": "Words that must all appear"},
            )
        },
    )
    server.script(RESPONSES_PATH, response_text("one"), response_text("two"))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    adapter.evaluate(PROMPT, overrides=tuned)
    adapter.evaluate(PROMPT)

    overridden, original = (request.body for request in server.requests[-2:])
    assert overridden["input"][0]["content"] == "## 1 Notes\nUse find first."
    (declared,) = overridden["tools"]
    assert declared["description"] == "Full-text search over the user's notes."
    assert declared["parameters"]["properties"]["query"]["description"] == (
        "Words that must all appear"
    )
    (again,) = original["tools"]
    assert again["description"] == "Search the notes."
    assert again["parameters"]["properties"]["query"]["description"] == "What to look for"
