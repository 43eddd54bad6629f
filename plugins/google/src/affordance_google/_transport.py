"""One attempt through ``google-genai``'s own HTTP layer, what an ``APIError`` means, the client
from the environment (``specs/adapters/google.md``, from "Getting plain dicts cheaply" on)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google import genai
from google.genai import _transformers, errors, types
from google.genai.client import AsyncClient

from affordance.adapters import (
    HttpFailure,
    IdentityCache,
    ModelRequest,
    RetryingSdk,
    SdkFailures,
    bounded_timeout,
    require_api_key,
    retry_after_seconds,
)
from affordance_google.plugin import API_KEY_VARIABLES

__all__ = ["FAILURES", "SDK", "Exchange", "client_from_environment"]


class _Route:
    """What one SDK api client needs per request: the two paths and the options it lacks."""

    __slots__ = ("options", "path", "stream_path")

    def __init__(self, api: Any, model: str, api_version: str | None) -> None:
        resource = _transformers.t_model(api, model)
        self.path = f"{resource}:generateContent"
        self.stream_path = f"{resource}:streamGenerateContent?alt=sse"
        # The API version on the Developer API only, and not resent when the client has it:
        # the SDK merges per-request options on every request, which costs more than the rest
        # of sending it.
        version = None if api.vertexai else api_version
        same = version is None or getattr(api._http_options, "api_version", None) == version
        self.options = None if same else types.HttpOptions(api_version=version)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One attempt through the SDK's HTTP layer: the :class:`RetryingTransport`'s ``Exchange``."""

    model: str
    api_version: str | None
    _routes: IdentityCache[Any, _Route] = field(default_factory=IdentityCache, init=False)

    def attempt(
        self, client: Any, body: Any, request: ModelRequest, *, stream: bool
    ) -> Callable[[], Any]:
        api = client._api_client
        route = self._routes.get(api) or self._routes.put(
            api, _Route(api, self.model, self.api_version)
        )
        # The SDK merges a client's ``extra_body`` into the body in place: then it gets a deep
        # copy (our declarations are shared between requests).
        client_options = api._http_options
        sent = copy.deepcopy(body) if getattr(client_options, "extra_body", None) else dict(body)
        options = route.options
        remaining = request.timeout()
        if remaining is not None:  # the deadline bounds the HTTP timeout (milliseconds)
            own = client_options.timeout  # the client's own, never lengthened
            timeout = max(1, int(bounded_timeout(own / 1000 if own else None, remaining) * 1000))
            if options is None:
                options = types.HttpOptions(timeout=timeout)
            else:
                options = options.model_copy(update={"timeout": timeout})
        # One attempt, past the SDK's retrier (a tenacity loop, even for one attempt): the
        # adapter's budget is the only one, and the client's own retry_options never multiply it.
        once = api._async_request_once if isinstance(client, AsyncClient) else api._request_once
        path = route.stream_path if stream else route.path
        return lambda: once(api._build_request("post", path, sent, options), stream)

    def content(self, answer: Any) -> bytes:
        body = answer.response_stream[0] if answer.response_stream else b""  # the text, whole
        return body.encode() if isinstance(body, str) else bytes(body or b"")

    def headers(self, answer: Any) -> Any:
        return answer.headers

    def raw_response(self, answer: Any) -> Any:
        return answer.response_stream


TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
"""Statuses worth another attempt: the ones ``google-genai``'s own retry options use."""

REQUEST_ID_HEADERS = ("x-request-id", "x-goog-request-id")


def api_failure(error: Exception) -> HttpFailure | None:
    """An ``APIError`` as an ``HttpFailure``, its text the body (else the parsed details)."""
    if not isinstance(error, errors.APIError):
        return None
    text = getattr(error.response, "text", None)
    if not isinstance(text, str):
        text = "" if error.details is None else str(error.details)
    headers = getattr(error.response, "headers", None)
    wait = _retry_info_delay(error.details)
    return HttpFailure(error.code, error.status, error.message, headers, text, wait)


def _retry_info_delay(details: Any) -> float | None:
    """``retryDelay`` of a ``google.rpc.RetryInfo`` detail (``"26s"``, ``"0.5s"``)."""
    error = details.get("error", details) if isinstance(details, dict) else None
    entries = error.get("details") if isinstance(error, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not str(entry.get("@type", "")).endswith("RetryInfo"):
            continue
        delay = entry.get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            seconds = retry_after_seconds(delay[:-1])
            if seconds is not None:
                return seconds
    return None


FAILURES = SdkFailures("google", api_failure, TRANSIENT_STATUSES, REQUEST_ID_HEADERS)


def client_from_environment() -> genai.Client:
    """A ``genai.Client()`` from the environment. A missing Developer API key is refused first:
    older SDKs would also report an error from the half-built client's ``__del__``."""
    require_api_key(
        API_KEY_VARIABLES,
        switches=("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"),
        hint=" (or GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_CLOUD_PROJECT and "
        "GOOGLE_CLOUD_LOCATION for Vertex AI)",
    )
    return genai.Client()


SDK = RetryingSdk(  # a Client's .aio is its async side: with no client, one serves both paths
    genai.Client,
    AsyncClient,
    FAILURES,
    build=client_from_environment,
    async_of=lambda client: client.aio,
)
