"""The built-in history hooks never part a call from its result, and what they send starts as
the conversation did (with a user message): property tests over generated transcripts, then
examples — and both hooks pass the loop's own check."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affordance import (
    MarkdownSection,
    PromptTemplate,
    drop_tool_results_older_than,
    keep_last_turns,
)
from affordance.adapters import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from affordance.runtime.model import DROPPED_RESULT, compacted
from affordance.testing import ScriptedAdapter, text


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[Message, ...]:
    """User turns, each a user message then model steps: a step calls 0-3 tools (parallel
    calls, some failing) and is followed by their results; a turn ends with an answer."""
    messages: list[Message] = []
    ids = iter(range(10_000))
    for turn in range(draw(st.integers(1, 5))):
        messages.append(UserMessage(f"question {turn}"))
        for _ in range(draw(st.integers(0, 3))):
            calls = tuple(
                ToolCall(f"c{next(ids)}", "lookup", "{}") for _ in range(draw(st.integers(1, 3)))
            )
            items = draw(st.sampled_from([(), ({"type": "reasoning", "id": "r"},)]))
            messages.append(AssistantMessage(None, calls, items, "openai" if items else None))
            messages.extend(
                ToolResultMessage(call.id, call.name, f"result {call.id}", draw(st.booleans()))
                for call in calls
            )
        messages.append(AssistantMessage(f"answer {turn}"))
    return tuple(messages)


def pairs_kept(messages: tuple[Message, ...]) -> bool:
    calls: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls.update(call.id for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            if message.call_id not in calls:
                return False
            answered.add(message.call_id)
    return calls == answered


@given(transcripts(), st.integers(1, 6))
def test_keep_last_turns_sends_whole_turns_from_a_user_message(messages, n):
    kept = keep_last_turns(n)(messages)
    assert pairs_kept(kept)
    assert isinstance(kept[0], UserMessage)
    assert kept == messages[len(messages) - len(kept) :]  # a suffix, untouched
    users = sum(isinstance(m, UserMessage) for m in messages)
    assert sum(isinstance(m, UserMessage) for m in kept) == min(n, users)
    assert compacted(keep_last_turns(n), messages, prompt_name="p") == kept


@given(transcripts(), st.integers(0, 6))
def test_drop_tool_results_keeps_every_message_and_pair(messages, n):
    shaped = drop_tool_results_older_than(n)(messages)
    assert len(shaped) == len(messages)
    assert pairs_kept(shaped)
    answers = [i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]
    recent = answers[-n] if n and len(answers) >= n else (len(messages) if n == 0 else 0)
    for index, (before, after) in enumerate(zip(messages, shaped, strict=True)):
        if isinstance(before, ToolResultMessage) and index < recent:
            assert after == ToolResultMessage(
                before.call_id, before.name, DROPPED_RESULT, before.is_error
            )
        else:
            assert after is before
    assert compacted(drop_tool_results_older_than(n), messages, prompt_name="p") == shaped


def test_fewer_turns_than_kept_are_sent_as_they_are():
    messages = (UserMessage("hi"), AssistantMessage("hello"))
    assert keep_last_turns(3)(messages) is messages
    assert drop_tool_results_older_than(1)(messages) is messages


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_keep_last_turns_needs_a_positive_int(bad):
    with pytest.raises(ValueError, match="positive number of turns"):
        keep_last_turns(bad)


@pytest.mark.parametrize("bad", [-1, False, "2"])
def test_drop_tool_results_needs_a_count(bad):
    with pytest.raises(ValueError, match="0 or more"):
        drop_tool_results_older_than(bad)


def test_a_built_in_hook_shapes_a_real_run_of_a_long_chat():
    history: tuple[Message, ...] = ()
    for turn in range(4):
        history = (*history, UserMessage(f"q{turn}"), AssistantMessage(f"a{turn}"))
    adapter = ScriptedAdapter([text("latest")])
    chat = PromptTemplate(name="chat", sections=[MarkdownSection(title="Role", template="Chat.")])
    adapter.evaluate(chat, messages=(*history, UserMessage("q4")), history=keep_last_turns(2))
    assert adapter.requests[0].messages == (
        UserMessage("q3"),
        AssistantMessage("a3"),
        UserMessage("q4"),
    )
