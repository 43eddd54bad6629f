"""Rendering a prompt's section tree to its text and tools, one level of the tree at a time.

Each enabled section renders as a numbered heading (``## 1 Title``, ``### 1.2 Child``) and its
body, or its summary and the line telling the model how to open it; its tools, and its
children's, are collected as it goes. Overridden texts (``affordance.prompt.overrides``) replace
the section's own. A ``PromptTemplate`` renders with :func:`render_level` from its roots.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from affordance.errors import PromptRenderError
from affordance.prompt.paths import SectionPath
from affordance.prompt.section import SectionVisibility

if TYPE_CHECKING:
    from affordance.prompt._section_tree import SectionNode
    from affordance.prompt.overrides.applied import AppliedOverrides
    from affordance.tools.hosted import HostedTool
    from affordance.tools.tool import Tool

__all__ = ["render_level"]

_SUMMARY = SectionVisibility.SUMMARY


def render_level(
    nodes: tuple[SectionNode, ...],
    depth: int,
    prefix: str,
    lookup: Mapping[type[Any], Any],
    overrides: Mapping[SectionPath, SectionVisibility],
    applied: AppliedOverrides | None,
    parts: list[str],
    tools: list[Tool[Any, Any]],
    hosted: list[HostedTool[Any]],
    summarized: list[SectionPath],
) -> None:
    """Render the enabled sections of ``nodes`` (one level of the tree, ``depth`` below the
    roots, numbered after ``prefix``) and their children: texts into ``parts``, tools into
    ``tools`` and ``hosted``, the paths of the sections shown as summaries into ``summarized``."""
    hashes = "#" * (depth + 2)
    number = 0
    for node in nodes:
        section = node.section
        params_type = section.params_type
        params = None
        if params_type is not None:
            params = lookup.get(params_type, node.default)
            if params is None:
                raise _missing_params(node)
        if section.enabled is not None and not section.is_enabled(params):
            continue
        number += 1
        heading = f"{hashes} {prefix}{number} {section.title}"
        visibility = (
            overrides.get(node.path, section.visibility) if overrides else section.visibility
        )
        try:
            if visibility is _SUMMARY:
                if applied is not None and node.path in applied.summaries:
                    summary = section.render_template(applied.summaries[node.path], params)
                else:
                    summary = section.render_summary(params)
                suffix = section.render_summary_suffix(node.path, node.child_keys)
                parts.append(
                    f"{heading}\n{summary}\n---\n{suffix}"
                    if summary
                    else f"{heading}\n---\n{suffix}"
                )
                summarized.append(node.path)
                continue
            if applied is not None and node.path in applied.bodies:
                body = section.render_template(applied.bodies[node.path], params)
            else:
                body = section.render_body(params)
        except PromptRenderError as error:
            if len(error.section_path) > 1 or error.section_path == node.path:
                raise
            raise PromptRenderError(
                error.message,
                section_path=node.path,
                dataclass=params_type,
                placeholder=error.placeholder,
            ) from error
        parts.append(f"{heading}\n{body}" if body else heading)
        if applied is None:
            tools.extend(section.tools())
        else:
            tools.extend(map(applied.tool, section.tools()))
        hosted.extend(section.hosted_tools())
        if node.children:
            render_level(
                node.children,
                depth + 1,
                f"{prefix}{number}.",
                lookup,
                overrides,
                applied,
                parts,
                tools,
                hosted,
                summarized,
            )


def _missing_params(node: SectionNode) -> PromptRenderError:
    params_type = node.section.params_type
    assert params_type is not None
    fields = getattr(params_type, "__dataclass_fields__", {})
    required = [
        name
        for name, f in fields.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING and f.init
    ]
    return PromptRenderError(
        f"missing params {params_type.__qualname__} (required fields: {', '.join(required)}); "
        "pass an instance to render() or set default_params on the section",
        section_path=node.path,
        dataclass=params_type,
    )
