"""Fixtures of the affordance-otel tests: an instrumented process (the real SDK's in-memory
exporter and metric reader), uninstrumented again at teardown. Helpers are in
``otel_support``, imported from this directory."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from otel_support import Telemetry  # noqa: E402 - importable once HERE is on the path


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    made = Telemetry()
    yield made
    made.close()


@pytest.fixture
def telemetry_with_content() -> Iterator[Telemetry]:
    made = Telemetry(capture_content=True)
    yield made
    made.close()
