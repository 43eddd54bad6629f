"""A tool call on its way through the executor: :class:`PreparedCall` once it is looked up,
checked and parsed, :class:`CallOutcome` once it has run (or was answered without running).

The loop and the drivers pass these between ``ToolExecutor.prepare``, ``run``/``arun`` and
``finish``; ``affordance.runtime.calls.executor`` re-exports both.
"""

from __future__ import annotations

from typing import Any

from affordance._frozen import frozen
from affordance.prompt.disclosure import DisclosureRequest
from affordance.runtime.model.messages import ToolCall
from affordance.runtime.record.events import ToolInvoked
from affordance.tools.result import ToolResult
from affordance.tools.tool import Tool

__all__ = ["CallOutcome", "PreparedCall"]


@frozen
class PreparedCall:
    """A call after lookup and validation. ``result`` is set when it need not (or may not) run."""

    call: ToolCall
    tool: Tool[Any, Any] | None
    arguments: object = None
    params: Any = None
    result: ToolResult[Any] | None = None
    needs_confirmation: bool = False
    cache_key: str | None = None
    cached: bool = False
    denial: str | None = None


@frozen
class CallOutcome:
    """What running a prepared call produced. ``rendered`` is ``result.render()`` when the
    executor already computed it (to check the value can be sent), so it is done once."""

    prepared: PreparedCall
    result: ToolResult[Any]
    duration: float = 0.0
    attempts: int = 0
    error_code: str | None = None
    rendered: str | None = None

    def invoked(
        self,
        prompt_name: str,
        run_id: str,
        turn: int,
        *,
        disclosure: DisclosureRequest | None = None,
        attempts: int | None = None,
    ) -> ToolInvoked:
        """The ``ToolInvoked`` that reports this outcome — from a run, a served MCP call or a
        durable run's activity alike. ``attempts`` when they are counted elsewhere (a durable
        run's: Temporal's attempt); ``disclosure`` for an ``open_sections`` call."""
        prepared = self.prepared
        result = self.result
        # every field in order, none by keyword: a class called with keywords passes them
        # through a dict built per call (one event per call of every run)
        return ToolInvoked(
            prompt_name,
            run_id,
            turn,
            prepared.call.id,  # call_id
            prepared.call.name,  # name
            prepared.params,
            result,
            self.rendered if self.rendered is not None else result.render(),  # rendered_output
            self.duration,
            self.attempts if attempts is None else attempts,
            prepared.cached,
            disclosure,
        )
