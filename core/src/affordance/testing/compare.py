"""Comparing two evaluations' outcomes, e.g. a streamed run against ``evaluate``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from affordance.runtime import PromptResponse, ToolCallResult

__all__ = ["comparable", "comparable_calls"]


def comparable(response: PromptResponse[Any]) -> dict[str, Any]:
    """Everything a response says about the run, without what differs between two runs of the
    same conversation (the run id and the session object): equal for equal outcomes."""
    return {
        "output": response.output,
        "text": response.text,
        "tool_results": comparable_calls(response.tool_results),
        "hosted_outputs": dict(response.hosted_outputs),
        "usage": response.usage,
        "pending_confirmations": response.pending_confirmations,
        "expansion": response.expansion,
        "finish_reason": response.finish_reason,
        "turns": response.turns,
        "messages": response.messages,
    }


def comparable_calls(results: Sequence[ToolCallResult]) -> list[tuple[Any, ...]]:
    """Tool calls and their results as :func:`comparable` compares them: the call, the
    result's success, message and value, the params and the turn."""
    return [
        (r.call, r.result.success, r.result.message, r.result.value, r.params, r.turn)
        for r in results
    ]
