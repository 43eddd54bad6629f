"""Progressive disclosure: the builtin ``open_sections`` tool for summarized sections.

A section rendered as a summary can be opened by the model. The tool changes nothing itself:
it validates the request and returns the visibility overrides the caller should apply, and as
a terminal tool it ends the model's turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol

from affordance._frozen import frozen
from affordance.errors import ToolValidationError
from affordance.prompt.paths import SectionPath, format_path, parse_path
from affordance.prompt.section import SectionVisibility
from affordance.tools.result import ToolResult
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.prompt.rendered import RenderedPrompt

__all__ = [
    "OPEN_SECTIONS",
    "DisclosureRequest",
    "OpenSectionsParams",
    "OpenSectionsResult",
    "open_sections_tool",
]

OPEN_SECTIONS = "open_sections"


class _SectionTree(Protocol):
    """What ``open_sections`` reads of the prompt (a ``PromptTemplate``, which builds this
    module's tool: typed structurally, so the two modules do not import each other)."""

    def section(self, path: SectionPath) -> object | None: ...

    def section_paths(self) -> tuple[SectionPath, ...]: ...


class _EvaluationView(Protocol):
    """What ``open_sections`` reads of its ``ToolContext`` (a runtime type, above this layer)."""

    @property
    def prompt(self) -> _SectionTree: ...

    @property
    def rendered_prompt(self) -> RenderedPrompt[Any] | None: ...


@frozen
class OpenSectionsParams:
    """Parameters for the open_sections tool."""

    section_keys: tuple[str, ...] = field(
        metadata={
            "description": (
                "Section keys to open. Each key identifies a summarized section. Use the keys "
                "shown in section summaries. Nested sections use dot notation "
                "(e.g., 'parent.child')."
            ),
            "min_length": 1,
        },
    )
    reason: str = field(
        metadata={
            "description": (
                "Brief explanation of why these sections need to be expanded. Helps the caller "
                "understand the model's information needs."
            ),
            "max_length": 256,
        },
    )


@frozen
class OpenSectionsResult:
    """The visibility overrides the model asked for: section path -> ``"full"``."""

    requested_overrides: dict[tuple[str, ...], str]

    def render(self) -> str:
        keys = ", ".join("/".join(path) for path in self.requested_overrides)
        return f"Sections requested for expansion: {keys}. Retry prompt with visibility overrides."

    def overrides(self) -> dict[SectionPath, SectionVisibility]:
        """The request as ``render(visibility_overrides=...)`` takes it."""
        return {path: SectionVisibility(value) for path, value in self.requested_overrides.items()}


def _open_sections(
    params: OpenSectionsParams, *, context: _EvaluationView
) -> ToolResult[OpenSectionsResult]:
    rendered = context.rendered_prompt
    summarized = set(rendered.summarized) if rendered is not None else set()
    requested: dict[tuple[str, ...], str] = {}
    problems: list[str] = []
    for key in params.section_keys:
        try:
            path = parse_path(key)
        except ValueError as error:
            problems.append(str(error))
            continue
        problem = _why_not_openable(path, summarized, context)
        if problem is not None:
            problems.append(problem)
        else:
            requested[path] = SectionVisibility.FULL.value
    if problems:
        openable = ", ".join(sorted(format_path(p) for p in summarized)) or "none"
        raise ToolValidationError(
            f"{'; '.join(problems)}. Sections you can open: {openable}.", tool_name=OPEN_SECTIONS
        )
    result = OpenSectionsResult(requested_overrides=requested)
    return ToolResult(message="", value=result)  # its render() is the whole message


def _why_not_openable(
    path: SectionPath, summarized: set[SectionPath], context: _EvaluationView
) -> str | None:
    if path in summarized:
        return None
    dotted = format_path(path)
    if context.prompt.section(path) is None:
        return f"there is no section {dotted!r}"
    for depth in range(len(path) - 1, 0, -1):
        if path[:depth] in summarized:
            return (
                f"section {dotted!r} is inside summarized {format_path(path[:depth])!r}; open that"
            )
    return f"section {dotted!r} is already fully visible"


@frozen
class DisclosureRequest:
    """Telemetry of an ``open_sections`` call: what was asked, why, and what was summarized."""

    requested_sections: tuple[str, ...]
    reason: str
    current_visibility_state: Mapping[str, str]


def disclosure_request(
    tool_name: str, params: object, prompt: _SectionTree, rendered: RenderedPrompt[Any]
) -> DisclosureRequest | None:
    """The telemetry for a call of ``open_sections`` (None for any other tool)."""
    if tool_name != OPEN_SECTIONS or not isinstance(params, OpenSectionsParams):
        return None
    summarized = rendered.summarized
    state = {format_path(path): "summary" for path in summarized}
    for path in prompt.section_paths():
        hidden = any(path[: len(s)] == s for s in summarized)
        if not hidden:
            state.setdefault(format_path(path), "full")
    return DisclosureRequest(tuple(params.section_keys), params.reason, state)


_TOOL: Tool[OpenSectionsParams, OpenSectionsResult] | None = None


def open_sections_tool() -> Tool[OpenSectionsParams, OpenSectionsResult]:
    """The builtin tool, built once; appended after user tools when a section is summarized."""
    global _TOOL
    if _TOOL is None:
        _TOOL = Tool[OpenSectionsParams, OpenSectionsResult](
            name=OPEN_SECTIONS,
            description="Open summarized prompt sections to see their full content.",
            handler=_open_sections,
            accepts_overrides=False,
            terminal=True,
        )
    return _TOOL


def requested_overrides(value: Any) -> dict[SectionPath, SectionVisibility]:
    """The overrides carried by an ``open_sections`` result value, or ``{}``."""
    if isinstance(value, OpenSectionsResult):
        return value.overrides()
    return {}
