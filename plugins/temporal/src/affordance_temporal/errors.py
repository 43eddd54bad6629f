"""Errors of durable runs, and their names as Temporal failure types."""

from __future__ import annotations

from typing import Any

from affordance import PromptEvaluationError

__all__ = [
    "EVALUATION_FAILURE",
    "REGISTRY_MISMATCH",
    "RegistryMismatchError",
    "evaluation_error_details",
    "evaluation_error_from_details",
]

EVALUATION_FAILURE = "PromptEvaluationError"
"""The Temporal failure type of a run that ended as ``evaluate`` would have raised."""

REGISTRY_MISMATCH = "RegistryMismatchError"


class RegistryMismatchError(Exception):
    """A worker's registry does not build the prompt the workflow rendered (a different tool
    list, an unknown params type): deploy the same registry to every process. Never retried."""


def evaluation_error_details(error: PromptEvaluationError) -> dict[str, Any]:
    """A ``PromptEvaluationError`` as data (the details of its Temporal failure)."""
    return {
        "message": error.message,
        "prompt_name": error.prompt_name,
        "phase": error.phase,
        "provider": error.provider,
        "status": error.status,
        "request_id": error.request_id,
        "raw_text": error.raw_text,
    }


def evaluation_error_from_details(details: Any) -> PromptEvaluationError | None:
    """The error back from :func:`evaluation_error_details`, or None for other data."""
    if not isinstance(details, dict) or not isinstance(details.get("message"), str):
        return None
    status = details.get("status")
    return PromptEvaluationError(
        details["message"],
        prompt_name=_text(details.get("prompt_name")),
        phase=_text(details.get("phase")) or "request",
        provider=_text(details.get("provider")),
        status=status if isinstance(status, int) else None,
        request_id=_text(details.get("request_id")),
        raw_text=_text(details.get("raw_text")),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
