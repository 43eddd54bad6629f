"""Comparing two evaluations' outcomes, e.g. a streamed run against ``evaluate``."""

from __future__ import annotations

from typing import Any

from affordance.runtime.response import PromptResponse

__all__ = ["comparable"]


def comparable(response: PromptResponse[Any]) -> dict[str, Any]:
    """Everything a response says about the run, without what differs between two runs of the
    same conversation (the run id and the session object): equal for equal outcomes."""
    return {
        "output": response.output,
        "text": response.text,
        "tool_results": [
            (r.call, r.result.success, r.result.message, r.result.value, r.params, r.turn)
            for r in response.tool_results
        ],
        "hosted_outputs": dict(response.hosted_outputs),
        "usage": response.usage,
        "pending_confirmations": response.pending_confirmations,
        "expansion": response.expansion,
        "finish_reason": response.finish_reason,
        "turns": response.turns,
        "messages": response.messages,
    }
