"""``RunForm``, ``run_entry`` and ``joined_transcript`` (``affordance.adapters.form_runs``):
consecutive messages of one kind share one entry; a message standing alone sends the entry its
form holds, built once, and only a run of several gets an entry built for the request."""

from __future__ import annotations

from functools import partial
from typing import Any

from affordance.adapters import (
    AssistantMessage,
    Message,
    RunForm,
    ToolResultMessage,
    UserMessage,
    WireForms,
    joined_transcript,
    run_entry,
)

Entry = dict[str, Any]


def join(kind: str, pieces: list[str]) -> Entry:
    return {"role": kind, "content": pieces}


class Builder:
    """A made-up format: a message's text as its one piece (none when empty), its role as its
    kind; counts what it builds."""

    def __init__(self) -> None:
        self.built: list[Message] = []

    def __call__(self, message: Message, suffix: str) -> RunForm[str, Entry]:
        self.built.append(message)
        if isinstance(message, ToolResultMessage):
            kind, text = "user", message.content
        else:
            kind = "user" if isinstance(message, UserMessage) else "assistant"
            text = message.text or ""
        pieces = (text + suffix,) if text else ()
        return RunForm(kind, pieces, join(kind, list(pieces)))


def test_a_lone_form_sends_its_own_entry_and_a_run_joins_its_pieces_in_order() -> None:
    lone = RunForm("user", ("a",), join("user", ["a"]))
    second = RunForm("user", ("b", "c"), join("user", ["b", "c"]))

    assert run_entry([lone], join) is lone.entry  # built once, with the form
    assert run_entry([lone, second], join) == {"role": "user", "content": ["a", "b", "c"]}


def test_a_transcript_joins_each_run_of_one_kind_and_skips_forms_without_pieces() -> None:
    messages: list[Message] = [
        UserMessage("Look these up."),
        AssistantMessage("On it."),
        ToolResultMessage("c1", "lookup", "one"),
        ToolResultMessage("c2", "lookup", "two"),
        AssistantMessage(""),  # nothing to send: it does not part the messages around it
        UserMessage("Thanks."),
    ]

    entries = joined_transcript(messages, WireForms(), partial(Builder(), suffix="!"), join)

    assert entries == [
        {"role": "user", "content": ["Look these up.!"]},
        {"role": "assistant", "content": ["On it.!"]},
        {"role": "user", "content": ["one!", "two!", "Thanks.!"]},
    ]


def test_a_transcript_builds_each_form_once_and_reuses_lone_entries() -> None:
    forms, build = WireForms(), Builder()
    messages: list[Message] = [UserMessage("Hi."), AssistantMessage("Hello.")]

    first = joined_transcript(messages, forms, partial(build, suffix=""), join)
    again = joined_transcript(
        [*messages, UserMessage("Bye.")], forms, partial(build, suffix=""), join
    )

    assert len(build.built) == 3  # the two first messages were built once
    assert again[:2] == first
    assert all(kept is new for kept, new in zip(first, again, strict=False))
