"""Reading MCP items of a provider's response defensively: arguments, result text, listed
tools. A value that cannot be read is skipped through the core's ``ItemReader`` (one
metadata-only warning), never raised."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from affordance.tools import ItemReader, Position
from affordance_mcp.hosted.result import MCPListedTool

__all__ = ["arguments_of", "listed_tools", "string", "text_of"]


def string(mapping: Mapping[str, Any], key: str) -> str | None:
    """``mapping[key]`` when it is a non-empty string."""
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def arguments_of(value: Any, read: ItemReader, position: Position) -> dict[str, Any]:
    """A call's arguments as a JSON object: an object as given, a JSON string parsed. Anything
    else is kept as ``{"value": ...}`` — the parsed JSON value, or the text that is no JSON —
    with a warning, so a person asked to approve the call still sees what it holds."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        read.skip(position, "not an object or a JSON string")
        return {"value": value}
    if not value.strip():
        return {}
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        read.skip(position, "not JSON")
        return {"value": value}
    if isinstance(parsed, dict):
        return parsed
    read.skip(position, "not a JSON object")
    return {"value": parsed}


def text_of(content: Any, read: ItemReader, position: Position) -> str | None:
    """The text of a tool's result: a string as given, or the ``text`` of each text block of
    a list (MCP content, Anthropic text blocks), joined in order. Blocks of other types (an
    image) hold no text and are passed over; None when there is no text at all."""
    if content is None or isinstance(content, str):
        return content
    texts: list[str] = []
    for index, block in read.objects(content, position):
        if block.get("type", "text") != "text":
            continue
        text = read.text(block.get("text"), (*position, index, "text"))
        if text is not None:
            texts.append(text)
    return "".join(texts) if texts else None


def listed_tools(
    tools: Any, server: str, read: ItemReader, position: Position
) -> list[MCPListedTool]:
    """The tools of one server's listing; an entry without a name is skipped."""
    found: list[MCPListedTool] = []
    for index, entry in read.objects(tools, position):
        name = string(entry, "name")
        if name is None:
            read.skip((*position, index), "no name")
            continue
        schema = entry.get("input_schema")
        description = read.text(entry.get("description"), (*position, index, "description"))
        found.append(
            MCPListedTool(
                server=server,
                name=name,
                description=description,
                input_schema=dict(schema) if isinstance(schema, Mapping) else {},
            )
        )
    return found
