"""Function declarations and output formats, built once per tool and per output schema.

Both APIs declare a function the same way except for nesting: Responses is flat
(``{"type": "function", "name": ...}``), Chat nests under ``"function"``. Each is computed once
per :class:`~affordance.Tool` object and cached; the cached dicts are shared by every request
and must not be mutated.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from affordance.tools.tool import Tool
from affordance_openai._nulls import NullPlan
from affordance_openai._schema import StrictSchema, strict_schema

__all__ = ["Declaration", "DeclarationCache", "OutputFormat", "OutputFormatCache"]

_CACHE_SIZE = 1024
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

KeyT = TypeVar("KeyT")
ValueT = TypeVar("ValueT")


@dataclass(frozen=True, slots=True)
class Declaration:
    """One tool on the wire: the Responses and Chat forms, and where its nulls mean absent."""

    responses: Mapping[str, Any]
    chat: Mapping[str, Any]
    strict: bool
    nulls: NullPlan | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class OutputFormat:
    """The structured-output format: ``text.format`` (Responses), ``response_format`` (Chat)."""

    responses: Mapping[str, Any]
    chat: Mapping[str, Any]
    nulls: NullPlan | None


class _IdentityCache(Generic[KeyT, ValueT]):
    """A bounded cache keyed by object identity; it holds its keys so an id is never reused
    while its entry lives (``Tool`` is slotted without ``__weakref__``)."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[KeyT, ValueT]] = {}
        self._lock = threading.Lock()

    def get(self, key: KeyT) -> ValueT | None:
        entry = self._entries.get(id(key))
        return entry[1] if entry is not None and entry[0] is key else None

    def put(self, key: KeyT, value: ValueT) -> ValueT:
        with self._lock:
            if len(self._entries) >= _CACHE_SIZE:
                del self._entries[next(iter(self._entries))]  # the oldest entry
            self._entries[id(key)] = (key, value)
        return value


class DeclarationCache:
    def __init__(self) -> None:
        self._cache: _IdentityCache[Tool[Any, Any], Declaration] = _IdentityCache()

    def declaration(self, tool: Tool[Any, Any]) -> Declaration:
        found = self._cache.get(tool)
        if found is not None:
            return found
        return self._cache.put(tool, _declare(tool))


class OutputFormatCache:
    def __init__(self) -> None:
        self._cache: _IdentityCache[Mapping[str, Any], OutputFormat] = _IdentityCache()

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat:
        found = self._cache.get(schema)
        if found is not None and found.responses["name"] == _wire_name(name):
            return found
        return self._cache.put(schema, _output_format(schema, name))


def _declare(tool: Tool[Any, Any]) -> Declaration:
    converted = strict_schema(tool.parameters_schema())
    function = {
        "name": tool.name,
        "description": tool.description,
        "parameters": converted.schema,
        "strict": converted.strict,
    }
    return Declaration(
        responses={"type": "function", **function},
        chat={"type": "function", "function": function},
        strict=converted.strict,
        nulls=converted.nulls,
        reason=converted.reason,
    )


def _output_format(schema: Mapping[str, Any], name: str) -> OutputFormat:
    converted: StrictSchema = strict_schema(schema)
    fields = {"name": _wire_name(name), "schema": converted.schema, "strict": converted.strict}
    return OutputFormat(
        responses={"type": "json_schema", **fields},
        chat={"type": "json_schema", "json_schema": fields},
        nulls=converted.nulls,
    )


def _wire_name(name: str) -> str:
    """OpenAI names a schema with ``[A-Za-z0-9_-]{1,64}``."""
    return _NAME_UNSAFE.sub("_", name)[:64] or "output"
