"""The application's settings, from arguments or the environment."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from taskchat.data_home import default_database_url

__all__ = ["DEFAULT_TASK_QUEUE", "Settings"]

DEFAULT_TASK_QUEUE = "taskchat"


@dataclass(frozen=True, slots=True)
class Settings:
    """``database_url`` is any SQLAlchemy URL (``sqlite:///path.db``, ``postgresql://...``);
    by default the SQLite file ``taskchat.db`` in the user's data folder (``data_home.py``).

    ``tool_timeout`` bounds each tool call (seconds); ``chat_deadline`` bounds one chat request's
    whole evaluation; ``stream_keepalive`` is how long a chat stream stays silent before it
    sends a keep-alive comment. ``provider`` is ``scripted`` (offline, the default) or a
    provider plugin's name (``openai``, ``anthropic``, ``google``) with an optional ``model``;
    ``offline_pace`` is how long the offline model waits after each piece it streams.

    ``temporal`` (``host:port`` of a Temporal frontend) runs the agent durably on Temporal, on
    ``task_queue`` in ``temporal_namespace`` (see ``durable.py``); ``None``, the default, runs
    it in the server's process. ``temporal_worker`` also runs a worker inside the server.

    ``shutdown_grace``: on SIGTERM, how long the requests in flight may take to finish before
    they are cut off (seconds; ``0``: at once; see ``shutdown.py``).
    """

    database_url: str = field(default_factory=default_database_url)
    provider: str = "scripted"
    model: str | None = None
    offline_pace: float = 0.0
    tool_timeout: float = 15.0
    chat_deadline: float = 90.0
    stream_keepalive: float = 15.0
    github_api_url: str = "https://api.github.com"
    github_token: str | None = None
    github_timeout: float = 10.0
    temporal: str | None = None
    temporal_namespace: str = "default"
    task_queue: str = DEFAULT_TASK_QUEUE
    temporal_worker: bool = False
    shutdown_grace: float = 10.0

    def __post_init__(self) -> None:
        for name in ("tool_timeout", "chat_deadline", "stream_keepalive", "github_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.offline_pace < 0:
            raise ValueError(f"offline_pace must not be negative, got {self.offline_pace}")
        if not 0 <= self.shutdown_grace < math.inf:
            raise ValueError(f"shutdown_grace must be 0 or more seconds, got {self.shutdown_grace}")
        if self.temporal is not None and not self.temporal.strip():
            raise ValueError("temporal must be a Temporal frontend's host:port, got ''")
        if not self.task_queue.strip():
            raise ValueError("task_queue must not be empty")
        if self.temporal_worker and self.temporal is None:
            raise ValueError("temporal_worker needs temporal (a Temporal frontend's host:port)")

    @property
    def durable(self) -> bool:
        """Whether the agent runs durably on Temporal."""
        return self.temporal is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, **overrides: Any) -> Settings:
        """``TASKCHAT_DATABASE_URL``, ``TASKCHAT_PROVIDER``, ``TASKCHAT_MODEL``,
        ``TASKCHAT_TEMPORAL``, ``TASKCHAT_TEMPORAL_NAMESPACE``, ``TASKCHAT_TASK_QUEUE`` and
        ``GITHUB_TOKEN`` (and ``XDG_DATA_HOME`` for the default database), then ``overrides``
        (``None`` values are ignored)."""
        settings = cls(
            database_url=environ.get("TASKCHAT_DATABASE_URL") or default_database_url(environ),
            provider=environ.get("TASKCHAT_PROVIDER") or "scripted",
            model=environ.get("TASKCHAT_MODEL") or None,
            github_token=environ.get("GITHUB_TOKEN") or None,
            temporal=environ.get("TASKCHAT_TEMPORAL") or None,
            temporal_namespace=environ.get("TASKCHAT_TEMPORAL_NAMESPACE") or "default",
            task_queue=environ.get("TASKCHAT_TASK_QUEUE") or DEFAULT_TASK_QUEUE,
        )
        return replace(settings, **{k: v for k, v in overrides.items() if v is not None})
