"""Fetching GitHub pull requests and issues for attachments, through an injectable HTTP client.

Failures come back as :class:`affordance.ToolError` with guidance the model can act on (seed
004's error design): rate limits, 401/403, 404, upstream errors and timeouts each get a code and
a ``recover_action``. Only upstream errors and network failures are ``retryable`` (the executor
retries those at once); a rate limit is not, because its wait is minutes long.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

import httpx

from affordance import ToolError

__all__ = ["GitHubClient", "GitHubItem", "GitHubRef", "attachment_kind"]

DEFAULT_API_URL = "https://api.github.com"
_MAX_BODY_CHARS = 4000
_URL = re.compile(
    r"^https://github\.com/(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/"
    r"(?P<repo>[A-Za-z0-9._-]{1,100})/(?P<what>pull|issues)/(?P<number>[1-9][0-9]{0,9})"
    r"(?:[/?#].*)?$"
)


@dataclass(frozen=True, slots=True)
class GitHubRef:
    """A pull request or issue named by its github.com URL."""

    owner: str
    repo: str
    number: int
    kind: Literal["github_pull_request", "github_issue"]

    @classmethod
    def from_url(cls, url: str) -> GitHubRef | None:
        match = _URL.match(url.strip())
        if match is None:
            return None
        kind: Literal["github_pull_request", "github_issue"] = (
            "github_pull_request" if match["what"] == "pull" else "github_issue"
        )
        return cls(match["owner"], match["repo"], int(match["number"]), kind)

    @property
    def api_path(self) -> str:
        collection = "pulls" if self.kind == "github_pull_request" else "issues"
        return f"/repos/{self.owner}/{self.repo}/{collection}/{self.number}"

    @property
    def label(self) -> str:
        return f"{self.owner}/{self.repo}#{self.number}"


def attachment_kind(url: str) -> Literal["github_pull_request", "github_issue", "link"]:
    ref = GitHubRef.from_url(url)
    return ref.kind if ref is not None else "link"


@dataclass(frozen=True, slots=True)
class GitHubItem:
    ref: GitHubRef
    title: str
    state: str
    author: str | None
    body: str
    updated_at: str | None
    merged: bool = False
    draft: bool = False

    def summary(self) -> str:
        """The text stored as the attachment's content."""
        noun = "Pull request" if self.ref.kind == "github_pull_request" else "Issue"
        state = "merged" if self.merged else self.state
        if self.draft:
            state += " (draft)"
        lines = [f"{noun} {self.ref.label}: {self.title}", f"State: {state}"]
        if self.author:
            lines.append(f"Author: {self.author}")
        if self.updated_at:
            lines.append(f"Updated: {self.updated_at}")
        body = self.body.strip()
        if len(body) > _MAX_BODY_CHARS:
            body = body[: _MAX_BODY_CHARS - 1] + "…"
        return "\n".join(lines) + (f"\n\n{body}" if body else "")


