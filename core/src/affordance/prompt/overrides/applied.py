"""Overrides checked against one prompt: what a render applies, and what it skips and why.

:func:`resolve` matches each entry of a :class:`PromptOverrides` to the prompt's section or tool
and keeps it only if it can apply: the target exists, accepts overrides, was not changed since
the override was written (``original_hash``), and the new text is valid (placeholders the params
type has, a description a tool may carry, examples that parse). Everything else becomes a
:class:`SkippedOverride`. The result is computed once per prompt and overrides document (the
prompt caches it), so a render with overrides costs a lookup per section and tool, and the
overridden tools are the same objects from render to render (what the adapters' declaration
caches are keyed by).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from affordance._frozen import frozen
from affordance.errors import PromptValidationError
from affordance.prompt.overrides.originals import section_hash, tool_hash

if TYPE_CHECKING:
    from affordance.prompt._template import CompiledTemplate
    from affordance.prompt.overrides.document import (
        PromptOverrides,
        SectionOverride,
        ToolOverride,
    )
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.section import Section
    from affordance.tools.tool import Tool, ToolExample

__all__ = [
    "AppliedOverrides",
    "OverridablePrompt",
    "OverrideWarning",
    "SkippedOverride",
    "overridable",
    "resolve",
]

SkipReason = Literal["stale", "unknown", "refused", "invalid"]


class OverridablePrompt(Protocol):
    """What overrides read of a prompt (``PromptTemplate`` has it all; the template module
    imports this package, so this one names the shape instead of the class)."""

    ns: str
    key: str

    def section_paths(self) -> tuple[SectionPath, ...]: ...

    def section(self, path: SectionPath | str) -> Section[Any] | None: ...

    def tools(self) -> tuple[Tool[Any, Any], ...]: ...


class OverrideWarning(UserWarning):
    """Issued (once per prompt and overrides document) for each override a render skips."""


@frozen
class SkippedOverride:
    """An override that was not applied: ``kind`` (``"section"`` or ``"tool"``) and ``name``
    (dotted section path or tool name) locate it; ``reason`` is ``"stale"`` (the original
    changed since it was written), ``"unknown"`` (no such section or tool), ``"refused"`` (the
    target or a section above it has ``accepts_overrides=False``) or ``"invalid"`` (the new
    text cannot be used); ``detail`` says it in a sentence."""

    kind: Literal["section", "tool"]
    name: str
    reason: SkipReason
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name!r} ({self.reason}): {self.detail}"


@frozen
class AppliedOverrides:
    """What a render applies: section bodies and summaries by path, and the overridden copy
    of each tool keyed by the original's identity; ``skipped`` lists what it does not."""

    bodies: Mapping[SectionPath, CompiledTemplate]
    summaries: Mapping[SectionPath, CompiledTemplate]
    tools: Mapping[int, tuple[Tool[Any, Any], Tool[Any, Any]]]
    skipped: tuple[SkippedOverride, ...]

    def tool(self, original: Tool[Any, Any]) -> Tool[Any, Any]:
        """The tool a render exposes in place of ``original``: its overridden copy, or itself."""
        entry = self.tools.get(id(original))
        return entry[1] if entry is not None and entry[0] is original else original


def overridable(
    prompt: OverridablePrompt,
) -> tuple[dict[SectionPath, Section[Any]], dict[str, Tool[Any, Any]]]:
    """The sections and the tools of ``prompt`` that overrides may change: those with
    ``accepts_overrides`` under no section without it. Tools a section lists only at render
    (an MCP server's) are not among them; neither is the builtin ``open_sections``."""
    sections: dict[SectionPath, Section[Any]] = {}
    tools: dict[str, Tool[Any, Any]] = {}
    refused: set[SectionPath] = set()
    for path in prompt.section_paths():
        section = prompt.section(path)
        assert section is not None
        if not section.accepts_overrides or path[:-1] in refused:
            refused.add(path)
            continue
        sections[path] = section
        if section.tools_listed_at_render:
            continue
        for tool in section.tools():
            if tool.accepts_overrides:
                tools[tool.name] = tool
    return sections, tools


