"""Properties of ``PromptTemplate.render``: the same inputs give the same text and tool list.

Hypothesis draws the params' text (any unicode, ``$`` and braces included), which sections are
enabled, and which summarized sections the caller opens or closes; the render is repeated,
redone on a template built again from the same arguments, and redone with the params passed in
another order. Derandomized and bounded: under a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's core envs run without it

from hypothesis import given, settings
from hypothesis import strategies as st
from named_tools import make_tool

from affordance import MarkdownSection, PromptTemplate, Section, SectionVisibility

PROPERTIES = settings(max_examples=120, derandomize=True, deadline=None, database=None)
SUMMARY, FULL = SectionVisibility.SUMMARY, SectionVisibility.FULL


@dataclass(frozen=True)
class Task:
    objective: str
    priority: str = "normal"


@dataclass(frozen=True)
class Notes:
    topic: str
    body: str = ""
    show_rules: bool = True


TOOLS = {name: make_tool(name) for name in ("plan", "read_notes", "check_rules", "history")}


def build() -> PromptTemplate[Any]:
    """A template with nesting, params, summaries, a predicate and tools on several levels."""
    return PromptTemplate(
        name="props",
        sections=[
            MarkdownSection[Task](
                title="Task",
                key="task",
                template="Do: ${objective} (priority $priority).",
                tools=[TOOLS["plan"]],
            ),
            Section(
                title="Context",
                key="context",
                children=[
                    MarkdownSection[Notes](
                        title="Notes",
                        key="notes",
                        template="On ${topic}: ${body}",
                        summary="Notes on ${topic}.",
                        visibility=SUMMARY,
                        tools=[TOOLS["read_notes"]],
                    ),
                    MarkdownSection[Notes](
                        title="Rules",
                        key="rules",
                        template="Follow the rules for ${topic}.",
                        enabled=lambda notes: notes.show_rules,
                        tools=[TOOLS["check_rules"]],
                    ),
                    MarkdownSection(
                        title="History",
                        key="history",
                        template="Earlier work.",
                        summary="Some history.",
                        tools=[TOOLS["history"]],
                    ),
                ],
            ),
        ],
    )


TEMPLATE = build()
TEXT = st.text(max_size=30)
TASKS = st.builds(Task, objective=TEXT, priority=TEXT)
NOTES = st.builds(Notes, topic=TEXT, body=TEXT, show_rules=st.booleans())
OVERRIDES = st.fixed_dictionaries(
    {},
    optional={
        ("context", "notes"): st.sampled_from([SUMMARY, FULL]),
        ("context", "history"): st.sampled_from([SUMMARY, FULL]),
    },
)


def rendered(template: PromptTemplate[Any], params: tuple[Any, ...], overrides: Any) -> Any:
    result = template.render(*params, visibility_overrides=overrides or None)
    return result.text, [tool.name for tool in result.tools], result.tools


@PROPERTIES
@given(task=TASKS, notes=NOTES, overrides=OVERRIDES)
def test_render_is_deterministic(task, notes, overrides):
    text, names, tools = rendered(TEMPLATE, (task, notes), overrides)
    again = rendered(TEMPLATE, (task, notes), overrides)
    assert again[0] == text
    assert again[1] == names
    assert all(a is b for a, b in zip(again[2], tools, strict=True))  # the same Tool objects
    rebuilt = rendered(build(), (task, notes), overrides)
    assert rebuilt[:2] == (text, names)
    reordered = rendered(TEMPLATE, (notes, task), overrides)
    assert reordered[:2] == (text, names)  # params are matched by type, not by position


@PROPERTIES
@given(task=TASKS, notes=NOTES, overrides=OVERRIDES)
def test_tools_follow_visibility_and_enablement(task, notes, overrides):
    _, names, _ = rendered(TEMPLATE, (task, notes), overrides)
    notes_open = overrides.get(("context", "notes"), SUMMARY) is FULL
    history_open = overrides.get(("context", "history"), FULL) is FULL
    expected = ["plan"]
    expected += ["read_notes"] if notes_open else []
    expected += ["check_rules"] if notes.show_rules else []
    expected += ["history"] if history_open else []
    assert names[: len(expected)] == expected
    assert set(names) - set(expected) <= {"open_sections"}  # the disclosure tool, when needed
