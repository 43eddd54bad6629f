"""Metadata-only logging of tool calls.

Records carry correlation ids, the tool name, argument keys and value kinds, duration, outcome
and error code — never argument values, results or prompt text, unless content logging is
switched on explicitly (``ToolExecutor(log_content=True)``), and then only at DEBUG level.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from affordance.runtime.record.log_context import current_log_fields

__all__ = ["argument_kinds", "call_level", "log_call", "log_overrun"]

logger = logging.getLogger("affordance.tools")
logging.getLogger("affordance").addHandler(logging.NullHandler())

_KINDS: dict[type[Any], str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    dict: "object",
    list: "array",
}


def argument_kinds(arguments: object) -> dict[str, str]:
    """``{"title": "string", "tags": "array"}`` for a parsed arguments object."""
    if not isinstance(arguments, Mapping):
        return {}
    return {str(key): _KINDS.get(type(value), "other") for key, value in arguments.items()}


def call_level(success: bool) -> int | None:
    """The level a call that succeeded (or failed) is logged at; None when ``affordance.tools``
    would drop the record, which is then not built."""
    level = logging.INFO if success else logging.WARNING
    return level if logger.isEnabledFor(level) else None


def log_call(
    *,
    level: int,
    run_id: str,
    turn: int,
    call_id: str,
    tool: str,
    arguments: object,
    outcome: str,
    duration: float,
    attempts: int,
    error_code: str | None,
    cached: bool,
    content: Mapping[str, str] | None = None,
) -> None:
    """Log one call at ``level`` (:func:`call_level`'s)."""
    kinds = argument_kinds(arguments)
    extra: dict[str, Any] = {
        "affordance_run_id": run_id,
        "affordance_turn": turn,
        "affordance_call_id": call_id,
        "affordance_tool": tool,
        "affordance_arg_keys": tuple(kinds),
        "affordance_arg_kinds": kinds,
        "affordance_outcome": outcome,
        "affordance_duration_ms": round(duration * 1000, 3),
        "affordance_attempts": attempts,
        "affordance_error_code": error_code,
        "affordance_cached": cached,
    }
    for name, value in current_log_fields().items():
        extra[f"affordance_{name}"] = value
    logger.log(
        level,
        "tool call %s outcome=%s duration_ms=%.3f attempts=%d%s",
        tool,
        outcome,
        duration * 1000,
        attempts,
        f" error_code={error_code}" if error_code else "",
        extra=extra,
    )
    if content is not None and logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "tool call %s content",
            tool,
            extra={**extra, "affordance_content": dict(content)},
        )


def log_overrun(
    *,
    run_id: str,
    turn: int,
    call_id: str,
    tool: str,
    handler: str,
    elapsed: float,
    timeout: float,
) -> None:
    """Warn that an async handler returned past its timeout: it blocked the event loop."""
    logger.warning(
        "tool %s: async handler %s blocked the event loop past its timeout (%.3fs > %gs); "
        "reported as timed out. Run blocking work in asyncio.to_thread.",
        tool,
        handler,
        elapsed,
        timeout,
        extra={
            "affordance_run_id": run_id,
            "affordance_turn": turn,
            "affordance_call_id": call_id,
            "affordance_tool": tool,
            "affordance_handler": handler,
            "affordance_elapsed_ms": round(elapsed * 1000, 3),
            "affordance_timeout": timeout,
        },
    )
