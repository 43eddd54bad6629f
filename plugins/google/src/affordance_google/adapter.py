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

Retries are this adapter's (:mod:`affordance.adapters.retry`, :mod:`._errors`): the SDK
retries nothing by default and ignores ``Retry-After``; each request asks the SDK for a
single attempt, so the budget is never multiplied.
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

from google import genai
from google.genai import _transformers, types
from google.genai.client import AsyncClient

from affordance.adapters import (
    NO_REQUEST_RETRIES,
    ClientPair,
    Delta,
    ModelRequest,
    ProviderAdapter,
    ProviderTurn,
    RequestRetryPolicy,
    SerializerFactories,
    adecode_stream,
    aread_events,
    awith_retries,
    decode_stream,
    decode_turn,
    read_events,
    with_retries,
)
from affordance.clock import Clock
from affordance.tools import Tool
from affordance_google._errors import (
    PROVIDER,
    classify,
    provider_error,
    request_id_of,
    transport_errors,
)
from affordance_google._reply import parse_body
from affordance_google._request import PreparedRequest, RequestSettings, build_body
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

    def body(self, prepared: PreparedRequest) -> dict[str, Any]:
        """The body to hand over: the SDK merges a client-level ``extra_body`` into it in place,
        so it gets a copy then (our declarations are shared between requests)."""
        extra = getattr(self.api._http_options, "extra_body", None)
        return copy.deepcopy(prepared.body) if extra else dict(prepared.body)


