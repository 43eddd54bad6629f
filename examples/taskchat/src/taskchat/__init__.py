"""taskchat: a task-manager chat assistant built on affordance (seed 004).

``taskchat serve`` runs it; :func:`taskchat.app.create_app` builds the FastAPI app.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
