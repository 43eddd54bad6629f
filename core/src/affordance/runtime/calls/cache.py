"""Opt-in result caching for tools with ``cache_ttl``: keyed by tool and validated arguments."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from affordance.serde import dump
from affordance.tools.result import ToolResult

__all__ = ["ResultCache", "cache_key"]


def cache_key(tool_name: str, params: Any) -> str:
    """A stable key: the tool name and the canonical JSON of the validated params."""
    data = None if params is None else dump(params)
    return f"{tool_name}:{json.dumps(data, sort_keys=True, separators=(',', ':'))}"


class ResultCache:
    """A bounded, thread-safe LRU of successful results, each with its own expiry time."""

    def __init__(self, max_entries: int = 1024) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[float, ToolResult[Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, now: float) -> ToolResult[Any] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires_at, result = entry
            if now >= expires_at:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return result

    def put(self, key: str, result: ToolResult[Any], expires_at: float) -> None:
        with self._lock:
            self._entries[key] = (expires_at, result)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
