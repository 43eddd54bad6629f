"""Cheap unique ids for runs and sessions: a random per-process prefix and a counter.

``uuid4()`` costs microseconds per call on the per-run path; these ids are unique within a
process and, through the random prefix, across processes in practice.
"""

from __future__ import annotations

import itertools
import os

__all__ = ["new_id"]

_PREFIX = os.urandom(6).hex()
_counter = itertools.count(1)


def new_id() -> str:
    return f"{_PREFIX}{next(_counter):08x}"
