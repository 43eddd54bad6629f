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
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from affordance._json import loads as _json_loads
from affordance.errors import TranscriptError, TranscriptVersionError

if TYPE_CHECKING:
    from affordance.attachments import Attachment
    from affordance.runtime.model.messages import Message, ToolCall

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

MAX_DEPTH = 64
"""The deepest a value inside a message (a provider item, a call's arguments object) may nest,
counted as the objects and arrays that enclose a scalar in it, itself included (as
``affordance.serde.MAX_DEPTH`` counts): ``{"a": [1]}`` is 2 deep."""

_Path = tuple[str | int, ...]
"""Where a value is: keys and indices from the document's root."""

_TOP_FIELDS = ("format", "version", "messages")
_ROLE_FIELDS: dict[str, tuple[str, ...]] = {
    "user": ("role", "text", "attachments"),
    "assistant": ("role", "text", "tool_calls", "provider_items", "provider"),
    "tool": ("role", "call_id", "name", "content", "is_error", "attachments"),
}
_CALL_FIELDS = ("id", "name", "arguments")
_ATTACHMENT_FIELDS = ("type", "media_type", "data", "url", "name")


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
    written = [_message_data(message, ("messages", i)) for i, message in enumerate(messages)]
    version = 2 if any("attachments" in message for message in written) else 1
    return {"format": FORMAT, "version": version, "messages": written}


def _message_data(message: object, path: _Path) -> dict[str, Any]:
    from affordance.runtime.model.messages import (
        AssistantMessage,
        ToolResultMessage,
        UserMessage,
    )

    data: dict[str, Any]
    if isinstance(message, UserMessage):
        data = {"role": "user", "text": _string(message.text, (*path, "text"))}
        if message.attachments:
            data["attachments"] = _attachments_data(message.attachments, path)
        return data
    if isinstance(message, AssistantMessage):
        data = {"role": "assistant"}
        if message.text is not None:
            data["text"] = _string(message.text, (*path, "text"))
        if message.tool_calls:
            data["tool_calls"] = [
                _call_data(call, (*path, "tool_calls", i))
                for i, call in enumerate(message.tool_calls)
            ]
        if message.provider_items:
            data["provider_items"] = [
                _object(item, (*path, "provider_items", i), 1)
                for i, item in enumerate(message.provider_items)
            ]
        if message.provider is not None:
            data["provider"] = _string(message.provider, (*path, "provider"))
        return data
    if isinstance(message, ToolResultMessage):
        data = {
            "role": "tool",
            "call_id": _string(message.call_id, (*path, "call_id")),
            "name": _string(message.name, (*path, "name")),
            "content": _string(message.content, (*path, "content")),
        }
        if _boolean(message.is_error, (*path, "is_error")):
            data["is_error"] = True
        if message.attachments:
            data["attachments"] = _attachments_data(message.attachments, path)
        return data
    raise TranscriptError(
        "expected a UserMessage, AssistantMessage or ToolResultMessage, got "
        f"{type(message).__qualname__}",
        path=path,
    )


def _attachments_data(attachments: object, path: _Path) -> list[dict[str, Any]]:
    """A message's attachments: ``{"type": "image"|"document", "media_type", "data"}`` (the
    bytes in base64) or ``{"type", "url"}`` (with ``media_type`` when known), a document's
    ``name`` when it has one."""
    from affordance.attachments import Document, Image

    path = (*path, "attachments")
    if not isinstance(attachments, (tuple, list)):
        raise TranscriptError(f"expected a tuple, got {_described(attachments)}", path=path)
    written = []
    for i, attachment in enumerate(attachments):
        if not isinstance(attachment, (Image, Document)):
            raise TranscriptError(
                f"expected an Image or a Document, got {type(attachment).__qualname__}",
                path=(*path, i),
            )
        data: dict[str, Any] = {"type": "image" if isinstance(attachment, Image) else "document"}
        if attachment.media_type is not None:
            data["media_type"] = attachment.media_type
        if attachment.data is not None:
            data["data"] = attachment.base64()
        else:
            data["url"] = attachment.url
        if isinstance(attachment, Document) and attachment.name is not None:
            data["name"] = attachment.name
        written.append(data)
    return written


