"""The original texts an override replaces, and the hashes that tie an override to them.

A section's original is its template (for a section rendered from one) and its summary; a
tool's is its description, its parameters' JSON Schema (field descriptions included) and its
examples. The hash is SHA-256 over the canonical JSON of the original, written
``"sha256:<hex>"``: any change to what the override was written against changes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from affordance.prompt.section import Section
    from affordance.tools.tool import Tool, ToolExample

__all__ = ["content_hash", "example_json", "section_hash", "section_original", "tool_hash"]


def content_hash(value: object) -> str:
    """``"sha256:<hex>"`` of ``value``'s canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def section_original(section: Section[Any]) -> Mapping[str, str | None]:
    """What a section override may replace: ``template`` and ``summary`` (``None``: none)."""
    return {"template": section.template_source(), "summary": section.summary}


def section_hash(section: Section[Any]) -> str:
    return content_hash(section_original(section))


def tool_original(tool: Tool[Any, Any]) -> Mapping[str, Any]:
    return {
        "description": tool.description,
        "parameters": tool.parameters_schema(),
        "examples": [example_json(example) for example in tool.examples],
    }


def tool_hash(tool: Tool[Any, Any]) -> str:
    return content_hash(tool_original(tool))


def example_json(example: ToolExample[Any, Any]) -> Mapping[str, Any]:
    """A tool example in the overrides file's form: ``description``, ``input``, ``output``."""
    from affordance.serde import dump

    return {
        "description": example.description,
        "input": dump(example.input),
        "output": dump(example.output),
    }
