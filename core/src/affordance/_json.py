"""``json.loads`` without its per-call overhead, for the JSON the loop reads on every turn.

``json.loads`` checks its arguments, then ``JSONDecoder.decode`` matches a regular expression
before and after the value. Tool arguments, response bodies and stream events are read on
every turn (a stream: on every event), so :func:`loads` calls the decoder's scanner through
``raw_decode`` and checks the rest is JSON whitespace itself. Anything else — leading
whitespace, a byte order mark, bytes that are not plain UTF-8, invalid JSON — goes to
``json.loads``, so results and errors are exactly ``json.loads``'s.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads"]

_raw_decode = json.JSONDecoder().raw_decode
_WHITESPACE = " \t\n\r"


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``: the same value, or the same error."""
    if not isinstance(text, str):
        if text[:1] not in (b"{", b"["):  # a BOM, whitespace or UTF-16/32: the long way
            return json.loads(text)
        try:
            text = text.decode()
        except UnicodeDecodeError:
            return json.loads(text)
    try:
        value, end = _raw_decode(text)
    except ValueError:
        return json.loads(text)  # its own error, or a value after leading whitespace
    if end == len(text) or not text[end:].strip(_WHITESPACE):
        return value
    return json.loads(text)  # "Extra data"
