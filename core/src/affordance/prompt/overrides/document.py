"""The overrides of one prompt under one tag, and their JSON form.

An overrides document replaces texts of a prompt without touching its code: a section's
template or summary, a tool's description, its parameters' descriptions and its examples. Each
entry carries ``original_hash``, the hash of the original it was written against
(:mod:`affordance.prompt.overrides.originals`); an entry whose original has changed since is
skipped and reported, never applied blindly.

The JSON form (one file per prompt and tag, see ``FileOverridesStore``)::

    {
      "format": "affordance-overrides", "version": 1,
      "ns": "", "prompt": "support", "tag": "latest", "target": "app.prompts:support",
      "sections": {"policies.refunds": {"original_hash": "sha256:...", "template": "..."}},
      "tools": {"lookup": {"original_hash": "sha256:...", "description": "...",
                           "params": {"entity_id": "..."}, "examples": [...]}}
    }

``target`` (optional) is the ``MODULE:PROMPT`` the file was seeded from, so that
``affordance overrides check`` can check every file without being told where its prompt lives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from affordance._frozen import frozen
from affordance.errors import OverridesError

__all__ = ["FORMAT", "VERSION", "PromptOverrides", "SectionOverride", "ToolOverride"]

FORMAT = "affordance-overrides"
VERSION = 1


@frozen
class SectionOverride:
    """Texts replacing a section's: its ``template`` (the body of a section rendered from one)
    and its ``summary``; ``None`` keeps the original."""

    original_hash: str
    template: str | None = None
    summary: str | None = None


@frozen
class ToolOverride:
    """Texts replacing a tool's: its ``description``, the descriptions of named ``params``
    fields, and its ``examples`` (``{"description", "input", "output"}`` objects, the input
    read into the tool's params type); ``None``, an absent field and an empty parameter
    description keep the original."""

    original_hash: str
    description: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    examples: tuple[Mapping[str, Any], ...] | None = None


@frozen
class PromptOverrides:
    """The overrides of the prompt ``ns``/``prompt`` (its key) under ``tag``; ``sections`` is
    keyed by dotted section path, ``tools`` by tool name."""

    ns: str
    prompt: str
    tag: str = "latest"
    sections: Mapping[str, SectionOverride] = field(default_factory=dict)
    tools: Mapping[str, ToolOverride] = field(default_factory=dict)
    target: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form; entries in a stable (sorted) order so files diff cleanly."""
        document: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "ns": self.ns,
            "prompt": self.prompt,
            "tag": self.tag,
        }
        if self.target is not None:
            document["target"] = self.target
        document["sections"] = {
            path: _without_none(
                {"original_hash": o.original_hash, "template": o.template, "summary": o.summary}
            )
            for path, o in sorted(self.sections.items())
        }
        document["tools"] = {
            name: _without_none(
                {
                    "original_hash": o.original_hash,
                    "description": o.description,
                    "params": dict(sorted(o.params.items())) or None,
                    "examples": None if o.examples is None else [dict(e) for e in o.examples],
                }
            )
            for name, o in sorted(self.tools.items())
        }
        return document

    @classmethod
    def from_json(cls, data: object, *, path: str | None = None) -> PromptOverrides:
        """Read the JSON form; ``OverridesError`` names the first field that does not fit."""
        reader = _Reader(path)
        document = reader.mapping(data, "the document")
        if document.get("format") != FORMAT:
            raise OverridesError(f'"format" must be {FORMAT!r}', path=path)
        version = document.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise OverridesError('"version" must be a positive integer', path=path)
        if version > VERSION:
            raise OverridesError(
                f"format version {version} is newer than the newest this affordance reads, "
                f"version {VERSION}; upgrade affordance to read it",
                path=path,
            )
        sections = {
            key: SectionOverride(
                original_hash=reader.text(entry, "original_hash", f"sections.{key}"),
                template=reader.optional_text(entry, "template", f"sections.{key}"),
                summary=reader.optional_text(entry, "summary", f"sections.{key}"),
            )
            for key, entry in reader.entries(document, "sections")
        }
        tools = {
            name: ToolOverride(
                original_hash=reader.text(entry, "original_hash", f"tools.{name}"),
                description=reader.optional_text(entry, "description", f"tools.{name}"),
                params=reader.descriptions(entry, f"tools.{name}"),
                examples=reader.examples(entry, f"tools.{name}"),
            )
            for name, entry in reader.entries(document, "tools")
        }
        return cls(
            ns=reader.text(document, "ns", "the document", empty=True),
            prompt=reader.text(document, "prompt", "the document"),
            tag=reader.text(document, "tag", "the document"),
            sections=sections,
            tools=tools,
            target=reader.optional_text(document, "target", "the document"),
        )


def _without_none(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if value is not None}


class _Reader:
    """Field readers that raise ``OverridesError`` naming the file and the field."""

    def __init__(self, path: str | None) -> None:
        self.path = path

    def fail(self, reason: str) -> OverridesError:
        return OverridesError(reason, path=self.path)

    def mapping(self, value: object, where: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{where} must be a JSON object, got {type(value).__name__}")
        return value

    def entries(
        self, document: Mapping[str, Any], name: str
    ) -> list[tuple[str, Mapping[str, Any]]]:
        table = self.mapping(document.get(name, {}), f'"{name}"')
        return [(key, self.mapping(entry, f"{name}.{key}")) for key, entry in table.items()]

    def text(self, entry: Mapping[str, Any], name: str, where: str, *, empty: bool = False) -> str:
        value = entry.get(name)
        if not isinstance(value, str) or (not empty and not value):
            raise self.fail(f'{where} needs "{name}", a non-empty string')
        return value

    def optional_text(self, entry: Mapping[str, Any], name: str, where: str) -> str | None:
        value = entry.get(name)
        if value is not None and not isinstance(value, str):
            raise self.fail(f'{where}: "{name}" must be a string')
        return value

    def descriptions(self, entry: Mapping[str, Any], where: str) -> Mapping[str, str]:
        params = self.mapping(entry.get("params", {}), f'{where}: "params"')
        for key, value in params.items():
            if not isinstance(value, str):
                raise self.fail(f'{where}: "params.{key}" must be a string')
        return dict(params)

    def examples(
        self, entry: Mapping[str, Any], where: str
    ) -> tuple[Mapping[str, Any], ...] | None:
        examples = entry.get("examples")
        if examples is None:
            return None
        if not isinstance(examples, list):
            raise self.fail(f'{where}: "examples" must be a list')
        checked = []
        for index, example in enumerate(examples):
            item = self.mapping(example, f"{where}.examples[{index}]")
            self.text(item, "description", f"{where}.examples[{index}]")
            if "input" not in item:
                raise self.fail(f'{where}.examples[{index}] needs "input"')
            checked.append(dict(item))
        return tuple(checked)
