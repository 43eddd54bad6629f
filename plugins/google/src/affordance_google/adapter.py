"""``GoogleAdapter``: evaluates prompts with Gemini, on the Gemini Developer API or Vertex AI.

The adapter only translates: :mod:`._request` builds the ``generateContent`` body,
:mod:`._reply` reads a plain answer and :mod:`._stream` a streamed one into the core's turn;
the function declarations, the
``functionResponse`` payloads and the output format come from the serializers the plugin
registry resolves (:mod:`.serializers` by default); the loop, tool execution and confirmations
are the core's.

Requests go through the SDK's own HTTP layer — its ``BaseApiClient`` (``client._api_client``),
which owns auth (API key or Google credentials), base URL, headers, API version and timeouts —
with the body already in its wire form and the answer parsed once with ``json.loads``. The typed
``client.models.generate_content`` would validate the body into pydantic models, convert it
back to a dict, and build a pydantic response we would only read back into dicts: that costs
more than the rest of a request (see ``specs/adapters/google.md`` for the measurements). The
methods used (``request``, ``async_request``, ``_build_request``, ``_request``,
``_async_request``) are private but unchanged from the SDK floor to the latest release; the
test matrix runs both.

Retries are this adapter's (:mod:`affordance.adapters.retrying`, :mod:`._errors`): the SDK
retries nothing by default and ignores ``Retry-After``; each request asks the SDK for a
single attempt, so the budget is never multiplied.
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from google import genai
from google.genai import _transformers, types
from google.genai.client import AsyncClient

from affordance.adapters import (
    ClientPair,
    ModelRequest,
    ProviderTurn,
    RequestRetryPolicy,
    RequestSettings,
    RetryingTransport,
    SerializerFactories,
    Translate,
    WireAdapter,
    check_model,
)
from affordance.clock import Clock
from affordance.tools import Tool
from affordance_google._errors import REQUEST_ID_HEADERS, classify, provider_error
from affordance_google._reply import parse_body
from affordance_google._request import PreparedRequest, build_body
from affordance_google._stream import StreamTranslation
from affordance_google.serializers import (
    GoogleOutputSerializer,
    GoogleToolResultSerializer,
    GoogleToolSerializer,
)

__all__ = ["GoogleAdapter"]

API_KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
"""Where ``genai.Client()`` reads a Developer API key (``ProviderSpec.api_key_env`` too)."""

DEFAULT_API_VERSION = "v1beta"
"""The Developer API version the adapter calls unless told otherwise (``api_version=``)."""


class _Route:
    """What one SDK api client needs per request: the two paths and the per-request options."""

    __slots__ = ("api", "base_options", "path", "stream_path")

    def __init__(self, api: Any, model: str, api_version: str | None) -> None:
        self.api = api
        resource = _transformers.t_model(api, model)
        self.path = f"{resource}:generateContent"
        self.stream_path = f"{resource}:streamGenerateContent?alt=sse"
        # One attempt per SDK call: the adapter's retry budget is the only one. The API
        # version applies to the Developer API (Vertex AI has its own versions). Options the
        # client already has are not passed again: the SDK merges per-request options into
        # the client's on every request, which costs more than the rest of sending it.
        version = None if api.vertexai else api_version
        own = api._http_options
        same_version = version is None or getattr(own, "api_version", None) == version
        no_retries = getattr(own, "retry_options", None) is None  # the SDK's default: 1 attempt
        self.base_options: types.HttpOptions | None = (
            None
            if same_version and no_retries
            else types.HttpOptions(
                api_version=version, retry_options=types.HttpRetryOptions(attempts=1)
            )
        )

    def options(self, request: ModelRequest) -> types.HttpOptions | None:
        """The per-request options: the deadline bounds the HTTP timeout (milliseconds)."""
        remaining = request.timeout()
        if remaining is None:
            return self.base_options
        timeout = max(1, int(remaining * 1000))
        if self.base_options is None:
            return types.HttpOptions(timeout=timeout)
        return self.base_options.model_copy(update={"timeout": timeout})

    def body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body to hand over: the SDK merges a client-level ``extra_body`` into it in place,
        so it gets a copy then (our declarations are shared between requests)."""
        extra = getattr(self.api._http_options, "extra_body", None)
        return copy.deepcopy(body) if extra else dict(body)


class _Exchange:
    """One attempt through the SDK's own HTTP layer (the :class:`RetryingTransport`'s
    ``Exchange``), on the route of the client's api client."""

    __slots__ = ("_routes", "api_version", "model")

    def __init__(self, model: str, api_version: str | None) -> None:
        self.model = model
        self.api_version = api_version
        self._routes: dict[int, _Route] = {}

    def attempt(
        self, client: Any, body: Any, request: ModelRequest, *, stream: bool
    ) -> Callable[[], Any]:
        route = self._route(client)
        api, sent, options = route.api, route.body(body), route.options(request)
        asynchronous = isinstance(client, AsyncClient)
        if not stream:
            send = api.async_request if asynchronous else api.request
            return lambda: send("post", route.path, sent, options)
        send = api._async_request if asynchronous else api._request
        return lambda: send(
            api._build_request("post", route.stream_path, sent, options), options, stream=True
        )

    def content(self, answer: Any) -> bytes:
        body = answer.body
        return body.encode() if isinstance(body, str) else bytes(body or b"")

    def headers(self, answer: Any) -> Any:
        return answer.headers

    def raw_response(self, answer: Any) -> Any:
        return answer.response_stream

    def _route(self, client: genai.Client | AsyncClient) -> _Route:
        api = client._api_client
        route = self._routes.get(id(api))
        if route is None or route.api is not api:
            route = _Route(api, self.model, self.api_version)
            self._routes[id(api)] = route
        return route