class GitHubClient:
    """GitHub's REST API for one item at a time.

    ``http`` is the injectable client (tests pass one, or point ``api_url`` at a loopback
    server); ``token`` raises the rate limit and opens private repositories.
    """

    def __init__(
        self,
        http: httpx.Client | None = None,
        *,
        api_url: str = DEFAULT_API_URL,
        token: str | None = None,
        timeout: float = 10.0,
        now: Callable[[], float] = time.time,
    ) -> None:
        self._http = http if http is not None else httpx.Client()
        self._owns_http = http is None
        self._api_url = api_url.rstrip("/")
        self._timeout = timeout
        self._now = now
        self._headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "taskchat",
        }
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self.authenticated = bool(token)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def fetch(self, ref: GitHubRef) -> GitHubItem:
        """The item's title, state, author and body; raises ``ToolError`` on any failure."""
        try:
            response = self._http.get(
                self._api_url + ref.api_path, headers=self._headers, timeout=self._timeout
            )
        except httpx.TimeoutException:
            raise ToolError(
                "FETCH_TIMEOUT",
                f"GitHub did not answer within {self._timeout:g}s for {ref.label}",
                retryable=True,
                recover_action="Try again in a minute; tell the user if it keeps failing",
            ) from None
        except httpx.HTTPError as error:
            raise ToolError(
                "FETCH_FAILED",
                f"Could not reach GitHub for {ref.label} ({type(error).__name__})",
                retryable=True,
                recover_action="Try again later; the network or GitHub may be down",
            ) from None
        if response.status_code != 200:
            raise self._status_error(ref, response)
        try:
            data = response.json()
        except ValueError:
            raise ToolError(
                "FETCH_FAILED",
                f"GitHub sent an unreadable answer for {ref.label}",
                retryable=True,
                recover_action="Try again later",
            ) from None
        return _item(ref, data)

    def _status_error(self, ref: GitHubRef, response: httpx.Response) -> ToolError:
        status = response.status_code
        headers = response.headers
        if status == 429 or (status == 403 and headers.get("x-ratelimit-remaining") == "0"):
            return ToolError(
                "RATE_LIMITED",
                "GitHub rate limit exceeded",
                recover_action=self._rate_limit_advice(headers),
            )
        if status == 401:
            return ToolError(
                "UNAUTHORIZED",
                "GitHub rejected the configured token",
                recover_action="Ask the operator to check GITHUB_TOKEN",
            )
        if status == 403:
            return ToolError(
                "FORBIDDEN",
                f"Access to {ref.owner}/{ref.repo} is forbidden",
                recover_action="Check repository permissions or verify GITHUB_TOKEN",
            )
        if status == 404:
            private = "" if self.authenticated else "; a private repository needs GITHUB_TOKEN"
            return ToolError(
                "NOT_FOUND",
                f"{ref.label} was not found on GitHub",
                recover_action=f"Check the URL with the user{private}",
            )
        if status >= 500:
            return ToolError(
                "UPSTREAM_ERROR",
                f"GitHub answered {status} for {ref.label}",
                retryable=True,
                recover_action="Try again later",
            )
        return ToolError(
            "FETCH_FAILED",
            f"GitHub answered {status} for {ref.label}",
            recover_action=f"Check that {ref.label} exists",
        )

    def _rate_limit_advice(self, headers: httpx.Headers) -> str:
        wait: float | None = None
        retry_after = headers.get("retry-after", "")
        reset = headers.get("x-ratelimit-reset", "")
        if retry_after.isdigit():
            wait = float(retry_after)
        elif reset.isdigit():
            wait = max(0.0, int(reset) - self._now())
        token = "" if self.authenticated else ", or configure GITHUB_TOKEN for a higher limit"
        if wait is None:
            return f"Wait before retrying (GitHub gave no reset time){token}"
        at = datetime.fromtimestamp(self._now() + wait, timezone.utc).strftime("%H:%M UTC")
        minutes = max(1, round(wait / 60))
        return f"Wait about {minutes} min (until {at}) and retry{token}"


def _item(ref: GitHubRef, data: Any) -> GitHubItem:
    if not isinstance(data, dict) or not isinstance(data.get("title"), str):
        raise ToolError(
            "FETCH_FAILED",
            f"GitHub's answer for {ref.label} has no title",
            recover_action="Check that the URL names a pull request or an issue",
        )
    user = data.get("user")
    author = user.get("login") if isinstance(user, dict) else None
    body = data.get("body")
    updated_at = data.get("updated_at")
    return GitHubItem(
        ref=ref,
        title=data["title"],
        state=str(data.get("state") or "unknown"),
        author=author if isinstance(author, str) else None,
        body=body if isinstance(body, str) else "",
        updated_at=updated_at if isinstance(updated_at, str) else None,
        merged=data.get("merged") is True,
        draft=data.get("draft") is True,
    )
