"""A transcript as JSON: one versioned format to store a conversation and resume it later.

A transcript is what ``PromptResponse.messages`` holds and ``evaluate(messages=...)`` takes:
``UserMessage``, ``AssistantMessage`` (with its ``ToolCall``s and provider items) and
``ToolResultMessage``. :func:`dumps` writes it as one JSON document and :func:`loads` reads it
back equal, down to what a resumed run sends the provider: a call's arguments stay the string
or the object the provider sent, provider items stay verbatim, key order included.
:func:`to_data` and :func:`from_data` do the same with the JSON-like data, for callers that
embed a transcript in JSON of their own. The format, field by field: ``specs/TRANSCRIPT.md``.

Reading is strict: anything but a transcript this version of the format describes raises
:class:`TranscriptError` naming the message and field (a newer version of the format:
:class:`TranscriptVersionError`). Importing this module is cheap: the message classes (the
runtime) are imported when a transcript is first written or read.

Here are the format's name, its versions and the documents; a message is written in
``_writing``, read in ``_reading``, and its values are checked both ways in ``_values``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from affordance._json import loads as _json_loads
from affordance.errors import TranscriptError, TranscriptVersionError
from affordance.transcript._reading import read_message
from affordance.transcript._values import MAX_DEPTH, check_fields, described, required
from affordance.transcript._writing import message_data

if TYPE_CHECKING:
    from affordance.runtime.model.messages import Message

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "VERSION",
    "TranscriptError",
    "TranscriptVersionError",
    "dumps",
    "from_data",
    "loads",
    "to_data",
]

FORMAT = "affordance.transcript"
"""The ``"format"`` of every transcript document."""

VERSION = 2
"""The newest version of the format: what :func:`loads` reads up to. :func:`dumps` writes the
oldest version that holds the messages — 1 unless one carries attachments (version 2) — so a
transcript without attachments stays readable by an affordance that knows only version 1."""

_TOP_FIELDS = ("format", "version", "messages")


# -- writing -----------------------------------------------------------------------------------


def dumps(messages: Sequence[Message]) -> str:
    """``messages`` as a transcript document: compact JSON, non-ASCII text as it is (store it
    as UTF-8). Raises :class:`TranscriptError` for what the format cannot hold (an object that
    is not a message, a provider item holding a value JSON cannot write)."""
    data = to_data(messages)
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    except ValueError as error:  # an integer too long for Python to write out
        raise TranscriptError(f"cannot be written as JSON: {error}") from None
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot hold: write its escape
        return json.dumps(data, separators=(",", ":"))
    return text


def to_data(messages: Sequence[Message]) -> dict[str, Any]:
    """``messages`` as the transcript document's JSON-like data (new dicts and lists, sharing
    nothing with the messages), for a caller that writes it inside JSON of its own."""
    written = [message_data(message, ("messages", i)) for i, message in enumerate(messages)]
    version = 2 if any("attachments" in message for message in written) else 1
    return {"format": FORMAT, "version": version, "messages": written}


# -- reading -----------------------------------------------------------------------------------


def loads(text: str | bytes | bytearray) -> tuple[Message, ...]:
    """The messages of a transcript document (``str``, or bytes in UTF-8, -16 or -32).

    Raises :class:`TranscriptError` when ``text`` is not JSON or not a transcript this version
    of the format describes, and :class:`TranscriptVersionError` when it was written in a
    newer version. A ``text`` that is neither a string nor bytes is a ``TypeError``."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"loads reads JSON text (str or bytes), got {type(text).__qualname__}")
    try:
        data = _json_loads(text)
    except RecursionError:
        raise TranscriptError("nested too deeply for the JSON parser") from None
    except ValueError as error:  # not JSON, not UTF-8, or a number too long to read
        raise TranscriptError(f"not JSON: {error}") from None
    return from_data(data)


def from_data(data: Any) -> tuple[Message, ...]:
    """The messages of a transcript document's JSON-like data (what :func:`to_data` gives, or
    ``json.loads`` of what :func:`dumps` gives); raises as :func:`loads` does. The messages
    share nothing with ``data``."""
    if not isinstance(data, Mapping):
        raise TranscriptError(f"expected a transcript object, got {described(data)}")
    found = data.get("format")
    if found != FORMAT:
        reason = "missing" if "format" not in data else f"{described(found)}, not {FORMAT!r}"
        raise TranscriptError(f"not a transcript: its format is {reason}", path=("format",))
    version = _version(data)
    if version > VERSION:  # before anything else: a newer version may hold anything
        raise TranscriptVersionError(version, VERSION)
    check_fields(data, _TOP_FIELDS, (), "a transcript")
    messages = required(data, "messages", ())
    if not isinstance(messages, (list, tuple)):
        raise TranscriptError(f"expected an array, got {described(messages)}", path=("messages",))
    return tuple(read_message(item, ("messages", i), version) for i, item in enumerate(messages))


def _version(data: Mapping[str, Any]) -> int:
    if "version" not in data:
        raise TranscriptError("missing field", path=("version",))
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version < 2**31:
        raise TranscriptError(
            f"expected a positive integer, got {described(version)}", path=("version",)
        )
    return version
