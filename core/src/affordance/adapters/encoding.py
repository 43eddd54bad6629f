"""Building a provider's request: the conventions most wire formats share.

Call arguments echoed back as JSON text, and the caller's ``extra_body`` merged last.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from affordance._json import loads
from affordance.runtime.model.messages import ToolCall

__all__ = ["arguments_json", "arguments_text", "merge_extra_body"]


def arguments_text(call: ToolCall) -> str:
    """A call's arguments as JSON text, as received when the provider sent text."""
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(dict(call.arguments), ensure_ascii=False, separators=(",", ":"))


def arguments_json(call: ToolCall) -> Any:
    """A call's arguments as a JSON value (for providers that send objects), or ``{}`` when the
    model's text was not JSON — it was reported to the model as a failed call already."""
    if not isinstance(call.arguments, str):
        return dict(call.arguments)
    try:
        value = loads(call.arguments) if call.arguments.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def merge_extra_body(body: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge the caller's ``extra_body`` into ``body``: the caller wins, except that two objects
    under one key are merged (``text.verbosity`` next to our ``text.format``)."""
    for key, value in extra.items():
        ours = body.get(key)
        if isinstance(ours, Mapping) and isinstance(value, Mapping):
            body[key] = {**ours, **value}
        else:
            body[key] = value