class GoogleAdapter(WireAdapter[PreparedRequest]):
    """Gemini through the official ``google-genai`` SDK.

    ``client`` is a ready ``google.genai.Client`` (its ``.aio`` serves ``aevaluate`` and
    ``astream``) or a ``google.genai.client.AsyncClient``; ``async_client`` adds the async kind
    explicitly. Callers control keys, base URL, Vertex AI project and location, proxies and
    timeouts through it. With no client at all, one ``genai.Client()`` is built from the
    environment on first use (``GEMINI_API_KEY`` / ``GOOGLE_API_KEY``, or
    ``GOOGLE_GENAI_USE_VERTEXAI`` with ``GOOGLE_CLOUD_PROJECT`` and ``GOOGLE_CLOUD_LOCATION``);
    ``close()`` / ``aclose()`` (or ``with`` / ``async with``) close it, and the clients you pass
    with ``close_clients=True``.

    ``api_version`` is the Developer API version called (``v1beta`` by default, where function
    calling, JSON-Schema declarations and thought signatures live; ``None`` keeps the client's
    own, ``v1`` on google-genai 3.x). ``retry`` is the retry budget for transient failures (429
    honouring ``Retry-After``, 408, 500, 502, 503, 504, timeouts, refused or reset connections);
    ``clock`` is what its waits sleep on (the executor's by default). ``extra_body`` is merged
    last into every body, object values key by key
    (``{"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}``).
    """

    name: ClassVar[str] = "google"
    default_serializers: ClassVar[SerializerFactories] = {
        "tool": GoogleToolSerializer,
        "tool_result": GoogleToolResultSerializer,
        "output": GoogleOutputSerializer,
    }

    def __init__(
        self,
        model: str,
        *,
        client: genai.Client | AsyncClient | None = None,
        async_client: AsyncClient | None = None,
        api_version: str | None = DEFAULT_API_VERSION,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        retry: RequestRetryPolicy | None = None,
        clock: Clock | None = None,
        close_clients: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.model = check_model(model)
        if max_output_tokens is not None and max_output_tokens < 1:
            raise ValueError(f"max_output_tokens must be positive, got {max_output_tokens}")
        if isinstance(client, genai.Client) and async_client is None:
            async_client = client.aio
        self._environment_client: genai.Client | None = None
        self._lock = threading.Lock()
        self.clients = ClientPair(
            client,
            async_client,
            provider=self.name,
            sync_type=genai.Client,
            async_type=AsyncClient,
            build_sync=self._client_from_environment,
            build_async=lambda: self._client_from_environment().aio,
            close_sync=genai.Client.close,
            close_async=AsyncClient.aclose,
            close_clients=close_clients,
        )
        self.api_version = api_version
        self.retry = retry if retry is not None else RequestRetryPolicy()
        self.clock: Clock = clock if clock is not None else self.executor.clock
        self.settings = RequestSettings(
            model, max_output_tokens, temperature, dict(extra_body or {})
        )
        self.transport = RetryingTransport(
            _Exchange(model, api_version),
            self.clients,
            provider=self.name,
            classify=classify,
            give_up=provider_error,
            policy=self.retry,
            clock=self.clock,
            request_id_headers=REQUEST_ID_HEADERS,
        )

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The ``tools`` entry the functions go out as: one ``functionDeclarations`` tool."""
        declarations = [copy.deepcopy(dict(self.declaration(tool).wire)) for tool in tools]
        return [{"functionDeclarations": declarations}] if declarations else []

    # -- the wire format ---------------------------------------------------------------------

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        """The body of ``request``: the same plain and streamed (the stream has its own path)."""
        return build_body(self, request, self.settings)

    def parse(self, data: Any, prepared: PreparedRequest) -> ProviderTurn:
        return parse_body(data, prepared)

    def translator(self, prepared: PreparedRequest) -> Translate:
        return StreamTranslation(prepared)

    # -- clients -----------------------------------------------------------------------------

    def _client_from_environment(self) -> genai.Client:
        """One ``genai.Client()`` from the environment, shared by the sync and async paths."""
        with self._lock:
            if self._environment_client is None:
                _check_environment()
                self._environment_client = genai.Client()
            return self._environment_client


_VERTEX_SWITCHES = ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE")


def _check_environment() -> None:
    """Refuse early when the Developer API has no key: ``genai.Client()`` would raise too, but
    older SDKs then also report an error from the half-built client's ``__del__``."""
    vertex = any(
        os.environ.get(name, "").strip().lower() in ("1", "true") for name in _VERTEX_SWITCHES
    )
    if not vertex and not any(os.environ.get(name) for name in API_KEY_VARIABLES):
        raise ValueError(
            f"no API key: set {' or '.join(API_KEY_VARIABLES)} (or GOOGLE_GENAI_USE_VERTEXAI "
            "with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION for Vertex AI), or pass client="
        )
