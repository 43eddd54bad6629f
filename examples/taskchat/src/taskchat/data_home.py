"""Where taskchat keeps its data when told nothing else: the user's data folder, by the XDG rule.

``taskchat`` does not depend on platformdirs, so the rule is written out here: the folder is
``$XDG_DATA_HOME/taskchat``, or ``~/.local/share/taskchat`` when that variable is unset, empty
or not an absolute path (the XDG Base Directory specification ignores a relative one).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["default_database_url", "user_data_folder"]


def user_data_folder(environ: Mapping[str, str] = os.environ) -> Path:
    """taskchat's folder under the user's data directory (not created here)."""
    base = environ.get("XDG_DATA_HOME", "")
    if base and Path(base).is_absolute():
        root = Path(base)
    else:
        home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
        root = home / ".local" / "share"
    return root / "taskchat"


def default_database_url(environ: Mapping[str, str] = os.environ) -> str:
    """The SQLite file ``taskchat.db`` in :func:`user_data_folder`; opening it creates the
    folder (see ``database.py``)."""
    return f"sqlite:///{user_data_folder(environ) / 'taskchat.db'}"
