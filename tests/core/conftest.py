"""Fixtures shared by the core tests.

``content_free_logs`` captures every ``affordance`` log record of a test; when the test ends it
fails if any record carries ``CONTENT_MARKER`` — the string tests put into arguments, results
and prompt text — since logs hold metadata only (see specs/RUNTIME.md, "Logging").
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

CONTENT_MARKER = "zq-CONTENT-5e2a"


class ContentFreeLogs:
    """The captured records, checked for content on demand and at the end of the test."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog
        self.marker = CONTENT_MARKER

    @property
    def records(self) -> list[logging.LogRecord]:
        return self.caplog.records

    def assert_clean(self) -> None:
        leaked = [
            record.getMessage()
            for record in self.caplog.records
            if self.marker in record.getMessage() or self.marker in repr(record.__dict__)
        ]
        assert not leaked, f"log records carry content: {leaked}"


@pytest.fixture
def content_free_logs(caplog: pytest.LogCaptureFixture) -> Iterator[ContentFreeLogs]:
    with caplog.at_level(logging.DEBUG, logger="affordance"):
        logs = ContentFreeLogs(caplog)
        yield logs
    logs.assert_clean()
