"""Progressive disclosure (seed 002): summaries, the open_sections tool, and the full flow."""

from __future__ import annotations

import json
import runpy
from dataclasses import dataclass
from pathlib import Path

import pytest

from affordance import (
    MarkdownSection,
    OpenSectionsParams,
    OpenSectionsResult,
    PromptTemplate,
    PromptValidationError,
    Section,
    SectionVisibility,
    Tool,
    ToolResult,
)
from affordance.adapters import ToolResultMessage, UserMessage
from affordance.errors import PromptRenderError
from affordance.runtime import EventBus, Session, ToolInvoked
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

SUMMARY = SectionVisibility.SUMMARY
FULL = SectionVisibility.FULL
SEED = Path(__file__).parent.parent / "seeds" / "seed_002_open_sections.py"


def test_seed_example_renders_the_text_the_seed_shows():
    namespace = runpy.run_path(str(SEED))
    assert namespace["initial"].text == (
        "## 1 Task\n"
        "Complete the following: Refactor the authentication module\n"
        "\n"
        "## 2 Project Context\n"
        "Documentation for WeakIncentives is available.\n"
        "---\n"
        "[This section is summarized. To view full content, call `open_sections` with key "
        '"context".]'
    )
    assert [t.name for t in namespace["initial"].tools] == ["open_sections"]


def test_seed_example_after_the_override_shows_full_content_without_the_tool():
    namespace = runpy.run_path(str(SEED))
    rendered = namespace["rendered"]
    assert rendered.text == (
        "## 1 Task\n"
        "Complete the following: Refactor the authentication module\n"
        "\n"
        "## 2 Project Context\n"
        "Detailed documentation for WeakIncentives:\n"
        "- Architecture overview\n"
        "- API reference\n"
        "- Code conventions\n"
        "- Historical decisions"
    )
    assert rendered.tools == ()
    assert rendered.summarized == ()


@dataclass
class Params:
    topic: str = "auth"


def noop_tool(name: str) -> Tool[Params, None]:
    return Tool[Params, None](
        name=name, description="Does nothing.", handler=lambda p: ToolResult.ok(None)
    )


def nested_prompt() -> PromptTemplate[None]:
    return PromptTemplate(
        name="nested",
        sections=[
            MarkdownSection[Params](
                title="Task", template="Work on $topic.", key="task", tools=[noop_tool("work")]
            ),
            MarkdownSection[Params](
                title="Context",
                key="context",
                template="All about $topic.",
                summary="Context on $topic.",
                visibility=SUMMARY,
                tools=[noop_tool("context_tool")],
                children=[
                    MarkdownSection(
                        title="Examples",
                        key="examples",
                        template="Ex.",
                        tools=[noop_tool("example_tool")],
                    ),
                    MarkdownSection(
                        title="Constraints",
                        key="constraints",
                        template="Rules.",
                        summary="Some rules.",
                        visibility=SUMMARY,
                    ),
                    MarkdownSection(title="History", key="history", template="Old."),
                ],
            ),
        ],
    )


def test_tool_is_registered_automatically_after_user_tools_when_a_section_is_summarized():
    rendered = nested_prompt().render()
    assert [t.name for t in rendered.tools] == ["work", "open_sections"]
    tool = rendered.tools[-1]
    assert tool.accepts_overrides is False
    assert tool.terminal is True
    assert tool.params_type is OpenSectionsParams


def test_tool_is_absent_when_no_section_is_summarized():
    prompt = PromptTemplate(sections=[MarkdownSection(title="A", template="a")])
    assert [t.name for t in prompt.render().tools] == []


def test_tool_is_absent_when_overrides_leave_nothing_summarized():
    rendered = nested_prompt().render(
        visibility_overrides={("context",): FULL, ("context", "constraints"): FULL}
    )
    assert "open_sections" not in [t.name for t in rendered.tools]
    assert [t.name for t in rendered.tools] == ["work", "context_tool", "example_tool"]