class GoogleAdapter(ProviderAdapter):
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

    name: ClassVar[str] = PROVIDER
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
        if not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if max_output_tokens is not None and max_output_tokens < 1:
            raise ValueError(f"max_output_tokens must be positive, got {max_output_tokens}")
        if isinstance(client, genai.Client) and async_client is None:
            async_client = client.aio
        self._environment_client: genai.Client | None = None
        self._lock = threading.Lock()
        self.clients = ClientPair(
            client,
            async_client,
            provider=PROVIDER,
            sync_type=genai.Client,
            async_type=AsyncClient,
            build_sync=self._client_from_environment,
            build_async=lambda: self._client_from_environment().aio,
            close_sync=genai.Client.close,
            close_async=AsyncClient.aclose,
            close_clients=close_clients,
        )
        self.model = model
        self.api_version = api_version
        self.retry = retry if retry is not None else RequestRetryPolicy()
        self.clock: Clock = clock if clock is not None else self.executor.clock
        self.settings = RequestSettings(
            max_output_tokens=max_output_tokens,
            temperature=temperature,
            extra_body=dict(extra_body or {}),
        )
        self._routes: dict[int, _Route] = {}

    # -- ProviderAdapter ---------------------------------------------------------------------

    def send(self, request: ModelRequest) -> ProviderTurn:
        prepared = self._prepare(request)
        route = self._route(self.clients.sync_client())
        body, options = route.body(prepared), route.options(request)
        response = with_retries(
            lambda: route.api.request("post", route.path, body, options),
            **self._retrying(request),
        )
        return self._turn(response, prepared, request.prompt_name)

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        prepared = self._prepare(request)
        route = self._route(self.clients.async_client())
        body, options = route.body(prepared), route.options(request)
        response = await awith_retries(
            lambda: route.api.async_request("post", route.path, body, options),
            **self._retrying(request),
        )
        return self._turn(response, prepared, request.prompt_name)

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        prepared = self._prepare(request)
        route = self._route(self.clients.sync_client())
        api, options, body = route.api, route.options(request), route.body(prepared)
        opened = with_retries(
            lambda: api._request(
                api._build_request("post", route.stream_path, body, options), options, stream=True
            ),
            **self._retrying(request),
        )
        raw = opened.response_stream
        translation = StreamTranslation(prepared)
        try:
            yield from decode_stream(
                read_events(_chunks(raw)),
                translation,
                end=translation.end,
                provider=PROVIDER,
                prompt_name=request.prompt_name,
                request_id=request_id_of(opened.headers),
                transport_errors=transport_errors(raw),
            )
        finally:
            raw.close()

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        prepared = self._prepare(request)
        route = self._route(self.clients.async_client())
        api, options, body = route.api, route.options(request), route.body(prepared)
        opened = await awith_retries(
            lambda: api._async_request(
                api._build_request("post", route.stream_path, body, options), options, stream=True
            ),
            **self._retrying(request),
        )
        raw = opened.response_stream
        translation = StreamTranslation(prepared)
        try:
            deltas = adecode_stream(
                aread_events(_achunks(raw)),
                translation,
                end=translation.end,
                provider=PROVIDER,
                prompt_name=request.prompt_name,
                request_id=request_id_of(opened.headers),
                transport_errors=transport_errors(raw),
            )
            async with contextlib.aclosing(deltas):
                async for delta in deltas:
                    yield delta
        finally:
            await _aclose(raw)

    def wire_request(self, request: ModelRequest) -> Mapping[str, Any]:
        return self._prepare(request).body

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The ``tools`` entry the functions go out as: one ``functionDeclarations`` tool."""
        declarations = [copy.deepcopy(dict(self.declaration(tool).wire)) for tool in tools]
        return [{"functionDeclarations": declarations}] if declarations else []

    # -- translation -------------------------------------------------------------------------

    def _prepare(self, request: ModelRequest) -> PreparedRequest:
        return build_body(self, request, self.settings)

    def _turn(self, response: Any, prepared: PreparedRequest, prompt_name: str) -> ProviderTurn:
        body = response.body
        return decode_turn(
            body.encode() if isinstance(body, str) else bytes(body or b""),
            lambda data: parse_body(data, prepared),
            provider=PROVIDER,
            prompt_name=prompt_name,
            status=200,
            request_id=lambda: request_id_of(response.headers),
        )

    def _retrying(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "classify": classify,
            "give_up": partial(_give_up, prompt_name=request.prompt_name),
            "policy": self.retry if request.retries else NO_REQUEST_RETRIES,
            "clock": self.clock,
            "deadline": request.deadline,
        }

    def _route(self, client: genai.Client | AsyncClient) -> _Route:
        api = client._api_client
        route = self._routes.get(id(api))
        if route is None or route.api is not api:
            route = _Route(api, self.model, self.api_version)
            self._routes[id(api)] = route
        return route

    # -- clients -----------------------------------------------------------------------------

    def _client_from_environment(self) -> genai.Client:
        """One ``genai.Client()`` from the environment, shared by the sync and async paths."""
        with self._lock:
            if self._environment_client is None:
                _check_environment()
                self._environment_client = genai.Client()
            return self._environment_client

    def close(self) -> None:
        """Close the sync client if this adapter owns it (built it from the environment, or was
        given it with ``close_clients=True``)."""
        self.clients.close()

    async def aclose(self) -> None:
        """Close the async client if this adapter owns it; call it on the loop that used it."""
        await self.clients.aclose()


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


def _give_up(error: Exception, attempts: int, *, prompt_name: str) -> Exception:
    return provider_error(error, attempts, prompt_name=prompt_name)


def _chunks(raw: Any) -> Iterator[bytes]:
    """The bytes of a streamed response as they arrive: ``httpx``/``httpx2``, or ``requests``
    (Vertex AI with Google auth)."""
    if type(raw).__module__.startswith("requests"):
        return raw.iter_content(chunk_size=None)  # type: ignore[no-any-return]
    return raw.iter_bytes()  # type: ignore[no-any-return]


def _achunks(raw: Any) -> AsyncIterator[bytes]:
    """The bytes of an async streamed response: ``httpx``/``httpx2``, or ``aiohttp``."""
    if hasattr(raw, "aiter_bytes"):
        return _httpx_chunks(raw)
    return raw.content.iter_any()  # type: ignore[no-any-return]


async def _httpx_chunks(raw: Any) -> AsyncIterator[bytes]:
    """``raw.aiter_bytes()``, finished here when the consumer leaves early: the response is
    closed, then its generators (``aiter_bytes`` wraps more) run to their end in this task.
    Merely closing the outer one would leave the inner ones to the event loop's finalizer,
    which closes them later in tasks of its own."""
    chunks = raw.aiter_bytes()
    try:
        async for chunk in chunks:
            yield chunk
    finally:
        await raw.aclose()
        with contextlib.suppress(Exception):
            async for _ in chunks:
                pass


async def _aclose(raw: Any) -> None:
    close = getattr(raw, "aclose", None)
    if close is not None:
        await close()
    else:
        raw.release()
