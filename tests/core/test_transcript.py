"""``affordance.transcript``: a transcript written with ``dumps`` reads back equal with ``loads``
(each call's arguments as the string or object they were, provider items verbatim, key order
included); the format is pinned by a golden document; anything else raises a
``TranscriptError`` that names the message and field, or a ``TranscriptVersionError``."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from typing import Any

import pytest
from hostile_json import HOSTILE, one_place_changed
from hypothesis import given, settings
from hypothesis import strategies as st

from affordance.adapters import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.attachments import Document, Image
from affordance.errors import AffordanceError, TranscriptError, TranscriptVersionError
from affordance.transcript import FORMAT, MAX_DEPTH, VERSION, dumps, from_data, loads, to_data

# -- strategies ------------------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=16,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=5)
"""Provider items and argument objects: JSON objects nesting anything, keys in any order and
in any script (``st.text`` draws from all of Unicode but the surrogates)."""

tool_calls = st.builds(
    ToolCall,
    id=st.text(),
    name=st.text(),
    arguments=st.text() | json_objects,  # OpenAI's JSON string, or Anthropic's/Google's object
)
PNG = b"\x89PNG\r\n\x1a\n"
images = st.builds(Image, data=st.binary(max_size=64).map(lambda tail: PNG + tail)) | st.builds(
    Image,
    url=st.just("https://example.com/chart.png"),
    media_type=st.none() | st.just("image/png"),
)
documents = st.builds(
    Document,
    data=st.binary(max_size=64).map(lambda tail: b"%PDF-1.7" + tail),
    name=st.none() | st.text(),
) | st.builds(Document, data=st.binary(max_size=32), media_type=st.just("text/plain"))
attachments = st.lists(images | documents, max_size=3).map(tuple)
user_messages = st.builds(UserMessage, text=st.text(), attachments=attachments)
assistant_messages = st.builds(
    AssistantMessage,
    text=st.none() | st.text(),
    tool_calls=st.lists(tool_calls, max_size=3).map(tuple),
    provider_items=st.lists(json_objects, max_size=3).map(tuple),
    provider=st.none() | st.sampled_from(["openai", "openai-chat", "anthropic", "google"]),
)
tool_results = st.builds(
    ToolResultMessage,
    call_id=st.text(),
    name=st.text(),
    content=st.text(),
    is_error=st.booleans(),
    attachments=attachments,
)
transcripts = st.lists(st.one_of(user_messages, assistant_messages, tool_results), max_size=6).map(
    tuple
)


# -- round trips ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(messages=transcripts)
def test_any_transcript_reads_back_equal_and_writes_the_same_text(
    messages: tuple[Message, ...],
) -> None:
    text = dumps(messages)

    loaded = loads(text)

    assert loaded == messages
    assert dumps(loaded) == text  # key order and number spelling included
    for before, after in zip(messages, loaded, strict=True):
        if isinstance(before, AssistantMessage):
            assert isinstance(after, AssistantMessage)
            kinds = [type(c.arguments) is str for c in before.tool_calls]
            assert [type(c.arguments) is str for c in after.tool_calls] == kinds
            assert [list(i) for i in after.provider_items] == [
                list(i) for i in before.provider_items
            ]


@settings(max_examples=100, deadline=None)
@given(messages=transcripts)
def test_a_transcript_embedded_in_other_json_reads_back_equal(
    messages: tuple[Message, ...],
) -> None:
    record = json.dumps({"id": 7, "transcript": to_data(messages)})

    assert from_data(json.loads(record)["transcript"]) == messages


@settings(max_examples=50, deadline=None)
@given(messages=transcripts)
def test_bytes_read_as_the_text_does(messages: tuple[Message, ...]) -> None:
    text = dumps(messages)

    assert loads(text.encode()) == messages
    assert loads(text.encode("utf-16")) == messages


def test_a_lone_surrogate_is_written_escaped_so_the_text_is_utf8() -> None:
    """Not Unicode text, but a Python string can hold one (a JSON escape a provider sent)."""
    messages = (UserMessage("Zürich \ud800"), AssistantMessage(provider_items=({"k\udfff": 1},)))

    text = dumps(messages)

    assert "\\ud800" in text
    assert loads(text.encode()) == messages


def test_writing_and_reading_share_nothing_with_the_caller() -> None:
    item = {"type": "reasoning", "summary": [{"text": "a"}]}
    message = AssistantMessage("x", (ToolCall("c", "f", {"a": [1]}),), (item,), "openai")

    data = to_data([message])
    data["messages"][0]["provider_items"][0]["summary"].append("written")
    loaded = from_data(data)
    data["messages"][0]["provider_items"][0]["summary"].append("read")

    assert item == {"type": "reasoning", "summary": [{"text": "a"}]}
    assert loaded[0] == AssistantMessage(
        "x",
        (ToolCall("c", "f", {"a": [1]}),),
        ({"type": "reasoning", "summary": [{"text": "a"}, "written"]},),
        "openai",
    )


# -- the format ----------------------------------------------------------------------------------

SMALL = (
    UserMessage("Wie wird das Wetter in Zürich? ☀"),
    AssistantMessage(
        "Checking.",
        (
            ToolCall("call_1", "forecast", '{"city": "Zürich",  "days":1}'),
            ToolCall("toolu_2", "alerts", {"regions": ["ZH"], "severe": True}),
        ),
        ({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA=="},),
        "openai",
    ),
    ToolResultMessage("call_1", "forecast", "Zürich: 14.5 c"),
    ToolResultMessage("toolu_2", "alerts", "alert service down", is_error=True),
    AssistantMessage("Mild."),
    AssistantMessage(),
)
GOLDEN = (
    '{"format":"affordance.transcript","version":1,"messages":['
    '{"role":"user","text":"Wie wird das Wetter in Zürich? ☀"},'
    '{"role":"assistant","text":"Checking.","tool_calls":['
    '{"id":"call_1","name":"forecast","arguments":"{\\"city\\": \\"Zürich\\",  \\"days\\":1}"},'
    '{"id":"toolu_2","name":"alerts","arguments":{"regions":["ZH"],"severe":true}}],'
    '"provider_items":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA=="}],'
    '"provider":"openai"},'
    '{"role":"tool","call_id":"call_1","name":"forecast","content":"Zürich: 14.5 c"},'
    '{"role":"tool","call_id":"toolu_2","name":"alerts","content":"alert service down",'
    '"is_error":true},'
    '{"role":"assistant","text":"Mild."},'
    '{"role":"assistant"}]}'
)


def test_a_small_transcript_is_written_exactly_as_the_golden_text() -> None:
    assert dumps(SMALL) == GOLDEN
    assert loads(GOLDEN) == SMALL
    assert (FORMAT, VERSION) == ("affordance.transcript", 2)
    assert to_data(SMALL)["version"] == 1  # no attachments: the oldest version that holds it


def test_fields_at_their_defaults_read_when_present() -> None:
    """The shape taskchat stored before the format: every field written, defaults included."""
    spelled_out = {
        "format": "affordance.transcript",
        "version": 1,
        "messages": [
            {
                "role": "assistant",
                "text": None,
                "tool_calls": [],
                "provider_items": [],
                "provider": None,
            },
            {"role": "tool", "call_id": "c", "name": "f", "content": "ok", "is_error": False},
        ],
    }

    assert from_data(spelled_out) == (AssistantMessage(), ToolResultMessage("c", "f", "ok"))


def test_an_empty_transcript_is_a_document_with_no_messages() -> None:
    assert dumps(()) == '{"format":"affordance.transcript","version":1,"messages":[]}'
    assert loads(dumps(())) == ()


def test_values_nested_exactly_max_depth_deep_are_kept() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    message = AssistantMessage(provider_items=({"deep": deep},))

    assert loads(dumps([message])) == (message,)


# -- errors when reading ---------------------------------------------------------------------------

MISSING: Any = object()


def document(*messages: Any, **top: Any) -> str:
    """A version 1 document of ``messages``; ``top`` adds or replaces top-level fields."""
    fields = {"format": FORMAT, "version": 1, "messages": list(messages), **top}
    return json.dumps({key: value for key, value in fields.items() if value is not MISSING})


def assistant(**fields: Any) -> dict[str, Any]:
    return {"role": "assistant", **fields}


def tool(**changes: Any) -> dict[str, Any]:
    fields = {"role": "tool", "call_id": "c", "name": "f", "content": "x", **changes}
    return {key: value for key, value in fields.items() if value is not MISSING}


def call(**changes: Any) -> dict[str, Any]:
    fields = {"id": "c", "name": "f", "arguments": "{}", **changes}
    return assistant(tool_calls=[{k: v for k, v in fields.items() if v is not MISSING}])


def item(value: str) -> str:
    """A document whose provider item has ``value`` (raw JSON text) at key ``t``."""
    return document(assistant(provider_items=[{"t": 0}])).replace('"t": 0', f'"t": {value}')


def item_nested(depth: int) -> str:
    """A document whose provider item is ``depth`` deep: the item, then arrays inside it."""
    return item("[" * (depth - 1) + "]" * (depth - 1))


ITEM = "messages[0].provider_items[0]"
CALL = "messages[0].tool_calls[0]"
PARSER_DEPTH = "nested too deeply for the JSON parser"

MALFORMED: dict[str, tuple[str | bytes, str, str]] = {
    # name: (document, where, a part of the reason)
    "empty": ("", "", "not JSON"),
    "not-json": ("transcript", "", "not JSON"),
    "truncated": (document()[:-1], "", "not JSON"),
    "trailing-data": (document() + " x", "", "not JSON"),
    "not-utf8": (b'{"format": "\xff"}', "", "not JSON"),
    "an-array": ("[]", "", "expected a transcript object, got an array"),
    "null": ("null", "", "expected a transcript object, got null"),
    "no-format": (document(format=MISSING), "format", "its format is missing"),
    "other-format": (document(format="chat"), "format", "the string 'chat', not"),
    "no-version": (document(version=MISSING), "version", "missing field"),
    "version-string": (document(version="1"), "version", "expected a positive integer"),
    "version-bool": (document(version=True), "version", "got true"),
    "version-zero": (document(version=0), "version", "got the number 0"),
    "version-float": (document(version=1.0), "version", "got the number 1.0"),
    "version-huge": (document(version=10**40), "version", "got a 133-bit integer"),
    "no-messages": (document(messages=MISSING), "messages", "missing field"),
    "messages-object": (document(messages={}), "messages", "expected an array, got an object"),
    "unknown-top-field": (document(title="x"), "", "unknown field the string 'title'"),
    "message-string": (document("hi"), "messages[0]", "expected a message object"),
    "no-role": (document({"text": "x"}), "messages[0].role", "missing field"),
    "unknown-role": (
        document({"role": "system", "text": "x"}),
        "messages[0].role",
        "unknown role the string 'system'; expected 'user', 'assistant' or 'tool'",
    ),
    "role-number": (document({"role": 1}), "messages[0].role", "unknown role the number 1"),
    "user-no-text": (document({"role": "user"}), "messages[0].text", "missing field"),
    "user-null-text": (
        document({"role": "user", "text": None}),
        "messages[0].text",
        "expected a string, got null",
    ),
    "user-attachments": (
        document({"role": "user", "text": "x", "attachments": []}),
        "messages[0]",
        "unknown field the string 'attachments' for a user message; allowed: role, text",
    ),
    "assistant-text-number": (
        document({"role": "user", "text": "a"}, assistant(text=3)),
        "messages[1].text",
        "expected a string, got the number 3",
    ),
    "tool-calls-object": (
        document(assistant(tool_calls={})),
        "messages[0].tool_calls",
        "expected an array, got an object",
    ),
    "tool-calls-null": (document(assistant(tool_calls=None)), "messages[0].tool_calls", "null"),
    "call-string": (document(assistant(tool_calls=["c"])), CALL, "expected a tool call object"),
    "call-no-id": (document(call(id=MISSING)), f"{CALL}.id", "missing field"),
    "call-id-number": (document(call(id=1)), f"{CALL}.id", "expected a string"),
    "call-name-null": (document(call(name=None)), f"{CALL}.name", "expected a string, got null"),
    "call-no-arguments": (document(call(arguments=MISSING)), f"{CALL}.arguments", "missing"),
    "arguments-number": (
        document(call(arguments=3)),
        f"{CALL}.arguments",
        "expected a string or an object (the call's arguments), got the number 3",
    ),
    "arguments-array": (document(call(arguments=[])), f"{CALL}.arguments", "got an array"),
    "call-unknown-field": (
        document(call(type="function")),
        CALL,
        "unknown field the string 'type' for a tool call; allowed: id, name, arguments",
    ),
    "items-object": (
        document(assistant(provider_items={})),
        "messages[0].provider_items",
        "expected an array",
    ),
    "item-array": (
        document(assistant(provider_items=[[1]])),
        ITEM,
        "expected an object, got an array",
    ),
    "provider-number": (
        document(assistant(provider=3)),
        "messages[0].provider",
        "expected a string",
    ),
    "tool-no-content": (document(tool(content=MISSING)), "messages[0].content", "missing"),
    "tool-null-content": (document(tool(content=None)), "messages[0].content", "got null"),
    "is-error-string": (
        document(tool(is_error="false")),
        "messages[0].is_error",
        "expected true or false, got the string 'false'",
    ),
    "is-error-number": (document(tool(is_error=0)), "messages[0].is_error", "the number 0"),
    "too-deep-for-the-parser": (item("[" * 100_000 + "]" * 100_000), "", PARSER_DEPTH),
    "array-too-deep-for-the-parser": ("[" * 100_000, "", PARSER_DEPTH),
    "item-deeper-than-max-depth": (
        item_nested(MAX_DEPTH + 1),
        f"{ITEM}.t" + "[0]" * (MAX_DEPTH - 1),
        f"nested deeper than {MAX_DEPTH} levels",
    ),
    "integer-too-long": (item("9" * 5000), "", "not JSON: Exceeds the limit"),
    "number-overflowing": (item("1e999"), f"{ITEM}.t", "inf is not a JSON number"),
    "nan": (item("NaN"), f"{ITEM}.t", "nan is not a JSON number"),
    "infinity-in-arguments": (
        document(call(arguments={"x": 0})).replace('"x": 0', '"x": -Infinity'),
        f"{CALL}.arguments.x",
        "-inf is not a JSON number",
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_documents_raise_a_transcript_error_naming_the_place(name: str) -> None:
    text, where, reason = MALFORMED[name]

    with pytest.raises(TranscriptError) as raised:
        loads(text)

    error = raised.value
    assert type(error) is TranscriptError
    assert (error.where, reason in error.reason) == (where, True), error.reason
    shown = f"transcript at {where}: " if where else "transcript: "
    assert str(error) == shown + error.reason
    # raised from nothing: no KeyError, TypeError or RecursionError chained behind it
    assert error.__context__ is None or error.__suppress_context__


def test_a_transcript_error_is_a_value_error_of_the_library() -> None:
    assert issubclass(TranscriptError, ValueError)
    assert issubclass(TranscriptError, AffordanceError)
    assert issubclass(TranscriptVersionError, TranscriptError)


def test_data_that_is_not_a_document_raises_a_transcript_error() -> None:
    with pytest.raises(TranscriptError, match="expected a transcript object, got an array"):
        from_data([{"role": "user", "text": "x"}])
    with pytest.raises(TranscriptError) as raised:
        from_data(
            {
                "format": FORMAT,
                "version": 1,
                "messages": [{"role": "assistant", "provider_items": [{1: "x"}]}],
            }
        )
    assert raised.value.path == ("messages", 0, "provider_items", 0)
    assert "object keys must be strings, got the number 1" in str(raised.value)


def test_text_that_is_not_a_string_or_bytes_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="loads reads JSON text"):
        loads(None)  # type: ignore[arg-type]


VALID = json.loads(dumps(SMALL))


@HOSTILE
@given(changed=one_place_changed(VALID))
def test_a_document_changed_in_any_one_place_reads_or_raises_a_transcript_error(
    changed: Any,
) -> None:
    try:
        messages = from_data(changed)
    except TranscriptError:
        return
    assert loads(dumps(messages)) == messages


# -- versions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "newer",
    [
        {"format": FORMAT, "version": 3, "messages": []},
        # a newer version may hold fields, roles and shapes this one does not know
        {
            "format": FORMAT,
            "version": 3,
            "messages": [{"role": "user", "text": "x", "audio": [{"type": "clip"}]}],
        },
        {"format": FORMAT, "version": 7, "messages": {"shape": "new"}, "index": []},
    ],
    ids=["empty", "new-fields", "new-shape"],
)
def test_a_newer_version_raises_a_version_error_naming_both_versions(newer: dict[str, Any]) -> None:
    with pytest.raises(TranscriptVersionError) as raised:
        loads(json.dumps(newer))

    error = raised.value
    assert (error.found, error.supported) == (newer["version"], 2)
    assert error.path == ("version",)
    assert str(error) == (
        f"transcript: format version {newer['version']} is newer than the newest this affordance "
        "reads, version 2; upgrade affordance to read it"
    )


# -- errors when writing ---------------------------------------------------------------------------

AT = datetime(2025, 1, 1, tzinfo=timezone.utc)
UNWRITABLE: dict[str, tuple[Any, str, str]] = {
    # name: (the message, where, a part of the reason)
    "not-a-message": ("hi", "messages[0]", "expected a UserMessage, AssistantMessage or "),
    "text-none": (
        UserMessage(None),  # type: ignore[arg-type]
        "messages[0].text",
        "expected a string, got null",
    ),
    "call-not-a-toolcall": (
        AssistantMessage(tool_calls=("c",)),  # type: ignore[arg-type]
        "messages[0].tool_calls[0]",
        "expected a ToolCall, got str",
    ),
    "arguments-number": (
        AssistantMessage(tool_calls=(ToolCall("c", "f", 3),)),  # type: ignore[arg-type]
        "messages[0].tool_calls[0].arguments",
        "expected a string or an object",
    ),
    "datetime": (AssistantMessage(provider_items=({"at": AT},)), f"{ITEM}.at", "a datetime is"),
    "set": (AssistantMessage(provider_items=({"ids": {1}},)), f"{ITEM}.ids", "a set is not JSON"),
    "nan": (
        AssistantMessage(provider_items=({"p": float("nan")},)),
        f"{ITEM}.p",
        "nan is not a JSON number",
    ),
    "int-key": (AssistantMessage(provider_items=({2: "x"},)), ITEM, "keys must be strings"),
    "item-array": (
        AssistantMessage(provider_items=(["x"],)),  # type: ignore[arg-type]
        ITEM,
        "expected an object, got an array",
    ),
    "is-error-int": (
        ToolResultMessage("c", "f", "x", is_error=1),  # type: ignore[arg-type]
        "messages[0].is_error",
        "expected true or false",
    ),
}


@pytest.mark.parametrize("name", UNWRITABLE)
def test_what_the_format_cannot_hold_is_refused_when_written(name: str) -> None:
    message, where, reason = UNWRITABLE[name]

    with pytest.raises(TranscriptError) as raised:
        dumps([message])

    assert (raised.value.where, reason in raised.value.reason) == (where, True), raised.value


def test_a_value_nested_deeper_than_max_depth_is_refused_when_written() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = [deep]

    with pytest.raises(TranscriptError, match=f"nested deeper than {MAX_DEPTH} levels"):
        dumps([AssistantMessage(provider_items=({"deep": deep},))])


def test_a_cyclic_provider_item_is_refused_not_a_recursion_error() -> None:
    item: dict[str, Any] = {"type": "x"}
    item["self"] = item

    with pytest.raises(TranscriptError, match="nested deeper than"):
        dumps([AssistantMessage(provider_items=(item,))])


# -- importing -----------------------------------------------------------------------------------


def test_importing_it_loads_no_runtime_and_importing_affordance_does_not_load_it() -> None:
    code = (
        "import sys, affordance\n"
        "assert 'affordance.transcript' not in sys.modules\n"
        "import affordance.transcript\n"
        "print(*sorted(m for m in sys.modules if m.startswith('affordance')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    loaded = done.stdout.split()
    assert "affordance.transcript" in loaded
    assert not [m for m in loaded if m.startswith(("affordance.runtime", "affordance.adapters"))]
