"""Request bodies kept out of an SDK's debug log.

Some SDKs write each request's options to their logger at DEBUG, its JSON body included — the
prompt, the tool arguments and their results (``anthropic``: "Request options: {...}";
``openai`` 1.x did too). affordance's logs never carry content (``specs/RUNTIME.md``,
"Logging"), and an adapter must not let its SDK break that promise: it calls
:func:`withhold_bodies` once for the SDK's logger and sends each request inside
:func:`bodies_withheld`. Records that logger writes meanwhile keep their metadata but carry
:data:`WITHHELD` instead of the body; the application's own requests through the same SDK are
logged as the SDK logs them. Nothing here knows an SDK.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

__all__ = ["WITHHELD", "bodies_withheld", "withhold_bodies"]

WITHHELD = "<withheld by affordance>"
"""What a request's body, content and files read as in a withheld record."""

_BODY_FIELDS = frozenset({"json_data", "extra_json", "content", "files"})
_withholding: ContextVar[bool] = ContextVar("affordance_withholding_bodies", default=False)


class _WithholdBodies(logging.Filter):
    """Replaces the body fields of an options mapping among a record's arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _withholding.get():
            args = record.args
            if isinstance(args, Mapping):
                record.args = _withheld(args)
            elif isinstance(args, tuple):
                record.args = tuple(
                    _withheld(arg) if isinstance(arg, Mapping) else arg for arg in args
                )
        return True


def _withheld(options: Mapping[str, Any]) -> Mapping[str, Any]:
    if _BODY_FIELDS.isdisjoint(options):
        return options
    return {
        key: WITHHELD if key in _BODY_FIELDS and value is not None else value
        for key, value in options.items()
    }


def withhold_bodies(logger_name: str) -> None:
    """Have the logger named ``logger_name`` (the SDK module that logs request options; filters
    apply to the logger a record is made on, not its parents) withhold bodies inside
    :func:`bodies_withheld`. Idempotent."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(found, _WithholdBodies) for found in logger.filters):
        logger.addFilter(_WithholdBodies())


class bodies_withheld:  # noqa: N801 - used as a function: ``with bodies_withheld():``
    """Send requests in this block: the SDK's records of them carry no body. Enter it around
    the call that sends (and retries), never across a ``yield``. (A class rather than a
    ``contextmanager`` generator: it is entered for every request.)"""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _withholding.set(True)

    def __exit__(self, *exc_info: object) -> None:
        _withholding.reset(self._token)