def resolve(prompt: OverridablePrompt, overrides: PromptOverrides) -> AppliedOverrides:
    """Check every entry of ``overrides`` against ``prompt``; warn once for each skipped."""
    sections, tools = overridable(prompt)
    skipped: list[SkippedOverride] = []
    bodies: dict[SectionPath, CompiledTemplate] = {}
    summaries: dict[SectionPath, CompiledTemplate] = {}
    for dotted, entry in overrides.sections.items():
        path = tuple(dotted.split("."))
        section = sections.get(path)
        problem = _problem(
            "section",
            None if section is None else section_hash(section),
            prompt.section(path) is not None,
            entry.original_hash,
        )
        if problem is None:
            assert section is not None
            try:
                body, summary = _section_templates(section, entry)
            except PromptValidationError as error:
                problem = ("invalid", error.message)
            else:
                if body is not None:
                    bodies[path] = body
                if summary is not None:
                    summaries[path] = summary
        if problem is not None:
            skipped.append(SkippedOverride("section", dotted, *problem))
    replaced: dict[int, tuple[Tool[Any, Any], Tool[Any, Any]]] = {}
    for name, tool_entry in overrides.tools.items():
        tool = tools.get(name)
        problem = _problem(
            "tool",
            None if tool is None else tool_hash(tool),
            any(candidate.name == name for candidate in prompt.tools()),
            tool_entry.original_hash,
        )
        if problem is None:
            assert tool is not None
            try:
                copy = _overridden(tool, tool_entry)
            except PromptValidationError as error:
                problem = ("invalid", error.message)
            else:
                if not _same_texts(copy, tool):  # an unedited entry leaves the tool as it is
                    replaced[id(tool)] = (tool, copy)
        if problem is not None:
            skipped.append(SkippedOverride("tool", name, *problem))
    for item in skipped:
        warnings.warn(
            f"prompt {prompt.key!r}, overrides tag {overrides.tag!r}: {item}",
            OverrideWarning,
            stacklevel=4,
        )
    return AppliedOverrides(bodies, summaries, replaced, tuple(skipped))


def _section_templates(
    section: Section[Any], entry: SectionOverride
) -> tuple[CompiledTemplate | None, CompiledTemplate | None]:
    """The override's template and summary compiled for ``section``, checked against its
    params; ``PromptValidationError`` says why one cannot be used."""
    body = summary = None
    if entry.template is not None:
        if section.template_source() is None:
            raise PromptValidationError("the section renders no template to replace")
        body = section.compile_template("template override", entry.template)
    if entry.summary is not None:
        if section.summary is None:
            raise PromptValidationError("the section has no summary to replace")
        summary = section.compile_template("summary override", entry.summary)
    return body, summary


def _problem(
    what: str, current: str | None, declared: bool, written_against: str
) -> tuple[SkipReason, str] | None:
    """Why an override of a ``what`` ("section" or "tool") cannot apply: the target's hash is
    ``current`` (``None``: not among the overridable ones; ``declared``: the prompt has it)."""
    if current is None:
        if not declared:
            absent = "no section at this path" if what == "section" else "no tool of this name"
            return "unknown", f"the prompt declares {absent}"
        return "refused", f"the {what}, or a section above it, has accepts_overrides=False"
    if current != written_against:
        return "stale", _stale(written_against, current, what)
    return None


def _stale(written_against: str, current: str, what: str) -> str:
    return (
        f"written against {written_against[:19]}…, but the {what}'s original is now "
        f"{current[:19]}…; update the override (affordance overrides diff shows both texts)"
    )


def _overridden(tool: Tool[Any, Any], entry: ToolOverride) -> Tool[Any, Any]:
    examples = None
    if entry.examples is not None:
        examples = tuple(_example(tool, raw, index) for index, raw in enumerate(entry.examples))
    described = {name: text for name, text in entry.params.items() if text.strip()}
    return tool.with_texts(
        description=entry.description,
        param_descriptions=described or None,
        examples=examples,
    )


def _same_texts(copy: Tool[Any, Any], tool: Tool[Any, Any]) -> bool:
    return (
        copy.description == tool.description
        and copy.examples == tool.examples
        and copy.parameters_schema() == tool.parameters_schema()
    )


def _example(tool: Tool[Any, Any], raw: Mapping[str, Any], index: int) -> ToolExample[Any, Any]:
    """An example of the file read into the tool's types (its input into the params type)."""
    from affordance.serde import ParseError, parse
    from affordance.tools.tool import ToolExample

    def typed(kind: Any, value: Any, role: str) -> Any:
        if not isinstance(kind, type) or not (
            hasattr(kind, "__dataclass_fields__") or hasattr(kind, "model_fields")
        ):
            return value  # a JSON Schema's params, a plain result type: taken as written
        try:
            return parse(kind, value)
        except ParseError as error:
            raise PromptValidationError(
                f"example {index}: its {role} does not fit {kind.__qualname__}: {error}",
                tool_name=tool.name,
            ) from None

    return ToolExample(
        description=raw["description"],
        input=typed(tool.params_type, raw["input"], "input"),
        output=typed(tool.result_type, raw.get("output"), "output"),
    )
