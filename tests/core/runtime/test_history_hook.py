"""The ``history=`` hook: it sees every message a request would carry and what it returns is
sent instead — checked first, so a call is never sent without its result — while the run's own
transcript stays whole; on every entry point alike."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from drivers import DRIVERS, run

from affordance import MarkdownSection, PromptEvaluationError, PromptTemplate, Tool, ToolResult
from affordance.adapters import AssistantMessage, Message, ToolResultMessage, UserMessage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Query:
    q: str


def prompt() -> PromptTemplate[None]:
    def search(params: Query) -> ToolResult[str]:
        return ToolResult.ok(f"found {params.q}")

    tool = Tool[Query, str](name="search", description="Search.", handler=search)
    return PromptTemplate(
        name="long", sections=[MarkdownSection(title="Task", template="Go.", tools=[tool])]
    )


def script() -> list[object]:
    return [
        tool_calls(tool_call("search", {"q": "a"}, call_id="c1")),
        tool_calls(tool_call("search", {"q": "b"}, call_id="c2")),
        text("done"),
    ]


def last_exchange(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The first message (the task) and the last call with its result."""
    if len(messages) <= 3:
        return messages
    return (messages[0], *messages[-2:])


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_hook_shapes_each_request_and_the_transcript_stays_whole(driver):
    seen: list[int] = []

    def hook(messages: tuple[Message, ...]) -> tuple[Message, ...]:
        seen.append(len(messages))
        return last_exchange(messages)

    adapter = ScriptedAdapter(script())
    response, _ = run(adapter, prompt(), driver, history=hook)
    assert seen == [1, 3, 5]  # the opening message, then each turn's call and result
    third = adapter.requests[2].messages
    assert [type(m).__name__ for m in third] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
    ]
    assert isinstance(third[2], ToolResultMessage)
    assert third[2].call_id == "c2"
    assert len(response.messages) == 5  # two calls, two results, the answer: nothing dropped


def test_with_caller_messages_the_hook_sees_them_first():
    seen: list[tuple[Message, ...]] = []
    history = (UserMessage("hi"), AssistantMessage("hello"), UserMessage("search a"))
    adapter = ScriptedAdapter([text("ok")])
    adapter.evaluate(prompt(), messages=history, history=lambda m: seen.append(m) or m)
    assert seen == [history]


@pytest.mark.parametrize(
    ("hook", "problem"),
    [
        (lambda m: m[:1] + m[2:], "kept the result of call 'c1' without the call"),
        (lambda m: m[:2], r"kept call\(s\) 'c1' without their results"),
        (lambda m: (), "returned no messages"),
        (lambda m: "text", "returned str, not a sequence of messages"),
        (lambda m: (*m, "note"), "returned a str at 3, not a message"),
    ],
)
def test_a_hook_that_breaks_the_transcript_is_refused_before_the_request(hook, problem):
    adapter = ScriptedAdapter(script())
    calls = {"n": 0}

    def counted(messages: tuple[Message, ...]) -> object:
        calls["n"] += 1
        return messages if calls["n"] == 1 else hook(messages)

    with pytest.raises(PromptEvaluationError, match=problem) as refused:
        adapter.evaluate(prompt(), history=counted)
    assert refused.value.phase == "history"
    assert adapter.sent == 1  # the second request was never sent


def test_a_hook_that_raises_is_an_error_naming_it():
    def broken(messages: tuple[Message, ...]) -> tuple[Message, ...]:
        raise RuntimeError("no memory")

    adapter = ScriptedAdapter(script())
    with pytest.raises(PromptEvaluationError, match="broken raised RuntimeError") as refused:
        adapter.evaluate(prompt(), history=broken)
    assert isinstance(refused.value.__cause__, RuntimeError)
    assert adapter.sent == 0
