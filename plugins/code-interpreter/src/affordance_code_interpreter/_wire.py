"""Reading provider dicts defensively."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["integer", "string", "unique_files"]

from affordance_code_interpreter.result import CodeFile


def string(mapping: Any, key: str) -> str | None:
    """``mapping[key]`` when ``mapping`` is a dict and that value a non-empty string."""
    value = mapping.get(key) if isinstance(mapping, Mapping) else None
    return value if isinstance(value, str) and value else None


def integer(mapping: Any, key: str) -> int | None:
    value = mapping.get(key) if isinstance(mapping, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def unique_files(files: Iterable[CodeFile]) -> tuple[CodeFile, ...]:
    """The files, first-seen order, one per file id (or URL)."""
    seen: dict[str, CodeFile] = {}
    for file in files:
        key = file.file_id or file.url or ""
        seen.setdefault(key, file)
    return tuple(seen.values())
