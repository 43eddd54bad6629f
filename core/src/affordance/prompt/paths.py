"""Section paths: the tuple of keys from the root to a section, written ``parent.child``."""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["SectionPath", "format_path", "parse_path"]

SectionPath: TypeAlias = tuple[str, ...]


def parse_path(dotted: str) -> SectionPath:
    """``"context.examples"`` -> ``("context", "examples")``; empty segments are refused."""
    parts = tuple(part.strip() for part in dotted.split("."))
    if not dotted.strip() or any(not part for part in parts):
        raise ValueError(f"{dotted!r} is not a section key path (keys joined by '.')")
    return parts


def format_path(path: SectionPath) -> str:
    return ".".join(path)
