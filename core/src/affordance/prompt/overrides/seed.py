"""The starting overrides of a prompt: every text overrides may change, as it is now."""

from __future__ import annotations

from typing import Any

from affordance.prompt.overrides.applied import OverridablePrompt, overridable
from affordance.prompt.overrides.document import PromptOverrides, SectionOverride, ToolOverride
from affordance.prompt.overrides.originals import example_json, section_hash, tool_hash

__all__ = ["seed_overrides"]


def seed_overrides(
    prompt: OverridablePrompt, *, tag: str = "latest", target: str | None = None
) -> PromptOverrides:
    """Overrides that change nothing yet: each overridable section's template and summary and
    each overridable tool's description, parameter descriptions and examples, with the hash of
    each original. Edit the texts, keep the hashes."""
    sections_in_scope, tools_in_scope = overridable(prompt)
    sections = {
        ".".join(path): SectionOverride(
            original_hash=section_hash(section),
            template=section.template_source(),
            summary=section.summary,
        )
        for path, section in sections_in_scope.items()
        if section.template_source() is not None or section.summary is not None
    }
    tools = {
        name: ToolOverride(
            original_hash=tool_hash(tool),
            description=tool.description,
            params=_documented_params(tool.parameters_schema()),
            examples=tuple(example_json(example) for example in tool.examples) or None,
        )
        for name, tool in tools_in_scope.items()
    }
    return PromptOverrides(
        ns=prompt.ns, prompt=prompt.key, tag=tag, sections=sections, tools=tools, target=target
    )


def _documented_params(schema: Any) -> dict[str, str]:
    """Each parameter's description as the model sees it now; an undocumented one gets an
    empty slot to fill (an empty text is not applied: see ``ToolOverride``)."""
    properties = schema.get("properties") or {}
    return {
        name: str(prop.get("description", "")) if isinstance(prop, dict) else ""
        for name, prop in properties.items()
    }