def test_a_summarized_parent_hides_its_children_and_their_tools_and_lists_child_keys():
    rendered = nested_prompt().render()
    assert rendered.text.endswith(
        "## 2 Context\n"
        "Context on auth.\n"
        "---\n"
        '[This section is summarized. Call `open_sections` with key "context" to view full '
        "content including subsections: examples, constraints, history.]"
    )
    assert "Ex." not in rendered.text
    assert rendered.summarized == (("context",),)


def test_opening_the_parent_shows_a_summarized_child_with_its_dotted_key():
    rendered = nested_prompt().render(visibility_overrides={("context",): FULL})
    assert "### 2.2 Constraints\nSome rules.\n---\n" in rendered.text
    assert 'with key "context.constraints".]' in rendered.text
    assert rendered.summarized == (("context", "constraints"),)


def test_custom_summary_suffix_substitutes_the_section_key():
    prompt = PromptTemplate(
        sections=[
            MarkdownSection(
                title="Reference Documentation",
                template="Full API.",
                summary="Overview of available APIs and their purposes.",
                summary_suffix=(
                    "Call `open_sections` with key '${section_key}' to see detailed API "
                    "signatures and usage examples."
                ),
                key="reference",
                visibility=SUMMARY,
            )
        ]
    )
    assert prompt.render().text == (
        "## 1 Reference Documentation\n"
        "Overview of available APIs and their purposes.\n"
        "---\n"
        "Call `open_sections` with key 'reference' to see detailed API signatures and usage "
        "examples."
    )


def test_summary_suffix_may_only_use_section_key():
    with pytest.raises(PromptValidationError, match="section_key"):
        Section(title="T", summary="s", summary_suffix="see ${other}", visibility=SUMMARY)


def test_caller_overrides_can_summarize_a_full_section_that_has_a_summary():
    prompt = PromptTemplate(
        sections=[MarkdownSection(title="Notes", template="Long notes.", summary="Short.")]
    )
    rendered = prompt.render(visibility_overrides={("notes",): SUMMARY})
    assert rendered.summarized == (("notes",),)
    with pytest.raises(PromptRenderError, match="no summary"):
        PromptTemplate(sections=[MarkdownSection(title="N", template="x")]).render(
            visibility_overrides={("n",): SUMMARY}
        )
    with pytest.raises(PromptRenderError, match="unknown section"):
        prompt.render(visibility_overrides={("missing",): FULL})


def test_a_user_tool_named_open_sections_is_refused():
    with pytest.raises(PromptValidationError, match="reserved"):
        PromptTemplate(sections=[Section(title="A", tools=[noop_tool("open_sections")])])


def run_open(keys: list[str], reason: str = "need it") -> tuple[ToolResult[object], list[str]]:
    """One open_sections call through the loop, handing the request back to the caller."""
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("open_sections", {"section_keys": keys, "reason": reason}))],
        open_sections="return",
    )
    response = adapter.evaluate(nested_prompt())
    return response.tool_results[0].result, [
        m.content for m in response.messages if isinstance(m, ToolResultMessage)
    ]


def test_handler_returns_the_requested_overrides():
    result, _ = run_open(["context"])
    assert result.success
    assert isinstance(result.value, OpenSectionsResult)
    assert result.value.requested_overrides == {("context",): "full"}
    assert result.value.render() == (
        "Sections requested for expansion: context. Retry prompt with visibility overrides."
    )


@pytest.mark.parametrize(
    ("keys", "problem"),
    [
        (["nope"], "there is no section 'nope'"),
        (["task"], "section 'task' is already fully visible"),
        (["context.constraints"], "inside summarized 'context'; open that"),
        (["context..x"], "is not a section key path"),
    ],
)
def test_invalid_or_already_open_keys_are_refused_with_a_readable_failure(keys, problem):
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": keys, "reason": "r"})),
            text("ok then"),
        ]
    )
    response = adapter.evaluate(nested_prompt())
    result = response.tool_results[0].result
    assert not result.success
    assert problem in result.message
    assert "Sections you can open: context." in result.message
    assert response.text == "ok then"


