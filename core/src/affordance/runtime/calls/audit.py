"""``ToolCallAudit``: every tool call's record, kept as JSON lines in a file of your choosing.

Seed 004 asked whether tool call logs should persist for audit. They do, when the application
says where: the executor already writes one metadata-only record per call on the
``affordance.tools`` logger (run, turn and call ids, tool, argument keys and kinds, outcome,
duration, attempts, error code, cached — never argument values, results or prompt text), and
this handler appends each as one JSON object per line. Nothing is kept unless a handler is
attached: the library itself never writes files. Any other ``logging`` handler (a database, a
log shipper) is as good a sink; this one is the ready-made file.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

__all__ = ["ToolCallAudit"]

_PREFIX = "affordance_"


class ToolCallAudit(logging.Handler):
    """Appends each tool call record of ``logger`` (``affordance.tools``) to the file at
    ``path`` as a JSON line: ``time`` (UTC, ISO 8601), ``level``, ``message`` and the record's
    ``affordance_*`` fields without their prefix. Attached on creation; :meth:`close` detaches
    it, closes the file and restores the logger's level. Content records
    (``ToolExecutor(log_content=True)``, at DEBUG) are left out unless ``level`` lets them in.

    While it is attached the logger makes records at ``level`` and up: if it did not (its level
    unset under a root at WARNING), it is set to ``level``, and other handlers the records
    propagate to see them too (give those a level of their own).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        logger: str = "affordance.tools",
        level: int = logging.INFO,
    ) -> None:
        super().__init__(level)
        self.path = Path(path)
        self._file: TextIO = self.path.open("a", encoding="utf-8")
        self._write_lock = threading.Lock()
        self._logger = logging.getLogger(logger)
        self._level_before = self._logger.level
        if not self._logger.isEnabledFor(level):
            self._logger.setLevel(level)  # the records must be made at all; restored on close
        self._logger.addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(),
            "level": record.levelname,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key.startswith(_PREFIX):
                entry[key[len(_PREFIX) :]] = value
        try:
            line = json.dumps(entry, ensure_ascii=False, default=str)
            with self._write_lock:
                self._file.write(line + "\n")
                self._file.flush()
        except Exception:  # noqa: BLE001 - logging's own rule: a handler never raises
            self.handleError(record)

    def close(self) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level_before)
        with self._write_lock:
            if not self._file.closed:
                self._file.close()
        super().close()
