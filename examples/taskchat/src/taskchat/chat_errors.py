"""What a chat request can fail with: each error carries its HTTP ``status`` and ``code``.

The plain endpoint answers them as JSON with that status; the streaming endpoint does the same
before its stream starts, and sends them as its final ``error`` event after.
"""

from __future__ import annotations

from typing import Any

from taskchat.request_problems import problems_message

__all__ = [
    "ChatError",
    "ConfirmationMismatchError",
    "ConfirmationRequiredError",
    "ConversationBusyError",
    "ConversationNotFoundError",
    "DurableRunUnavailableError",
    "InvalidChatRequestError",
    "ModelFailureError",
    "ModelTimeoutError",
    "NothingToConfirmError",
    "ShuttingDownError",
]


class ChatError(Exception):
    """A request the service cannot carry out; ``status`` and ``code`` are for the HTTP answer."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def body(self) -> dict[str, Any]:
        """The JSON error body: ``{"error": {"code", "message", ...details}}``."""
        return {"error": {"code": self.code, "message": self.message, **self.details}}


class ConversationNotFoundError(ChatError):
    status, code = 404, "conversation_not_found"


class ConfirmationRequiredError(ChatError):
    status, code = 409, "confirmation_required"


class ConfirmationMismatchError(ChatError):
    status, code = 409, "confirmation_mismatch"


class NothingToConfirmError(ChatError):
    status, code = 409, "nothing_to_confirm"


class ConversationBusyError(ChatError):
    status, code = 409, "conversation_busy"


class InvalidChatRequestError(ChatError):
    """A request the schema accepts and the service cannot take, told as every ``422`` is: one
    problem with the ``field`` it is about (``request_problems.py``)."""

    status, code = 422, "invalid_request"

    def __init__(self, field: str, problem: str) -> None:
        problems = [{"field": field, "problem": problem}]
        super().__init__(problems_message(problems), problems=problems)


class ModelFailureError(ChatError):
    status, code = 502, "model_error"


class ModelTimeoutError(ChatError):
    status, code = 504, "model_timeout"


class DurableRunUnavailableError(ChatError):
    """The conversation's run waits in Temporal and this server cannot reach it (it runs
    without ``--temporal``, or Temporal does not answer)."""

    status, code = 503, "durable_run_unavailable"


class ShuttingDownError(ChatError):
    """The server is shutting down and its grace period ended before the request finished: the
    request was stopped, exactly as when a streaming client leaves (see ``shutdown.py``)."""

    status, code = 503, "shutting_down"
