"""``PromptTemplate`` (alias ``Prompt``): a validated tree of sections, rendered to text+tools.

The tree and the checks it is held to are in ``_section_tree``, the rendering of its levels in
``_rendering``; here are the template's API, its params and overrides, and its caches.
"""

from __future__ import annotations

import copy
import json
from _thread import allocate_lock  # threading.Lock, without importing threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance._typeargs import TypeArgsAlias, is_concrete, subscript
from affordance.errors import PromptRenderError, PromptValidationError
from affordance.prompt._rendering import render_level
from affordance.prompt._section_tree import (
    SectionNode,
    build_tree,
    check_rendered_names,
    check_tool_names,
    relisted_tree,
)
from affordance.prompt.disclosure import open_sections_tool
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import Section, SectionVisibility
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.prompt.overrides.applied import AppliedOverrides
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import OverridesStore

__all__ = ["Prompt", "PromptTemplate"]

OutputT = TypeVar("OutputT")

_SUMMARY = SectionVisibility.SUMMARY
_NO_OVERRIDES: Mapping[SectionPath, SectionVisibility] = {}
_APPLIED_KEPT = 8  # overrides documents a prompt keeps resolved (a store's tags, in practice)
_LISTED_KEPT = 8  # listings a prompt keeps its listed forms of (see ``with_listings``)