def _call_data(call: object, path: _Path) -> dict[str, Any]:
    from affordance.runtime.model.messages import ToolCall

    if not isinstance(call, ToolCall):
        raise TranscriptError(f"expected a ToolCall, got {type(call).__qualname__}", path=path)
    return {
        "id": _string(call.id, (*path, "id")),
        "name": _string(call.name, (*path, "name")),
        "arguments": _arguments(call.arguments, (*path, "arguments")),
    }


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
        raise TranscriptError(f"expected a transcript object, got {_described(data)}")
    found = data.get("format")
    if found != FORMAT:
        reason = "missing" if "format" not in data else f"{_described(found)}, not {FORMAT!r}"
        raise TranscriptError(f"not a transcript: its format is {reason}", path=("format",))
    version = _version(data)
    if version > VERSION:  # before anything else: a newer version may hold anything
        raise TranscriptVersionError(version, VERSION)
    _check_fields(data, _TOP_FIELDS, (), "a transcript")
    messages = _required(data, "messages", ())
    if not isinstance(messages, (list, tuple)):
        raise TranscriptError(f"expected an array, got {_described(messages)}", path=("messages",))
    return tuple(_message(item, ("messages", i), version) for i, item in enumerate(messages))


def _version(data: Mapping[str, Any]) -> int:
    if "version" not in data:
        raise TranscriptError("missing field", path=("version",))
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version < 2**31:
        raise TranscriptError(
            f"expected a positive integer, got {_described(version)}", path=("version",)
        )
    return version


def _message(data: Any, path: _Path, version: int) -> Message:
    from affordance.runtime.model.messages import (
        AssistantMessage,
        ToolResultMessage,
        UserMessage,
    )

    if not isinstance(data, Mapping):
        raise TranscriptError(f"expected a message object, got {_described(data)}", path=path)
    if "role" not in data:
        raise TranscriptError("missing field", path=(*path, "role"))
    role = data["role"]
    fields = _ROLE_FIELDS.get(role) if isinstance(role, str) else None
    if fields is None:
        raise TranscriptError(
            f"unknown role {_described(role)}; expected 'user', 'assistant' or 'tool'",
            path=(*path, "role"),
        )
    if version < 2:  # attachments came with version 2
        fields = tuple(name for name in fields if name != "attachments")
    _check_fields(
        data, fields, path, "an assistant message" if role == "assistant" else f"a {role} message"
    )
    if role == "user":
        return UserMessage(
            _string(_required(data, "text", path), (*path, "text")),
            _attachments(data.get("attachments", ()), (*path, "attachments")),
        )
    if role == "assistant":
        text = data.get("text")
        provider = data.get("provider")
        return AssistantMessage(
            text=None if text is None else _string(text, (*path, "text")),
            tool_calls=tuple(
                _call(call, (*path, "tool_calls", i))
                for i, call in enumerate(_array(data.get("tool_calls", ()), (*path, "tool_calls")))
            ),
            provider_items=tuple(
                _object(item, (*path, "provider_items", i), 1)
                for i, item in enumerate(
                    _array(data.get("provider_items", ()), (*path, "provider_items"))
                )
            ),
            provider=None if provider is None else _string(provider, (*path, "provider")),
        )
    return ToolResultMessage(
        call_id=_string(_required(data, "call_id", path), (*path, "call_id")),
        name=_string(_required(data, "name", path), (*path, "name")),
        content=_string(_required(data, "content", path), (*path, "content")),
        is_error=_boolean(data.get("is_error", False), (*path, "is_error")),
        attachments=_attachments(data.get("attachments", ()), (*path, "attachments")),
    )


def _attachments(data: Any, path: _Path) -> tuple[Attachment, ...]:
    from affordance.attachments import Document, Image
    from affordance.errors import AttachmentError

    read: list[Attachment] = []
    for i, item in enumerate(_array(data, path)):
        where = (*path, i)
        if not isinstance(item, Mapping):
            raise TranscriptError(
                f"expected an attachment object, got {_described(item)}", path=where
            )
        _check_fields(item, _ATTACHMENT_FIELDS, where, "an attachment")
        kind = _required(item, "type", where)
        if kind not in ("image", "document"):
            raise TranscriptError(
                f"expected 'image' or 'document', got {_described(kind)}", path=(*where, "type")
            )
        if kind == "image" and "name" in item:
            raise TranscriptError("an image has no name", path=(*where, "name"))
        media_type = item.get("media_type")
        fields: dict[str, Any] = {
            "media_type": None
            if media_type is None
            else _string(media_type, (*where, "media_type"))
        }
        if "data" in item:
            text = _string(item["data"], (*where, "data"))
            try:
                fields["data"] = base64.b64decode(text, validate=True)
            except ValueError:
                raise TranscriptError("expected base64", path=(*where, "data")) from None
        if "url" in item:
            fields["url"] = _string(item["url"], (*where, "url"))
        if "name" in item:
            fields["name"] = _string(item["name"], (*where, "name"))
        try:
            read.append(Image(**fields) if kind == "image" else Document(**fields))
        except AttachmentError as error:
            raise TranscriptError(str(error), path=where) from None
    return tuple(read)


