"""``LogCapture``: every record some loggers write at DEBUG, to check that none carries content.

affordance's logs hold metadata only — never argument values, results or prompt text
(``specs/RUNTIME.md``, "Logging") — and an adapter must not make its SDK break that promise.
A test puts sentinel strings in the prompt, the arguments and the results, runs, and asks
:meth:`LogCapture.leaks` for the records that carry one (in their message, their arguments or
their extra fields).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from types import TracebackType

__all__ = ["LogCapture"]


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self._seen: set[int] = set()
        # Reentrant: a finalizer run by the garbage collector while a record is being added
        # (an HTTP response closed when collected) may log too, on this thread; a plain lock
        # would wait for itself forever.
        self._guard = threading.RLock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._guard:  # a record reaches this handler once per named ancestor
            if id(record) not in self._seen:
                self._seen.add(id(record))
                self.records.append(record)


class LogCapture:
    """Collects what ``affordance`` and the named loggers write while the block runs, each set
    to DEBUG meanwhile and kept from passing records on to the root logger's handlers (which
    would format thousands of DEBUG records for nothing); all restored after::

        with LogCapture(["openai", "httpx"]) as logs:
            adapter.evaluate(prompt)
        assert logs.leaks(["secret"]) == []
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names = tuple(dict.fromkeys(("affordance", *names)))
        self._handler = _Collect()
        self._saved: list[tuple[logging.Logger, int, bool]] = []

    @property
    def records(self) -> Sequence[logging.LogRecord]:
        return tuple(self._handler.records)

    def __enter__(self) -> LogCapture:
        for name in self.names:
            logger = logging.getLogger(name)
            self._saved.append((logger, logger.level, logger.propagate))
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            logger.addHandler(self._handler)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for logger, level, propagate in self._saved:
            logger.removeHandler(self._handler)
            logger.setLevel(level)
            logger.propagate = propagate
        self._saved.clear()

    def leaks(self, sentinels: Iterable[str]) -> list[str]:
        """``logger: message`` of each record holding one of ``sentinels`` anywhere."""
        wanted = tuple(sentinels)
        found = []
        for record in self.records:
            text = _text_of(record)
            if any(sentinel in text for sentinel in wanted):
                found.append(f"{record.name}: {text[:300]}")
        return found


def _text_of(record: logging.LogRecord) -> str:
    """The record's message, then everything else it holds (its arguments and extra fields)."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a record whose arguments do not fit its format
        message = str(record.msg)
    return f"{message} {record.__dict__!r}"