class PromptTemplate(Generic[OutputT]):
    """An ordered tree of sections, validated once at construction.

    ``render(*params)`` matches each params dataclass to the sections declaring its type
    (falling back to ``default_params``, then to a params instance built from field defaults)
    and returns a :class:`RenderedPrompt`. ``PromptTemplate[Answer]`` declares the structured
    output the evaluation parses the model's final answer into.

    ``output_validators`` receive the parsed output (the final text, for a prompt without an
    output type) and raise ``affordance.OutputRejected("why")`` to ask for another answer. An
    answer that does not parse, or that a validator rejects, is sent back to the model as a
    user message naming the problems, up to ``output_retries`` times (default 1); then the run
    raises ``OutputValidationError`` with every attempt.
    """

    def __init__(
        self,
        *,
        sections: Sequence[Section[Any]],
        ns: str = "",
        key: str | None = None,
        name: str | None = None,
        output_type: type[OutputT] | None = None,
        output_retries: int = 1,
        output_validators: Sequence[Callable[[Any], object]] = (),
    ) -> None:
        if isinstance(output_retries, bool) or not isinstance(output_retries, int):
            raise PromptValidationError(
                f"output_retries must be an int, got {type(output_retries).__name__}"
            )
        if output_retries < 0:
            raise PromptValidationError(f"output_retries must be 0 or more, got {output_retries}")
        validators = tuple(output_validators)
        for validator in validators:
            if not callable(validator):
                raise PromptValidationError(
                    f"output_validators must be callables, got {type(validator).__name__}"
                )
        self.output_retries = output_retries
        self.output_validators: tuple[Callable[[Any], object], ...] = validators
        self.ns = ns
        self.name = name if name is not None else (key if key is not None else "prompt")
        self.key = key if key is not None else self.name
        self.output_type = output_type
        self.sections: tuple[Section[Any], ...] = tuple(sections)
        self._index: dict[SectionPath, SectionNode] = {}
        self._params_types: set[type[Any]] = set()
        self._roots = build_tree(self.sections, self._index, self._params_types)
        check_tool_names(self._index)
        self._tools_listed_at_render = any(
            node.section.tools_listed_at_render for node in self._index.values()
        )
        self.has_summaries = any(
            node.section.visibility is _SUMMARY for node in self._index.values()
        )
        self._applied: dict[int, tuple[PromptOverrides, AppliedOverrides]] = {}
        self._applied_lock = allocate_lock()
        self._listed: dict[str, PromptTemplate[OutputT]] = {}

    def __class_getitem__(cls, item: Any) -> TypeArgsAlias:
        return subscript(cls, item)

    @classmethod
    def _type_args_to_kwargs(cls, args: tuple[Any, ...]) -> dict[str, Any]:
        (output_type,) = args
        return {"output_type": output_type} if is_concrete(output_type) else {}

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(ns={self.ns!r}, key={self.key!r}, name={self.name!r})"

    # -- structure -------------------------------------------------------------------------

    def section(self, path: SectionPath | str) -> Section[Any] | None:
        """The section at ``path`` (a key tuple or ``"parent.child"``), if there is one."""
        key = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
        node = self._index.get(key)
        return None if node is None else node.section

    def section_paths(self) -> tuple[SectionPath, ...]:
        """Every section path, depth first, in declaration order."""
        return tuple(self._index)

    def tools(self) -> tuple[Tool[Any, Any], ...]:
        """Every tool declared anywhere in the tree, enabled or not, in declaration order."""
        return tuple(tool for node in self._index.values() for tool in node.section.tools())

    # -- sections that list their tools at render --------------------------------------------

    def listed_section_paths(self) -> tuple[SectionPath, ...]:
        """The paths of the sections whose tools are listed at render
        (``Section.tools_listed_at_render``), depth first."""
        return tuple(
            path for path, node in self._index.items() if node.section.tools_listed_at_render
        )

    def tools_listings(self) -> dict[str, Any]:
        """Each listed section's ``Section.tools_listing()`` (JSON data) by dotted path: what
        :meth:`with_listings` takes, in this process or another. Sections may connect."""
        return {
            ".".join(path): self._index[path].section.tools_listing()
            for path in self.listed_section_paths()
        }

    def with_listings(self, listings: Mapping[str, Any]) -> PromptTemplate[OutputT]:
        """This prompt with each listed section swapped for ``section.listed(listing)``: it
        renders the given tools and texts (``listings`` by dotted path, as
        :meth:`tools_listings` returns them) and does no I/O. Kept per listing, so the same
        listing gives the same prompt; a prompt without listed sections is returned as is."""
        paths = {".".join(path): path for path in self.listed_section_paths()}
        unknown = sorted(set(listings) - set(paths))
        if unknown:
            raise PromptRenderError(
                f"a listing was given for {unknown[0]!r}, which is not a section listing its "
                f"tools at render (those are: {', '.join(paths) or 'none'})",
                section_path=tuple(unknown[0].split(".")),
            )
        for dotted, path in paths.items():
            if dotted not in listings:
                raise PromptRenderError(
                    "no listing was given for this section, which lists its tools at render",
                    section_path=path,
                )
        if not paths:
            return self
        key = json.dumps(listings, sort_keys=True, separators=(",", ":"))
        cached = self._listed.get(key)
        if cached is not None:
            return cached
        relisted = copy.copy(self)
        relisted._index = {}
        relisted._roots = relisted_tree(self._roots, listings, relisted._index)
        relisted.sections = tuple(node.section for node in relisted._roots)
        relisted._applied = {}
        relisted._applied_lock = allocate_lock()
        relisted._listed = {}
        with self._applied_lock:
            if len(self._listed) >= _LISTED_KEPT:
                del self._listed[next(iter(self._listed))]
            self._listed[key] = relisted
        return relisted

    # -- rendering -------------------------------------------------------------------------

    def render(
        self,
        *params: Any,
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        overrides: OverridesStore | PromptOverrides | None = None,
        overrides_tag: str = "latest",
    ) -> RenderedPrompt[OutputT]:
        """Render the enabled sections with ``params``; see the class docstring.

        ``overrides`` (a store, asked for this prompt's overrides under ``overrides_tag``, or
        the overrides themselves) replaces section and tool texts; what it cannot apply is
        listed in the result's ``skipped_overrides`` (``affordance.prompt.overrides``).
        """
        lookup = self._params_lookup(params)
        visibility = _NO_OVERRIDES
        if visibility_overrides:
            visibility = self._checked_overrides(visibility_overrides)
        applied = None if overrides is None else self.applied_overrides(overrides, overrides_tag)
        parts: list[str] = []
        tools: list[Tool[Any, Any]] = []
        hosted: list[HostedTool[Any]] = []
        summarized: list[SectionPath] = []
        render_level(
            self._roots, 0, "", lookup, visibility, applied, parts, tools, hosted, summarized
        )
        if self._tools_listed_at_render:
            check_rendered_names(tools, hosted)
        if summarized:
            tools.append(open_sections_tool())
        # every field in order, none by keyword: a class called with keywords passes them
        # through a dict built per call (a render per run)
        return RenderedPrompt(
            "\n\n".join(parts),  # text
            tuple(tools),
            tuple(hosted),  # hosted_tools
            self.output_type,
            tuple(summarized),
            visibility,  # visibility_overrides
            () if applied is None else applied.skipped,  # skipped_overrides
        )

    def applied_overrides(
        self, overrides: OverridesStore | PromptOverrides, tag: str = "latest"
    ) -> AppliedOverrides | None:
        """What ``overrides`` (a store's under ``tag``, or a document) changes in this prompt
        and what it skips; ``None`` when the store holds none for it. Resolved once per
        document (a store returns the same document until its file changes)."""
        from affordance.errors import OverridesError
        from affordance.prompt.overrides.applied import resolve
        from affordance.prompt.overrides.document import PromptOverrides

        if isinstance(overrides, PromptOverrides):
            document: PromptOverrides | None = overrides
            if (overrides.ns, overrides.prompt) != (self.ns, self.key):
                raise OverridesError(
                    f"these overrides are for prompt {overrides.prompt!r} (namespace "
                    f"{overrides.ns!r}), not {self.key!r} (namespace {self.ns!r})"
                )
        else:
            document = overrides.load(self.ns, self.key, tag)
        if document is None:
            return None
        cached = self._applied.get(id(document))
        if cached is not None and cached[0] is document:
            return cached[1]
        applied = resolve(self, document)
        with self._applied_lock:
            if len(self._applied) >= _APPLIED_KEPT:
                del self._applied[next(iter(self._applied))]
            self._applied[id(document)] = (document, applied)
        return applied

    def _params_lookup(self, params: Sequence[Any]) -> dict[type[Any], Any]:
        lookup: dict[type[Any], Any] = {}
        for value in params:
            kind = type(value)
            if kind not in self._params_types:
                raise PromptRenderError(
                    f"no section of the prompt takes params of type {kind.__qualname__}",
                    dataclass=kind,
                )
            if kind in lookup:
                raise PromptRenderError(
                    f"params of type {kind.__qualname__} were given twice", dataclass=kind
                )
            lookup[kind] = value
        return lookup

    def _checked_overrides(
        self, overrides: Mapping[SectionPath, SectionVisibility]
    ) -> Mapping[SectionPath, SectionVisibility]:
        checked: dict[SectionPath, SectionVisibility] = {}
        for raw_path, requested in overrides.items():
            path = tuple(raw_path)
            node = self._index.get(path)
            if node is None:
                raise PromptRenderError(
                    f"visibility override for unknown section {'.'.join(path)!r}",
                    section_path=path,
                )
            raw: object = requested
            visibility = raw if isinstance(raw, SectionVisibility) else SectionVisibility(raw)
            if visibility is _SUMMARY and not node.section.has_summary():
                raise PromptRenderError(
                    "cannot summarize a section that has no summary", section_path=path
                )
            checked[path] = visibility
        return checked


Prompt = PromptTemplate
"""The seeds' earlier name for :class:`PromptTemplate`; both work everywhere."""
