"""Fetching pull requests and issues from a loopback GitHub; every failure is a ToolError."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from loopback import DelayedReply, JsonReply, LoopbackServer, RawReply, ResetReply

from affordance import ToolError
from taskchat.github import GitHubClient, GitHubRef, attachment_kind

NOW = 1_770_000_000.0  # the fake clock's "now", in epoch seconds
PR = "/repos/octo/repo/pulls/12"


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client() as client:
        yield client


def _client(server: LoopbackServer, http: httpx.Client, **options: object) -> GitHubClient:
    return GitHubClient(http, api_url=server.base_url, now=lambda: NOW, **options)  # type: ignore[arg-type]


def _fetch_error(server: LoopbackServer, http: httpx.Client, **options: object) -> ToolError:
    ref = GitHubRef.from_url("https://github.com/octo/repo/pull/12")
    assert ref is not None
    with pytest.raises(ToolError) as raised:
        _client(server, http, **options).fetch(ref)
    return raised.value


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/octo/repo/pull/12", ("octo", "repo", 12, "github_pull_request")),
        (
            "https://github.com/octo/re.po/pull/12/files",
            ("octo", "re.po", 12, "github_pull_request"),
        ),
        (
            "https://github.com/octo/repo/issues/3#issuecomment-9",
            ("octo", "repo", 3, "github_issue"),
        ),
        ("https://github.com/octo/repo", None),
        ("https://github.com/octo/repo/pull/0", None),
        ("https://gitlab.com/octo/repo/pull/1", None),
        ("http://github.com/octo/repo/pull/1", None),
    ],
)
def test_github_urls_are_recognized(url: str, expected: tuple[object, ...] | None) -> None:
    ref = GitHubRef.from_url(url)

    assert (None if ref is None else (ref.owner, ref.repo, ref.number, ref.kind)) == expected
    assert attachment_kind(url) == (expected[3] if expected else "link")


def test_a_pull_request_is_fetched_with_github_headers(
    github: LoopbackServer, http: httpx.Client
) -> None:
    github.script(
        PR,
        JsonReply(
            {
                "title": "Faster parser",
                "state": "closed",
                "merged": True,
                "user": {"login": "mona"},
                "body": "x" * 5000,
                "updated_at": "2026-03-01T10:00:00Z",
            }
        ),
        method="GET",
    )
    ref = GitHubRef.from_url("https://github.com/octo/repo/pull/12")
    assert ref is not None

    item = _client(github, http, token="t0k3n").fetch(ref)

    summary = item.summary()
    assert summary.startswith(
        "Pull request octo/repo#12: Faster parser\nState: merged\nAuthor: mona\n"
        "Updated: 2026-03-01T10:00:00Z\n\n"
    )
    assert summary.endswith("x…")
    assert len(summary) < 4200
    [request] = github.requests
    assert request.headers["authorization"] == "Bearer t0k3n"
    assert request.headers["x-github-api-version"] == "2022-11-28"


def test_an_issue_is_fetched_from_the_issues_endpoint(
    github: LoopbackServer, http: httpx.Client
) -> None:
    github.script(
        "/repos/octo/repo/issues/3",
        JsonReply({"title": "Crash", "state": "open", "body": None, "user": None}),
        method="GET",
    )
    ref = GitHubRef.from_url("https://github.com/octo/repo/issues/3")
    assert ref is not None

    assert _client(github, http).fetch(ref).summary() == "Issue octo/repo#3: Crash\nState: open"


def test_a_rate_limit_says_when_to_retry(github: LoopbackServer, http: httpx.Client) -> None:
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 40 * 60)}
    github.script(PR, JsonReply({"message": "API rate limit exceeded"}, 403, headers), method="GET")

    error = _fetch_error(github, http)

    assert (error.code, error.message, error.retryable) == (
        "RATE_LIMITED",
        "GitHub rate limit exceeded",
        False,
    )
    assert error.recover_action == (
        "Wait about 40 min (until 03:20 UTC) and retry, "
        "or configure GITHUB_TOKEN for a higher limit"
    )


def test_a_429_with_retry_after_is_a_rate_limit(github: LoopbackServer, http: httpx.Client) -> None:
    github.script(PR, JsonReply({}, 429, {"retry-after": "90"}), method="GET")

    error = _fetch_error(github, http, token="t")

    assert error.code == "RATE_LIMITED"
    assert error.recover_action == "Wait about 2 min (until 02:41 UTC) and retry"


@pytest.mark.parametrize(
    ("reply", "code", "retryable", "advice"),
    [
        (JsonReply({"message": "Forbidden"}, 403), "FORBIDDEN", False, "permissions"),
        (JsonReply({"message": "Not Found"}, 404), "NOT_FOUND", False, "GITHUB_TOKEN"),
        (JsonReply({"message": "Bad credentials"}, 401), "UNAUTHORIZED", False, "GITHUB_TOKEN"),
        (JsonReply({"message": "oops"}, 502), "UPSTREAM_ERROR", True, "later"),
        (JsonReply({"message": "teapot"}, 418), "FETCH_FAILED", False, "octo/repo#12"),
        (RawReply(b"<html>", 200), "FETCH_FAILED", True, "later"),
        (JsonReply({"no": "title"}), "FETCH_FAILED", False, "pull request"),
        (ResetReply(), "FETCH_FAILED", True, "later"),
    ],
)
def test_each_failure_is_a_tool_error_with_guidance(
    github: LoopbackServer,
    http: httpx.Client,
    reply: object,
    code: str,
    retryable: bool,
    advice: str,
) -> None:
    github.script(PR, reply, method="GET")  # type: ignore[arg-type]

    error = _fetch_error(github, http)

    assert (error.code, error.retryable) == (code, retryable)
    assert error.recover_action is not None
    assert advice in error.recover_action


def test_a_slow_github_is_a_retryable_timeout(github: LoopbackServer, http: httpx.Client) -> None:
    github.script(PR, DelayedReply(5, JsonReply({"title": "late"})), method="GET")

    error = _fetch_error(github, http, timeout=0.1)

    assert (error.code, error.retryable) == ("FETCH_TIMEOUT", True)
    assert error.message == "GitHub did not answer within 0.1s for octo/repo#12"
