"""``Rendering``: the prompt as a run's requests show it to the model.

A run renders its prompt once, with the session's opened sections, the caller's visibility
overrides and text overrides, and again each time the model opens sections (``open_sections``;
the opened paths are kept in the session too). Each render indexes the tools it exposes, by
name, and publishes ``PromptRendered`` when anyone watches. What a request declares of the
prompt's hosted tools is what the executor's policy allows (a refused one is a
``ToolCallDenied`` on the first turn), and what it carries of a tool result's attachments is
what the model takes, within the runner's ``max_attachment_bytes``.

A mixin of :class:`~affordance.runtime.loop.Evaluation`, which holds every attribute in its
own slots; ``_RenderingRun`` names what these methods read and write of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from affordance.attachments import DEFAULT_MAX_ATTACHMENT_BYTES
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.model.attachment_rules import admitted, support_of
from affordance.runtime.model.messages import UserMessage
from affordance.runtime.record.events import PromptRendered, ToolCallDenied
from affordance.runtime.record.session import Session
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.attachments import Attachment
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import OverridesStore

__all__ = ["Rendering"]


class _RenderingRun(Protocol):
    """The evaluation as its rendering sees it."""

    adapter: EvaluationRunner
    prompt: PromptTemplate[Any]
    params: tuple[Any, ...]
    session: Session
    executor: ToolExecutor
    run_id: str
    turn: int
    overrides: OverridesStore | PromptOverrides | None
    overrides_tag: str
    rendered: RenderedPrompt[Any]
    opened: list[SectionPath]
    _overrides: dict[SectionPath, SectionVisibility]
    _opening: UserMessage
    _tools: dict[str, Tool[Any, Any]]

    def _render(self) -> None: ...

    def _attachment_limit(self) -> int | None: ...

    def _observed(self, event_type: type[Any]) -> bool: ...

    def _emit(self, event: object) -> None: ...


class Rendering:
    """An evaluation's rendered prompt, its opened sections, and what its requests declare."""

    __slots__ = ()

    # what these methods set (the evaluation's slots)
    rendered: RenderedPrompt[Any]
    _opening: UserMessage
    _tools: dict[str, Tool[Any, Any]]

    def _render(self: _RenderingRun) -> None:
        """Render with the current overrides; the exposed tools are indexed once per render."""
        overrides = self.overrides
        if overrides is None:
            rendered = self.prompt.render(
                *self.params, visibility_overrides=self._overrides or None
            )
        else:
            rendered = self.prompt.render(
                *self.params,
                visibility_overrides=self._overrides or None,
                overrides=overrides,
                overrides_tag=self.overrides_tag,
            )
        self.rendered = rendered
        self._opening = UserMessage(rendered.text)  # the first message, without instructions
        self._tools = {tool.name: tool for tool in rendered.tools}
        if self._observed(PromptRendered):
            self._emit(PromptRendered(self.prompt.name, self.run_id, rendered))

    def _open(self: _RenderingRun, overrides: Mapping[SectionPath, SectionVisibility]) -> None:
        self._overrides.update(overrides)
        self.session.open_sections(overrides)
        self.opened.extend(overrides)
        self._render()

    def _allowed_hosted(
        self: _RenderingRun, hosted: tuple[HostedTool[Any], ...]
    ) -> tuple[HostedTool[Any], ...]:
        policy = self.executor.policy
        if policy is None or not hosted:
            return hosted
        kept: list[HostedTool[Any]] = []
        for tool in hosted:
            decision = policy.check(tool)
            if decision.allowed:
                kept.append(tool)
            elif self.turn == 1:
                self._emit(
                    ToolCallDenied(self.prompt.name, self.run_id, "", tool.name, decision.reason)
                )
        return tuple(kept)

    def _attachment_limit(self: _RenderingRun) -> int | None:
        limit: int | None = getattr(
            self.adapter, "max_attachment_bytes", DEFAULT_MAX_ATTACHMENT_BYTES
        )
        return limit

    def _admit(self: _RenderingRun, attachments: object) -> tuple[tuple[Attachment, ...], str]:
        """What of a tool result's attachments the request carries (see ``admitted``)."""
        connection = self.adapter.connection
        return admitted(
            attachments, support_of(connection), self._attachment_limit(), provider=connection.name
        )
