"""Where overrides live: the ``OverridesStore`` protocol and ``FileOverridesStore``.

A store hands out the :class:`PromptOverrides` of a prompt (``ns`` and key) under a tag, and
keeps new ones. ``FileOverridesStore(directory)`` keeps one JSON file per prompt and tag,
``<directory>/<ns>/<prompt>/<tag>.json`` (``@default`` stands for the empty namespace; a
character other than a letter, digit, ``-`` or ``_`` is written ``%XX``), so a team can review
and version them beside the code, and edit them without redeploying it.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import quote, unquote

from affordance.errors import OverridesError
from affordance.prompt.overrides.document import PromptOverrides

__all__ = ["FileOverridesStore", "OverridesStore"]

_EMPTY_NS = "@default"  # no namespace is written so: "@" in a name is quoted


@runtime_checkable
class OverridesStore(Protocol):
    """Keeps overrides per prompt and tag."""

    def load(self, ns: str, prompt: str, tag: str) -> PromptOverrides | None:
        """The overrides of prompt ``ns``/``prompt`` under ``tag``, or ``None`` if it has none.
        Raises ``OverridesError`` for overrides that exist but cannot be read."""
        ...

    def save(self, overrides: PromptOverrides) -> None:
        """Keep ``overrides`` under its prompt and tag, replacing what was there."""
        ...

    def entries(self) -> tuple[tuple[str, str, str], ...]:
        """``(ns, prompt, tag)`` of every overrides kept, sorted."""
        ...


class FileOverridesStore:
    """Overrides as JSON files under ``directory`` (created on the first save).

    A file is read again only when it changes (its modification time or size), so a render
    that loads overrides on every turn costs a ``stat``; the same :class:`PromptOverrides`
    object comes back until then, which keeps what the prompt resolved from it cached too.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._read: dict[Path, tuple[int, int, PromptOverrides]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FileOverridesStore({str(self.directory)!r})"

    def path(self, ns: str, prompt: str, tag: str) -> Path:
        """The file that holds the overrides of ``ns``/``prompt`` under ``tag``."""
        if not prompt or not tag:
            raise OverridesError("a prompt key and a tag cannot be empty")
        folder = self.directory / (_segment(ns) if ns else _EMPTY_NS) / _segment(prompt)
        return folder / f"{_segment(tag)}.json"

    def load(self, ns: str, prompt: str, tag: str) -> PromptOverrides | None:
        path = self.path(ns, prompt, tag)
        try:
            status = path.stat()
        except FileNotFoundError:
            return None
        cached = self._read.get(path)
        if cached is not None and cached[:2] == (status.st_mtime_ns, status.st_size):
            return cached[2]
        overrides = _read(path)
        if (overrides.ns, overrides.prompt, overrides.tag) != (ns, prompt, tag):
            raise OverridesError(
                f"the file is for prompt {overrides.prompt!r} (namespace {overrides.ns!r}, tag "
                f"{overrides.tag!r}) but lies where prompt {prompt!r} (namespace {ns!r}, tag "
                f"{tag!r}) keeps its overrides",
                path=str(path),
            )
        with self._lock:
            self._read[path] = (status.st_mtime_ns, status.st_size, overrides)
        return overrides

    def save(self, overrides: PromptOverrides) -> None:
        path = self.path(overrides.ns, overrides.prompt, overrides.tag)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(overrides.to_json(), indent=2, ensure_ascii=False) + "\n"
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            Path(temporary).replace(path)  # readers see the old file or the new, never half
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def entries(self) -> tuple[tuple[str, str, str], ...]:
        if not self.directory.is_dir():
            return ()
        found = [
            (
                "" if file.parent.parent.name == _EMPTY_NS else unquote(file.parent.parent.name),
                unquote(file.parent.name),
                unquote(file.stem),
            )
            for file in self.directory.glob("*/*/*.json")
            if not file.name.startswith(".")
        ]
        return tuple(sorted(found))


def _segment(name: str) -> str:
    """``name`` as one file name: what is not a letter, digit, ``-`` or ``_`` as ``%XX`` (so
    ``.``, ``/`` and ``..`` never walk the directory tree)."""
    return quote(name, safe="-_").replace(".", "%2E")


def _read(path: Path) -> PromptOverrides:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OverridesError(f"cannot be read: {error}", path=str(path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise OverridesError(
            f"is not JSON: {error.msg} at line {error.lineno}, column {error.colno}",
            path=str(path),
        ) from None
    return PromptOverrides.from_json(data, path=str(path))
