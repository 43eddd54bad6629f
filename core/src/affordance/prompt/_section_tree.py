"""The section tree a ``PromptTemplate`` is built on, and the rules it is held to.

Each section is placed at its path as a :class:`SectionNode`, with what rendering needs
precomputed (its default params, its children's keys). Building the tree checks it once:
sections only, distinct sibling keys, no section twice, distinct tool names and none reserved
for the builtin tool. The tools a section lists only at render
(``Section.tools_listed_at_render``) are held to the same names then
(:func:`check_rendered_names`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affordance.errors import PromptRenderError, PromptValidationError
from affordance.prompt.disclosure import OPEN_SECTIONS
from affordance.prompt.paths import SectionPath
from affordance.prompt.section import Section
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

__all__ = [
    "RESERVED_TOOL_NAMES",
    "SectionNode",
    "build_tree",
    "check_rendered_names",
    "check_tool_names",
    "relisted_tree",
]

RESERVED_TOOL_NAMES = frozenset({OPEN_SECTIONS})


class SectionNode:
    """A section placed in the tree, with what rendering needs precomputed."""

    __slots__ = ("child_keys", "children", "default", "path", "section")

    def __init__(self, section: Section[Any], path: SectionPath, default: Any) -> None:
        self.section = section
        self.path = path
        self.default = default
        self.children: tuple[SectionNode, ...] = ()
        self.child_keys = tuple(child.key for child in section.children)


def build_tree(
    sections: Sequence[Section[Any]],
    index: dict[SectionPath, SectionNode],
    params_types: set[type[Any]],
    parent: SectionPath = (),
    seen: set[int] | None = None,
) -> tuple[SectionNode, ...]:
    """The nodes of ``sections`` (placed under ``parent``), their children's below them: each
    node goes into ``index`` by path, depth first, and each params type a section declares into
    ``params_types``. Raises ``PromptValidationError`` for what cannot be placed."""
    if seen is None:
        seen = set()
    nodes: list[SectionNode] = []
    keys: set[str] = set()
    for section in sections:
        if not isinstance(section, Section):
            raise PromptValidationError(
                f"prompt sections must be Section instances, got {type(section).__qualname__}",
                section_path=parent,
            )
        path = (*parent, section.key)
        if section.key in keys:
            raise PromptValidationError(
                f"two sibling sections share the key {section.key!r}; give one a distinct key=...",
                section_path=path,
            )
        if id(section) in seen:
            raise PromptValidationError(
                "the same Section object appears twice in the prompt", section_path=path
            )
        keys.add(section.key)
        seen.add(id(section))
        node = SectionNode(section, path, _default_params(section))
        if section.params_type is not None:
            params_types.add(section.params_type)
        index[path] = node
        node.children = build_tree(section.children, index, params_types, path, seen)
        nodes.append(node)
    return tuple(nodes)


def relisted_tree(
    nodes: tuple[SectionNode, ...],
    listings: Mapping[str, Any],
    index: dict[SectionPath, SectionNode],
) -> tuple[SectionNode, ...]:
    """Copies of ``nodes`` (put into ``index``), each section listing its tools at render
    swapped for its listed form (``section.listed(listing)``, ``listings`` by dotted path)."""
    copies: list[SectionNode] = []
    for node in nodes:
        section = node.section
        if section.tools_listed_at_render:
            section = section.listed(listings[".".join(node.path)])
        copied = SectionNode(section, node.path, node.default)
        index[node.path] = copied
        copied.children = relisted_tree(node.children, listings, index)
        copies.append(copied)
    return tuple(copies)


def _default_params(section: Section[Any]) -> Any:
    """What a section renders with when the caller passes no params of its type (or None)."""
    if section.default_params is not None:
        return section.default_params
    params_type = section.params_type
    if params_type is None:
        return None
    try:
        return params_type()
    except (TypeError, ValueError):
        return None  # required fields: the caller must supply params


def check_tool_names(index: Mapping[SectionPath, SectionNode]) -> None:
    """The tools and hosted tools the sections declare have distinct names, none reserved;
    a section listing its tools at render has its tools checked then."""
    owners: dict[str, SectionPath] = {}
    for path, node in index.items():
        section = node.section
        named: list[Tool[Any, Any] | HostedTool[Any]] = (
            [] if section.tools_listed_at_render else [*section.tools()]
        )
        for hosted in section.hosted_tools():
            if not isinstance(hosted, HostedTool):
                raise PromptValidationError(
                    f"hosted_tools must be HostedTool instances, got {type(hosted).__qualname__}",
                    section_path=path,
                )
            named.append(hosted)
        for tool in named:
            if tool.name in RESERVED_TOOL_NAMES:
                raise PromptValidationError(
                    f"the tool name {tool.name!r} is reserved for the builtin tool",
                    section_path=path,
                    tool_name=tool.name,
                )
            if tool.name in owners:
                raise PromptValidationError(
                    f"duplicate tool name {tool.name!r}; it is already declared in section "
                    f"{'.'.join(owners[tool.name])!r}",
                    section_path=path,
                    tool_name=tool.name,
                )
            owners[tool.name] = path


def check_rendered_names(tools: list[Tool[Any, Any]], hosted: list[HostedTool[Any]]) -> None:
    """The name checks a prompt makes when built, made again at render for the tools sections
    list only then (``Section.tools_listed_at_render``, e.g. an MCP server's)."""
    seen: set[str] = set()
    names = [tool.name for tool in tools] + [tool.name for tool in hosted]
    for name in names:
        if name in RESERVED_TOOL_NAMES:
            raise PromptRenderError(
                f"the tool name {name!r} is reserved for the builtin tool; a section that lists "
                "its tools at render declares it (give its tools a prefix)",
                tool_name=name,
            )
        if name in seen:
            raise PromptRenderError(
                f"duplicate tool name {name!r} among the rendered sections; a section that "
                "lists its tools at render declares it too (give its tools a prefix)",
                tool_name=name,
            )
        seen.add(name)
