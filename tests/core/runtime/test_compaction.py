"""The built-in ``history=`` hooks (``runtime/model/compaction.py``) over every shape a
transcript takes: property tests on generated transcripts — leading model steps before any user
message, parallel calls answered in any order, failed calls, provider items, hosted-only steps,
output-retry feedback between steps — proving the pairing invariant (a kept call keeps its
result, a kept result its call) and the start invariant (a transcript that starts with a user
message is sent starting with one), then examples, and runs through the loop."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affordance import (
    MarkdownSection,
    PromptTemplate,
    Tool,
    ToolResult,
    drop_tool_results_older_than,
    keep_last_turns,
)
from affordance.adapters import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from affordance.runtime.model import DROPPED_RESULT, compacted
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

REASONING = {"type": "reasoning", "id": "rs", "encrypted_content": "gAAA"}
HOSTED = {"type": "web_search_call", "id": "ws", "status": "completed"}


@st.composite
def steps(draw: st.DrawFn, ids: Iterator[int]) -> list[Message]:
    """One model step and what answers it: 1-4 parallel calls (arguments as a string or an
    object, some failing) whose results come back in any order, or a hosted-only step (provider
    items, no calls, so no results)."""
    items = draw(st.sampled_from([(), (REASONING,), (REASONING, HOSTED)]))
    provider = "openai" if items else None
    if items and draw(st.booleans()):
        return [AssistantMessage(draw(st.sampled_from([None, "searching"])), (), items, provider)]
    calls = [
        ToolCall(f"c{next(ids)}", "lookup", draw(st.sampled_from(["{}", {"q": "x"}])))
        for _ in range(draw(st.integers(1, 4)))
    ]
    results = [
        ToolResultMessage(call.id, call.name, f"result of {call.id}", draw(st.booleans()))
        for call in draw(st.permutations(calls))
    ]
    return [
        AssistantMessage(draw(st.sampled_from([None, "let me look"])), (*calls,), items, provider),
        *results,
    ]


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[Message, ...]:
    """User turns of model steps, each ending with an answer; the first may lack its user
    message (a transcript that starts with the model's turn), and an answer may be followed by
    retry feedback (a user message) and more steps within the same request run."""
    ids = itertools.count()
    messages: list[Message] = []
    opened = draw(st.booleans())
    for turn in range(draw(st.integers(1, 5))):
        if turn or opened:
            messages.append(UserMessage(f"question {turn}"))
        for _ in range(draw(st.integers(0, 3))):
            messages.extend(draw(steps(ids)))
            if draw(st.integers(0, 5)) == 0:
                messages.append(AssistantMessage("not valid output"))
                messages.append(UserMessage("Your answer was not accepted"))
        messages.append(AssistantMessage(f"answer {turn}"))
    return tuple(messages)


def pairing_holds(messages: tuple[Message, ...]) -> bool:
    """Every result follows the message making its call, and every call kept has its result."""
    made: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            made.update(call.id for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            if message.call_id not in made or message.call_id in answered:
                return False
            answered.add(message.call_id)
    return made == answered


def users(messages: tuple[Message, ...]) -> int:
    return sum(isinstance(message, UserMessage) for message in messages)


# -- keep_last_turns ---------------------------------------------------------------------------


@given(transcripts(), st.integers(1, 6))
def test_keep_last_turns_keeps_pairs_and_starts_with_a_user_message(messages, n):
    assert pairing_holds(messages)  # the generator's own promise
    kept = keep_last_turns(n)(messages)
    assert pairing_holds(kept)
    first_kept = isinstance(messages[0], UserMessage)
    tail = kept[1:] if first_kept else kept
    assert tail == messages[len(messages) - len(tail) :]  # a suffix, each message untouched
    if kept is not messages:  # cut: at a user message, keeping n of them (and the first)
        assert isinstance(tail[0], UserMessage)
        assert users(tail) == n
        if first_kept:
            assert kept[0] is messages[0]
    else:  # not cut: n or fewer user messages after the first
        assert users(messages) - first_kept <= n
    if isinstance(messages[0], UserMessage):
        assert isinstance(kept[0], UserMessage)
    assert keep_last_turns(n)(kept) == kept  # a kept transcript is kept whole
    assert compacted(keep_last_turns(n), messages, prompt_name="p") == kept


@given(transcripts())
def test_keeping_one_turn_keeps_everything_after_the_last_user_message(messages):
    starts = [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]
    kept = keep_last_turns(1)(messages)
    if starts and starts[0] == 0:  # the first message, and the last turn after it
        expected = messages if len(starts) <= 2 else (messages[0], *messages[starts[-1] :])
    else:  # messages before the first user message go with the oldest turn
        expected = messages if len(starts) <= 1 else messages[starts[-1] :]
    assert kept == expected


# -- drop_tool_results_older_than --------------------------------------------------------------


@given(transcripts(), st.integers(0, 6))
def test_dropping_old_results_keeps_every_message_and_pair(messages, n):
    shaped = drop_tool_results_older_than(n)(messages)
    assert len(shaped) == len(messages)
    assert pairing_holds(shaped)
    assert type(shaped[0]) is type(messages[0])  # it starts as the transcript did
    for before, after in zip(messages, shaped, strict=True):
        if after is before:
            continue
        # only a result's content changes, to the placeholder; the pair stays as it was
        assert isinstance(before, ToolResultMessage)
        assert after == ToolResultMessage(
            before.call_id, before.name, DROPPED_RESULT, before.is_error
        )
    assert drop_tool_results_older_than(n)(shaped) == shaped  # dropping twice drops nothing more
    assert compacted(drop_tool_results_older_than(n), messages, prompt_name="p") == shaped


@given(transcripts(), st.integers(1, 6))
def test_the_results_of_the_last_n_answers_calls_are_kept(messages, n):
    shaped = drop_tool_results_older_than(n)(messages)
    answers = [i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]
    recent = answers[-n] if len(answers) >= n else 0
    for index in range(recent, len(messages)):
        assert shaped[index] is messages[index]
    # the results the model is about to read (after its last answer) are never dropped
    assert shaped[answers[-1] :] == messages[answers[-1] :]


# -- examples ----------------------------------------------------------------------------------


def lookup(call_id: str) -> tuple[AssistantMessage, ToolResultMessage]:
    call = ToolCall(call_id, "lookup", "{}")
    return AssistantMessage(None, (call,)), ToolResultMessage(call_id, "lookup", f"r-{call_id}")


def test_model_steps_before_the_first_user_message_go_with_the_oldest_turn():
    leading = (*lookup("a"), AssistantMessage("first answer"))
    older = (UserMessage("q1"), *lookup("b"), AssistantMessage("a1"))
    last = (UserMessage("q2"), AssistantMessage("a2"))
    messages = (*leading, *older, *last)
    assert keep_last_turns(2)(messages) is messages  # two turns: sent as they are
    assert keep_last_turns(1)(messages) == last


def test_parallel_results_answered_out_of_order_stay_with_their_calls():
    calls = (ToolCall("p1", "lookup", "{}"), ToolCall("p2", "lookup", {"q": "x"}))
    step = AssistantMessage("two at once", calls, (REASONING,), "openai")
    answers = (
        ToolResultMessage("p2", "lookup", "second", is_error=True),
        ToolResultMessage("p1", "lookup", "first"),
    )
    messages = (
        UserMessage("q0"),
        step,
        *answers,
        AssistantMessage("a0"),
        UserMessage("q1"),
        AssistantMessage("a1"),
        UserMessage("q2"),
    )
    # the first message stays; the turn with the parallel calls goes whole
    assert keep_last_turns(1)(messages) == (UserMessage("q0"), UserMessage("q2"))
    assert keep_last_turns(2)(messages) is messages
    dropped = drop_tool_results_older_than(2)(messages)
    assert dropped[1] is step  # its provider items and calls untouched
    assert dropped[2:4] == (
        ToolResultMessage("p2", "lookup", DROPPED_RESULT, is_error=True),
        ToolResultMessage("p1", "lookup", DROPPED_RESULT),
    )


def test_drop_tool_results_older_than_zero_drops_every_result():
    messages = (UserMessage("q"), *lookup("a"))
    assert drop_tool_results_older_than(0)(messages) == (
        UserMessage("q"),
        messages[1],
        ToolResultMessage("a", "lookup", DROPPED_RESULT),
    )


# -- through the loop --------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    q: str


def searching_prompt() -> PromptTemplate[None]:
    def search(params: Query) -> ToolResult[str]:
        return ToolResult.ok(f"a long page about {params.q}")

    tool = Tool[Query, str](name="search", description="Search.", handler=search)
    return PromptTemplate(
        name="research",
        sections=[MarkdownSection(title="Task", template="Research.", tools=[tool])],
    )


def test_a_long_tool_loop_sends_only_the_recent_results():
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("search", {"q": "one"}, call_id="s1")),
            tool_calls(tool_call("search", {"q": "two"}, call_id="s2")),
            tool_calls(tool_call("search", {"q": "three"}, call_id="s3")),
            text("done"),
        ]
    )
    response = adapter.evaluate(searching_prompt(), history=drop_tool_results_older_than(1))
    contents = [
        [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        for request in adapter.requests
    ]
    assert contents == [
        [],
        ["a long page about one"],
        [DROPPED_RESULT, "a long page about two"],
        [DROPPED_RESULT, DROPPED_RESULT, "a long page about three"],
    ]
    for request in adapter.requests:  # the rendered prompt opens every request
        assert request.messages[0] == UserMessage(request.rendered.text)
    kept = [m.content for m in response.messages if isinstance(m, ToolResultMessage)]
    assert DROPPED_RESULT not in kept  # the run's own transcript keeps everything


def test_keeping_the_last_turn_after_an_output_retry_still_sends_the_prompt():
    @dataclass(frozen=True)
    class Verdict:
        label: str

    prompt = PromptTemplate[Verdict](
        name="verdict", sections=[MarkdownSection(title="Task", template="Classify it.")]
    )
    adapter = ScriptedAdapter([text("it is ham"), text('{"label": "ham"}')])
    adapter.evaluate(prompt, history=keep_last_turns(1))
    retried = adapter.requests[1]
    sent = [retried.instructions or "", *(getattr(m, "text", None) or "" for m in retried.messages)]
    assert any("Classify it." in part for part in sent)


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
        UserMessage("q0"),  # the conversation's opening, kept
        UserMessage("q3"),
        AssistantMessage("a3"),
        UserMessage("q4"),
    )
