"""The application's settings, from arguments or the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["DEFAULT_DATABASE_URL", "Settings"]

DEFAULT_DATABASE_URL = "sqlite:///taskchat.db"


@dataclass(frozen=True, slots=True)
class Settings:
    """``database_url`` is any SQLAlchemy URL (``sqlite:///path.db``, ``postgresql://...``).

    ``tool_timeout`` bounds each tool call (seconds); ``chat_deadline`` bounds one chat request's
    whole evaluation; ``stream_keepalive`` is how long a chat stream stays silent before it
    sends a keep-alive comment. ``provider`` is ``scripted`` (offline, the default) or a
    provider plugin's name (``openai``, ``anthropic``, ``google``) with an optional ``model``;
    ``offline_pace`` is how long the offline model waits after each piece it streams.
    """

    database_url: str = DEFAULT_DATABASE_URL
    provider: str = "scripted"
    model: str | None = None
    offline_pace: float = 0.0
    tool_timeout: float = 15.0
    chat_deadline: float = 90.0
    stream_keepalive: float = 15.0
    github_api_url: str = "https://api.github.com"
    github_token: str | None = None
    github_timeout: float = 10.0

    def __post_init__(self) -> None:
        for name in ("tool_timeout", "chat_deadline", "stream_keepalive", "github_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.offline_pace < 0:
            raise ValueError(f"offline_pace must not be negative, got {self.offline_pace}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, **overrides: Any) -> Settings:
        """``TASKCHAT_DATABASE_URL``, ``TASKCHAT_PROVIDER``, ``TASKCHAT_MODEL`` and
        ``GITHUB_TOKEN``, then ``overrides`` (``None`` values are ignored)."""
        settings = cls(
            database_url=environ.get("TASKCHAT_DATABASE_URL") or DEFAULT_DATABASE_URL,
            provider=environ.get("TASKCHAT_PROVIDER") or "scripted",
            model=environ.get("TASKCHAT_MODEL") or None,
            github_token=environ.get("GITHUB_TOKEN") or None,
        )
        return replace(settings, **{k: v for k, v in overrides.items() if v is not None})
