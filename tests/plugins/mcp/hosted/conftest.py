"""The hosted-MCP tests share their wire samples (``hosted_mcp_samples``, next to this file):
this directory goes on ``sys.path`` so each test module imports them by name."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
