"""Asking the MCP client to confirm a destructive call, by a form elicitation.

The executor holds a destructive call until it is confirmed (specs/RUNTIME.md). Served over
MCP, the server asks the client — a form with one boolean field, ``confirm``, and a message
naming the tool and its validated arguments — in the way the connection's protocol speaks:

- up to 2025-11-25, an ``elicitation/create`` request sent while the call waits;
- from 2026-07-28, an ``InputRequiredResult`` carrying that request: the client asks, then
  sends the call again with the answer and the ``request_state`` it was given. That state is
  an HMAC, under a key only this server knows, of the tool's name and arguments: an answer
  counts only for the call it was asked about, else the question is asked again.

An answer that accepts with ``confirm`` true runs the call; anything else (declined,
cancelled, accepted unticked) is ``declined_result`` — "The user declined to run 'x'; it
was not run." A client that did not declare form elicitation cannot confirm, so the call is
refused with a result saying so, and never runs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any, Final, Literal

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types.version import is_version_at_least

from affordance import ToolResult, declined_result
from affordance.runtime import PreparedCall
from affordance.serde import dump

__all__ = ["CONFIRM_FIELD", "Confirmations", "cannot_confirm", "confirmation_message"]

CONFIRM_FIELD: Final = "confirm"
"""The form's one field: ``true`` runs the call."""

_INPUT_REQUIRED_VERSION = "2026-07-28"  # the first protocol asking through InputRequiredResult
_MESSAGE_ARGUMENTS_LIMIT = 2000  # characters of arguments shown in the question


class Confirmations:
    """Asks the client about destructive calls; one per server (it holds the HMAC key)."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    async def ask(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        prepared: PreparedCall,
    ) -> Literal[True] | ToolResult[None] | types.InputRequiredResult:
        """``True`` when the user confirmed the call; the refusal to answer with otherwise;
        or, on a 2026-07-28 connection not yet answered, the question to return."""
        name = prepared.call.name
        if not _can_elicit_forms(ctx):
            return cannot_confirm(name, "it does not support form elicitation")
        arguments = _arguments(prepared)
        question = types.ElicitRequestFormParams(
            message=confirmation_message(name, arguments),
            requested_schema=_form(name),
        )
        if not _asks_by_input_required(ctx):
            try:
                answer = await ctx.session.elicit_form(
                    question.message, question.requested_schema, related_request_id=ctx.request_id
                )
            except MCPError as error:  # no back-channel, or the client failed to ask
                return cannot_confirm(name, f"asking it failed ({error.message})")
            return _outcome(name, answer)
        state = self._state(name, arguments)
        answer_now = (params.input_responses or {}).get(CONFIRM_FIELD)
        if isinstance(answer_now, types.ElicitResult) and _same(params.request_state, state):
            return _outcome(name, answer_now)
        return types.InputRequiredResult(
            input_requests={CONFIRM_FIELD: types.ElicitRequest(params=question)},
            request_state=state,
        )

    def _state(self, name: str, arguments: Any) -> str:
        asked = json.dumps([name, arguments], sort_keys=True, separators=(",", ":"))
        return hmac.new(self._key, asked.encode(), hashlib.sha256).hexdigest()


def confirmation_message(name: str, arguments: Any) -> str:
    """The question shown to the user: the tool and its validated arguments (shortened when
    long)."""
    shown = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    if len(shown) > _MESSAGE_ARGUMENTS_LIMIT:
        shown = shown[:_MESSAGE_ARGUMENTS_LIMIT] + "…"
    return f"Run the destructive tool '{name}' with these arguments?\n{shown}"


def cannot_confirm(name: str, why: str) -> ToolResult[None]:
    """The refusal of a destructive call this client cannot be asked about."""
    return ToolResult.error(
        f"Tool '{name}' is destructive and runs only once the user confirms it, but this MCP "
        f"client cannot ask: {why}. It was not run."
    )


def _form(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            CONFIRM_FIELD: {
                "type": "boolean",
                "title": f"Run {name}",
                "description": f"Tick to let '{name}' run; leave it unticked to refuse.",
                "default": False,
            }
        },
        "required": [CONFIRM_FIELD],
    }


def _outcome(name: str, answer: types.ElicitResult) -> Literal[True] | ToolResult[None]:
    if answer.action == "accept" and (answer.content or {}).get(CONFIRM_FIELD) is True:
        return True
    if answer.action == "cancel":
        return declined_result(name, "the user dismissed the confirmation")
    return declined_result(name)


def _arguments(prepared: PreparedCall) -> Any:
    """The validated arguments as JSON data (what the tool will receive)."""
    return dump(prepared.params) if prepared.params is not None else {}


def _can_elicit_forms(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared form elicitation (a bare ``elicitation: {}``, the shape
    before modes existed, counts; URL-only does not)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _asks_by_input_required(ctx: ServerRequestContext[Any, Any]) -> bool:
    return is_version_at_least(ctx.protocol_version, _INPUT_REQUIRED_VERSION)


def _same(sent: str | None, expected: str) -> bool:
    return sent is not None and hmac.compare_digest(sent, expected)
