"""The tests of ``affordance_mcp.serving`` import the served prompt (``mcp_serve_board``) and
their helpers (``mcp_serve_support``) from this directory, as the served subprocesses import
the prompt from their working directory."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