def _call(data: Any, path: _Path) -> ToolCall:
    from affordance.runtime.model.messages import ToolCall

    if not isinstance(data, Mapping):
        raise TranscriptError(f"expected a tool call object, got {_described(data)}", path=path)
    _check_fields(data, _CALL_FIELDS, path, "a tool call")
    return ToolCall(
        id=_string(_required(data, "id", path), (*path, "id")),
        name=_string(_required(data, "name", path), (*path, "name")),
        arguments=_arguments(_required(data, "arguments", path), (*path, "arguments")),
    )


# -- fields, both ways -------------------------------------------------------------------------


def _check_fields(
    data: Mapping[Any, Any], allowed: tuple[str, ...], path: _Path, what: str
) -> None:
    """Unknown keys are errors: a field this version does not know belongs to a newer one,
    which says so in its ``version`` (see specs/TRANSCRIPT.md, "Versions")."""
    for key in data:
        if key not in allowed:
            raise TranscriptError(
                f"unknown field {_described(key)} for {what}; allowed: {', '.join(allowed)}",
                path=path,
            )


def _required(data: Mapping[str, Any], key: str, path: _Path) -> Any:
    if key not in data:
        raise TranscriptError("missing field", path=(*path, key))
    return data[key]


def _string(value: Any, path: _Path) -> str:
    if not isinstance(value, str):
        raise TranscriptError(f"expected a string, got {_described(value)}", path=path)
    return value


def _boolean(value: Any, path: _Path) -> bool:
    if not isinstance(value, bool):
        raise TranscriptError(f"expected true or false, got {_described(value)}", path=path)
    return value


def _array(value: Any, path: _Path) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise TranscriptError(f"expected an array, got {_described(value)}", path=path)
    return value


def _arguments(value: Any, path: _Path) -> str | dict[str, Any]:
    """A call's arguments: the provider's JSON string as it is, or its object."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return _object(value, path, 1)
    raise TranscriptError(
        f"expected a string or an object (the call's arguments), got {_described(value)}",
        path=path,
    )


def _object(value: Any, path: _Path, depth: int) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TranscriptError(f"expected an object, got {_described(value)}", path=path)
    copied: dict[str, Any] = _json_value(value, path, depth)
    return copied


def _json_value(value: Any, path: _Path, depth: int) -> Any:
    """A copy of the JSON-like ``value`` (objects as dicts in their key order, arrays as
    lists), or a :class:`TranscriptError` for anything JSON cannot hold. ``depth`` counts the
    objects and arrays around ``value``, itself included if it is one."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TranscriptError(f"{value!r} is not a JSON number", path=path)
        return value
    if depth > MAX_DEPTH:
        raise TranscriptError(f"nested deeper than {MAX_DEPTH} levels", path=path)
    if isinstance(value, Mapping):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TranscriptError(
                    f"object keys must be strings, got {_described(key)}", path=path
                )
            copied[key] = _json_value(item, (*path, key), depth + 1)
        return copied
    if isinstance(value, (list, tuple)):
        return [_json_value(item, (*path, i), depth + 1) for i, item in enumerate(value)]
    raise TranscriptError(f"{_described(value)} is not JSON data", path=path)


def _described(value: Any) -> str:
    """``value`` for an error message: short, whatever its size."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else f"the string {value[:36]!r}..."
    if isinstance(value, (int, float)):
        if isinstance(value, int) and abs(value) >= 2**64:  # its digits would be noise
            return f"a {value.bit_length()}-bit integer"
        return f"the number {value!r}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__qualname__}"