def test_reason_longer_than_256_characters_is_refused():
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("open_sections", {"section_keys": ["context"], "reason": "x" * 257})
            ),
            text("fine"),
        ]
    )
    response = adapter.evaluate(nested_prompt())
    assert "reason" in response.tool_results[0].result.message


def test_calling_it_ends_the_turn_and_later_calls_are_skipped():
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("work", {}),
                tool_call("open_sections", {"section_keys": ["context"], "reason": "r"}),
                tool_call("work", {}),
            )
        ],
        open_sections="return",
    )
    response = adapter.evaluate(nested_prompt())
    assert [r.result.success for r in response.tool_results] == [True, True, False]
    assert "'open_sections' ended the turn" in response.tool_results[2].result.message
    assert response.expansion == {("context",): FULL}
    assert response.finish_reason == "terminal_tool"
    assert response.text is None


def test_the_caller_can_apply_the_returned_overrides_and_retry():
    prompt = nested_prompt()
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": ["context"], "reason": "r"})),
            text("done with context"),
        ],
        open_sections="return",
    )
    first = adapter.evaluate(prompt)
    assert first.expansion is not None
    second = adapter.evaluate(prompt, visibility_overrides=first.expansion)
    assert second.text == "done with context"
    assert "All about auth." in adapter.requests[1].messages[0].text  # type: ignore[union-attr]


def test_full_flow_render_call_rerender_expanded_content_final_answer():
    """initial render -> tool call -> re-render with overrides -> expanded content -> answer."""
    prompt = nested_prompt()
    session = Session()
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": ["context"], "reason": "r"})),
            tool_calls(tool_call("example_tool", {})),
            text("answered with the examples"),
        ]
    )
    response = adapter.evaluate(prompt, session=session)
    first, second, third = adapter.requests
    assert "Context on auth." in first.messages[0].text  # type: ignore[union-attr]
    assert [t.name for t in first.tools] == ["work", "open_sections"]
    expanded = second.messages[0]
    assert isinstance(expanded, UserMessage)
    assert "All about auth." in expanded.text
    assert "### 2.1 Examples\nEx." in expanded.text
    assert [t.name for t in second.tools] == [
        "work",
        "context_tool",
        "example_tool",
        "open_sections",
    ]
    assert isinstance(second.messages[-1], ToolResultMessage)
    assert response.text == "answered with the examples"
    assert response.tool_results[1].result.success
    assert third.turn == 3
    # the session remembers what the model opened for its next evaluation
    assert session.visibility_overrides() == {("context",): FULL}
    again = ScriptedAdapter([text("already open")])
    again.evaluate(prompt, session=session)
    assert "All about auth." in again.requests[0].messages[0].text  # type: ignore[union-attr]


def test_expansions_are_bounded():
    prompt = nested_prompt()
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": ["context"], "reason": "r"})),
            tool_calls(
                tool_call("open_sections", {"section_keys": ["context.constraints"], "reason": "r"})
            ),
        ],
        max_expansions=1,
    )
    response = adapter.evaluate(prompt)
    assert response.expansion == {("context", "constraints"): FULL}
    assert response.finish_reason == "terminal_tool"


def test_tool_invoked_event_carries_the_disclosure_telemetry():
    bus = EventBus()
    events: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, events.append)
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("open_sections", {"section_keys": ["context"], "reason": "need rules"})
            ),
            text("ok"),
        ]
    )
    adapter.evaluate(nested_prompt(), bus=bus)
    (event,) = [e for e in events if e.name == "open_sections"]
    assert event.disclosure is not None
    assert event.disclosure.requested_sections == ("context",)
    assert event.disclosure.reason == "need rules"
    assert event.disclosure.current_visibility_state == {"task": "full", "context": "summary"}
    assert json.loads(json.dumps(dict(event.disclosure.current_visibility_state)))
