"""Reading a response's lists item by item: a malformed item is skipped, the rest survives.

A hosted-tool codec reads data the provider's server wrote. One citation, source, run or file
it cannot read must not cost the whole output: :class:`ItemReader` hands out the readable items
of a list and skips the others, each with a WARNING on ``affordance.hosted`` that holds metadata
only — the hosted tool, its kind, the codec provider, the item's position (wire field names and
indices, e.g. ``output[2].content[0].annotations[1]``) and what was wrong in general terms;
never the item's text, code or URL. Every codec, first-party or not, reads through it, so they
all degrade and log alike. A response gets at most :data:`MAX_WARNINGS` such records, then
one counting the rest, so a hostile response cannot flood the log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

from affordance.tools.hosted import HostedTool

__all__ = ["MAX_WARNINGS", "ItemReader", "Position"]

_log = logging.getLogger("affordance.hosted")

MAX_WARNINGS = 20
"""Warnings about skipped items written for one response; the rest are counted in one more."""

Position = tuple[str | int, ...]
"""Where an item sits: wire field names and list indices, from the codec's root item."""


def _where(position: Position) -> str:
    """``("output", 2, "content", 0)`` -> ``"output[2].content[0]"``."""
    parts: list[str] = []
    for step in position:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        else:
            parts.append(f".{step}" if parts else step)
    return "".join(parts)


class ItemReader:
    """The readable items of one response, for one hosted tool; a context manager, so the
    count of skipped items past :data:`MAX_WARNINGS` is written when the codec is done."""

    __slots__ = ("_kind", "_provider", "_tool", "skipped")

    def __init__(self, tool: HostedTool[Any], provider: str) -> None:
        self._tool = tool.name
        self._kind = tool.kind
        self._provider = provider
        self.skipped = 0

    def __enter__(self) -> ItemReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        more = self.skipped - MAX_WARNINGS
        if more > 0:
            _log.warning(
                "hosted tool %s: its %s codec (%s) skipped %d more malformed items",
                self._tool,
                self._kind,
                self._provider,
                more,
                extra=self._extra(more=more),
            )

    def skip(self, position: Position, problem: str) -> None:
        """Leave out the item at ``position``; ``problem`` says what was wrong in general
        terms (``"not an object"``, ``"no url"``), never quoting the item."""
        self.skipped += 1
        if self.skipped > MAX_WARNINGS:
            return
        where = _where(position)
        _log.warning(
            "hosted tool %s: its %s codec (%s) skipped %s: %s",
            self._tool,
            self._kind,
            self._provider,
            where,
            problem,
            extra=self._extra(item=where, problem=problem),
        )

    def elements(self, value: Any, position: Position) -> Sequence[Any]:
        """The elements of list ``value``; absent (None) is empty, anything else that is not a
        list is skipped."""
        if value is None:
            return ()
        if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
            return value
        self.skip(position, "not a list")
        return ()

    def objects(self, value: Any, position: Position) -> Iterator[tuple[int, Mapping[str, Any]]]:
        """The objects of list ``value`` with their indices; elements that are not objects are
        skipped."""
        for index, element in enumerate(self.elements(value, position)):
            if isinstance(element, (dict, Mapping)):  # dict first: JSON's objects, quickly
                yield index, element
            else:
                self.skip((*position, index), "not an object")

    def text(self, value: Any, position: Position) -> str | None:
        """``value`` when it is a string; None when it is absent, and when it is anything else
        (skipped: spans into it cannot be placed)."""
        if value is None or isinstance(value, str):
            return value
        self.skip(position, "not a string")
        return None

    def strings(self, value: Any, position: Position) -> Iterator[str]:
        """The strings of list ``value``; other elements are skipped."""
        for index, element in enumerate(self.elements(value, position)):
            if isinstance(element, str):
                yield element
            else:
                self.skip((*position, index), "not a string")

    def _extra(self, **fields: object) -> dict[str, object]:
        extra: dict[str, object] = {
            "affordance_hosted_tool": self._tool,
            "affordance_kind": self._kind,
            "affordance_provider": self._provider,
        }
        extra.update({f"affordance_{key}": value for key, value in fields.items()})
        return extra
