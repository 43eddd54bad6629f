"""What ``--prompt MODULE:PROMPT`` adds to ``affordance plugins`` and ``affordance doctor``: the
sections of a prompt that list their tools when they render (an MCP server's), each asked for
its tools now — so the servers a prompt depends on are seen, and checked, before a run needs
them.

A section is described by its ``repr`` (an MCP section names its server there), its path and
either its tools or why it could not list them. Asking is the section's own code: whatever it
raises is reported, one line, never a traceback.
"""

from __future__ import annotations

from typing import Any

from affordance._frozen import frozen
from affordance.cli.target import TargetError, prompt_of
from affordance.prompt import PromptTemplate

__all__ = ["ListedSection", "describe", "listed_sections"]


@frozen
class ListedSection:
    """One section of ``target`` that lists its tools at render: its tools, or ``error``."""

    target: str
    path: str
    section: str
    tools: tuple[str, ...] = ()
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.target,
            "path": self.path,
            "section": self.section,
            "tools": list(self.tools),
            "error": self.error,
        }

    def line(self) -> str:
        return describe(self.to_dict())


def describe(item: dict[str, Any]) -> str:
    """One line for a section as :meth:`ListedSection.to_dict` writes it."""
    where = f"{item['prompt']} {item['path']}: {item['section']}"
    if item["error"] is not None:
        return f"{where}: cannot list its tools: {item['error']}"
    return f"{where}: {len(item['tools'])} tool(s): {', '.join(item['tools']) or '-'}"


def listed_sections(target: str) -> list[ListedSection]:
    """Every section of the prompt ``target`` names that lists its tools at render, asked for
    them now. Raises ``TargetError`` (one line) when ``target`` names no prompt template."""
    prompt = prompt_of(target)
    if not isinstance(prompt, PromptTemplate):
        raise TargetError(f"{target} is a rendered prompt; pass its PromptTemplate")
    found: list[ListedSection] = []
    for path in prompt.section_paths():
        section = prompt.section(path)
        if section is None or not section.tools_listed_at_render:
            continue
        dotted = ".".join(path)
        try:
            names = tuple(tool.name for tool in section.tools())
        except Exception as error:  # noqa: BLE001 - the section's own code: report, go on
            reason = f"{type(error).__name__}: {error}"
            found.append(ListedSection(target, dotted, repr(section), error=reason))
        else:
            found.append(ListedSection(target, dotted, repr(section), names))
    return found
