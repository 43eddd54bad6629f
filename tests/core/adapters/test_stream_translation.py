"""``StreamTranslator`` (``affordance.adapters.stream_translation``): typed events read through a
table of handlers, and the bookkeeping every provider's translator shares — calls by stream
index, refused when they cannot be placed; a refusal noted — with events that cannot be read
reported as unusable, never as a raw exception."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from affordance.adapters import (
    Delta,
    EventHandler,
    HostedActivity,
    RefusalPiece,
    SseEvent,
    StreamTranslator,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    TurnEnd,
    UnusableResponseError,
    Usage,
    event_field,
)


class Lines(StreamTranslator):
    """A made-up format: ``text`` and ``call`` events, anything else a tool at work."""

    __slots__ = ()

    def _call(self, data: dict[str, Any]) -> Sequence[Delta]:
        index = event_field("index", int)(data)
        call = data["call"]  # a missing call is an event not shaped as documented
        return (self.begin_call(index, call.get("id"), call.get("name"), lacking="no id"),)

    def other(self, kind: object, data: dict[str, Any]) -> Sequence[Delta]:
        return (HostedActivity(str(kind), "working"),)

    handlers: ClassVar[Mapping[str, EventHandler]] = {
        "text": lambda self, data: (TextPiece(event_field("text", str)(data)),),
        "refusal": lambda self, data: (self.refusal(data["text"]),),
        "call": _call,
    }


def event(data: Any, name: str | None = None) -> SseEvent:
    return SseEvent(name, json.dumps(data))


def test_each_event_goes_to_the_handler_of_its_type() -> None:
    lines = Lines()

    assert lines(event({"type": "text", "text": "Hi"})) == (TextPiece("Hi"),)
    assert lines(event({"type": "refusal", "text": "No."})) == (RefusalPiece("No."),)
    assert lines.refused


def test_an_event_without_a_type_field_is_named_by_its_sse_event_line() -> None:
    assert Lines()(event({"text": "Hi"}, name="text")) == (TextPiece("Hi"),)


def test_an_event_of_another_type_goes_to_other() -> None:
    assert Lines()(event({"type": "search"})) == (HostedActivity("search", "working"),)
    assert StreamTranslator()(event({"type": "anything"})) == ()


def test_an_event_that_is_no_object_is_unusable() -> None:
    with pytest.raises(UnusableResponseError, match="an event is list, not an object"):
        Lines()(event([1, 2]))


def test_an_event_its_handler_cannot_read_is_not_shaped_as_documented() -> None:
    with pytest.raises(UnusableResponseError, match="a call event is not shaped as documented"):
        Lines()(event({"type": "call", "index": 0}))


def test_a_field_of_the_wrong_kind_names_the_event_and_the_field() -> None:
    with pytest.raises(UnusableResponseError, match="a text event lacks its text"):
        Lines()(event({"type": "text", "text": 7}))


def test_a_call_is_begun_once_at_its_index() -> None:
    lines = Lines()
    call = {"type": "call", "index": 3, "call": {"id": "c1", "name": "f"}}

    assert lines(event(call)) == (ToolCallBegun(3, "c1", "f"),)
    assert lines.calls == {3: ("c1", "f")}
    with pytest.raises(UnusableResponseError, match="a second call began at index 3"):
        lines(event({**call, "call": {"id": "c2", "name": "g"}}))


def test_a_call_without_a_string_id_and_name_is_refused_with_the_formats_words() -> None:
    with pytest.raises(UnusableResponseError, match="no id"):
        Lines()(event({"type": "call", "index": 0, "call": {"name": "f"}}))


def test_a_second_call_is_refused_with_the_formats_words_and_its_index() -> None:
    lines = Lines()
    lines.begin_call(0, "c1", "f", lacking="")

    with pytest.raises(UnusableResponseError, match="two calls at 0"):
        lines.begin_call(0, "c2", "g", lacking="", twice="two calls at {index}")


def test_a_translator_says_whether_the_request_declared_hosted_tools() -> None:
    assert Lines().hosted is False
    assert Lines(hosted=True).hosted is True


def test_the_turn_end_carries_the_finish_reason_in_the_cores_words_and_what_was_kept() -> None:
    lines = Lines()
    lines.response_id, lines.response_model = "r1", "m-2026"
    usage = Usage(input_tokens=3, output_tokens=2)

    end = lines.turn_end(usage, "max_tokens", {"max_tokens": "length"})

    assert end == TurnEnd(usage, "length", "r1", response_model="m-2026")
    assert lines.turn_end(usage, None, {}).finish_reason == "stop"


def test_a_turn_that_began_a_call_ends_with_tool_calls_whatever_its_reason() -> None:
    lines = Lines()
    lines.begin_call(0, "c1", "f", lacking="")

    assert lines.turn_end(Usage(), "end_turn", {"end_turn": "stop"}).finish_reason == "tool_calls"


def test_a_call_streamed_in_fragments_begins_with_the_first_and_gathers_the_rest() -> None:
    lines = Lines()

    first = lines.call_fragment(0, "c1", "f", '{"a"', lacking="no id")
    again = lines.call_fragment(0, "c1", None, ": 1}", lacking="no id")
    silent = lines.call_fragment(0, None, "f", "", lacking="no id")

    assert first == [ToolCallBegun(0, "c1", "f"), ToolCallArguments(0, '{"a"')]
    assert again == [ToolCallArguments(0, ": 1}")]
    assert silent == []
    assert lines.calls == {0: ("c1", "f")}


def test_a_first_fragment_without_its_id_and_name_is_refused_with_the_formats_words() -> None:
    with pytest.raises(UnusableResponseError, match="no id"):
        Lines().call_fragment(0, None, None, "{}", lacking="no id")


def test_a_fragment_naming_another_call_at_an_open_index_is_refused_never_folded_in() -> None:
    lines = Lines()
    lines.call_fragment(1, "c1", "f", "", lacking="")

    with pytest.raises(UnusableResponseError, match="at index 1 names another call"):
        lines.call_fragment(1, "c2", None, "{}", lacking="")
    with pytest.raises(UnusableResponseError, match="two calls cannot share an index"):
        lines.call_fragment(1, None, "g", "{}", lacking="")
