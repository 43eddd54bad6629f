"""``OpenAIAdapter``: evaluates prompts with OpenAI's Responses (default) or Chat Completions API.

The adapter only translates: :mod:`._responses` and :mod:`._chat` build the request body from
the core's ``ModelRequest`` and read the answer back into a ``ProviderTurn``; the loop, tool
execution and confirmations are the core's. Requests go through the SDK's raw-response path with
the body handed over as ``extra_body`` and the answer parsed once with ``json.loads``: the SDK
still owns auth, base URL, headers, timeouts and retries, but neither re-walks our body against
its TypedDicts nor builds pydantic models we would only dump again (see
``specs/adapters/openai.md`` for the measurements).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import openai

from affordance.adapters.base import ProviderAdapter
from affordance.errors import PromptEvaluationError
from affordance.runtime.turn import ModelRequest, ProviderTurn
from affordance.tools.hosted import HostedToolCodec
from affordance.tools.tool import Tool
from affordance_openai import _chat, _responses
from affordance_openai._declarations import DeclarationCache, OutputFormatCache
from affordance_openai._errors import PROVIDER, malformed_response, provider_error
from affordance_openai._wire import PreparedRequest, RequestSettings, UnusableResponseError

__all__ = ["OpenAIAdapter"]

Api = Literal["responses", "chat"]


class OpenAIAdapter(ProviderAdapter):
    """OpenAI through the official ``openai`` SDK.

    ``client`` is a ready ``openai.OpenAI`` or ``openai.AsyncOpenAI`` (``async_client`` adds the
    other kind), so callers control keys, base URL, proxies, timeouts and ``max_retries``; the
    SDK's retries are the only retries. With no client at all, each kind is built once from the
    environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``) on first use. Given only one kind,
    the other path raises: a client is never derived from the other, because its HTTP client
    (proxies, TLS, transport) cannot be carried over.

    ``tool_choice`` is ``"auto"``, ``"none"``, ``"required"``, a function name, or a wire
    mapping sent as is; ``"required"`` and a name apply to the first turn only. ``extra_body``
    is merged last into every request body, object values key by key (``{"reasoning":
    {"effort": "low"}}``, ``{"text": {"verbosity": "low"}}``, ``{"store": False, "include":
    ["reasoning.encrypted_content"]}``). ``codecs`` maps hosted tool kinds to codecs and takes
    precedence over the plugin registry.
    """

    name: ClassVar[str] = "openai"

    def __init__(
        self,
        model: str,
        *,
        client: openai.OpenAI | openai.AsyncOpenAI | None = None,
        async_client: openai.AsyncOpenAI | None = None,
        api: Api = "responses",
        parallel_tool_calls: bool | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        codecs: Mapping[str, HostedToolCodec[Any, Any]] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        if api not in ("responses", "chat"):
            raise ValueError(f"api must be 'responses' or 'chat', got {api!r}")
        if not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if max_output_tokens is not None and max_output_tokens < 1:
            raise ValueError(f"max_output_tokens must be positive, got {max_output_tokens}")
        self._sync_client, self._async_client = _split_clients(client, async_client)
        self._clients_from_env = client is None and async_client is None
        self._client_lock = threading.Lock()
        self.api: Api = api
        self.settings = RequestSettings(
            model=model,
            parallel_tool_calls=parallel_tool_calls,
            tool_choice=tool_choice,
            max_output_tokens=max_output_tokens,
            temperature=temperature,
            extra_body=dict(extra_body or {}),
        )
        self._codecs = dict(codecs or {})
        self._declarations = DeclarationCache()
        self._output_formats = OutputFormatCache()

    @property
    def model(self) -> str:
        return self.settings.model

    # -- ProviderAdapter ---------------------------------------------------------------------

    def send(self, request: ModelRequest) -> ProviderTurn:
        prepared = self._prepare(request)
        client = self._sync()
        api = client.responses if self.api == "responses" else client.chat.completions
        try:
            raw = api.with_raw_response.create(**self._arguments(prepared, request))
        except openai.OpenAIError as error:
            raise provider_error(
                error, prompt_name=request.prompt_name, max_retries=client.max_retries
            ) from error
        return self._turn(raw.http_response, prepared, request.prompt_name)

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        prepared = self._prepare(request)
        client = self._async()
        api = client.responses if self.api == "responses" else client.chat.completions
        try:
            raw = await api.with_raw_response.create(**self._arguments(prepared, request))
        except openai.OpenAIError as error:
            raise provider_error(
                error, prompt_name=request.prompt_name, max_retries=client.max_retries
            ) from error
        return self._turn(raw.http_response, prepared, request.prompt_name)

    def _arguments(self, prepared: PreparedRequest, request: ModelRequest) -> dict[str, Any]:
        """The SDK call's arguments: our body passes as ``extra_body``, so the SDK does not
        walk it against its typed parameters (most of its per-request cost); the typed
        ``input``/``messages`` stay empty. The HTTP timeout never outlasts the deadline."""
        empty = "input" if self.api == "responses" else "messages"
        arguments: dict[str, Any] = {"model": self.model, empty: [], "extra_body": prepared.body}
        remaining = request.timeout()
        if remaining is not None:
            arguments["timeout"] = max(remaining, 0.001)
        return arguments

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The function declarations this adapter sends, strict where the schema allows it."""
        declared = [self._declarations.declaration(tool) for tool in tools]
        forms = [d.responses if self.api == "responses" else d.chat for d in declared]
        return [copy.deepcopy(dict(form)) for form in forms]

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        codec = self._codecs.get(kind)
        return codec if codec is not None else super().hosted_codec(kind)

    # -- translation -------------------------------------------------------------------------

    def _prepare(self, request: ModelRequest) -> PreparedRequest:
        """The request body for ``request``, and what reading its answer needs."""
        if self.api == "chat":
            if request.hosted_tools:
                tool = request.hosted_tools[0]
                raise PromptEvaluationError(
                    f"hosted tool {tool.name!r} of kind {tool.kind!r} is not supported by "
                    "provider 'openai' with api='chat'; use api='responses'",
                    prompt_name=request.prompt_name,
                    phase="render",
                    provider=PROVIDER,
                )
            return _chat.build_body(
                request, self.settings, self._declarations, self._output_formats
            )
        hosted = [
            self.require_hosted_codec(tool.kind, prompt_name=request.prompt_name).serialize(tool)
            for tool in request.hosted_tools
        ]
        return _responses.build_body(
            request, self.settings, self._declarations, self._output_formats, hosted
        )

    def _turn(self, response: Any, prepared: PreparedRequest, prompt_name: str) -> ProviderTurn:
        content: bytes = response.content
        try:
            data = json.loads(content)
        except ValueError as error:  # json.JSONDecodeError and UnicodeDecodeError
            raise self._malformed(f"not JSON ({error})", response, content, prompt_name) from error
        try:
            if self.api == "responses":
                return _responses.parse_body(data, prepared)
            return _chat.parse_body(data, prepared)
        except UnusableResponseError as error:
            raise self._malformed(error.detail, response, content, prompt_name) from error

    @staticmethod
    def _malformed(
        detail: str, response: Any, content: bytes, prompt_name: str
    ) -> PromptEvaluationError:
        return malformed_response(
            detail,
            prompt_name=prompt_name,
            status=response.status_code,
            request_id=response.headers.get("x-request-id"),
            raw_text=content.decode("utf-8", errors="replace"),
        )

    # -- clients -----------------------------------------------------------------------------

    def _sync(self) -> openai.OpenAI:
        client = self._sync_client
        if client is not None:
            return client
        if not self._clients_from_env:
            raise RuntimeError(
                "OpenAIAdapter.evaluate needs a sync client, but the adapter was given only an "
                "openai.AsyncOpenAI; pass client=openai.OpenAI(...) too, or use aevaluate"
            )
        with self._client_lock:
            if self._sync_client is None:
                self._sync_client = _from_environment(openai.OpenAI)
            return self._sync_client

    def _async(self) -> openai.AsyncOpenAI:
        client = self._async_client
        if client is not None:
            return client
        if not self._clients_from_env:
            raise RuntimeError(
                "OpenAIAdapter.aevaluate needs an async client, but the adapter was given only "
                "an openai.OpenAI; pass async_client=openai.AsyncOpenAI(...) too, or use evaluate"
            )
        with self._client_lock:
            if self._async_client is None:
                self._async_client = _from_environment(openai.AsyncOpenAI)
            return self._async_client

    def close(self) -> None:
        """Close the sync client if this adapter built it from the environment."""
        if self._clients_from_env and self._sync_client is not None:
            self._sync_client.close()
            self._sync_client = None

    async def aclose(self) -> None:
        """Close the async client if this adapter built it from the environment."""
        if self._clients_from_env and self._async_client is not None:
            await self._async_client.close()
            self._async_client = None


def _split_clients(
    client: object, async_client: object
) -> tuple[openai.OpenAI | None, openai.AsyncOpenAI | None]:
    if async_client is not None and not isinstance(async_client, openai.AsyncOpenAI):
        raise TypeError(f"async_client must be an openai.AsyncOpenAI, got {type(async_client)!r}")
    if client is None:
        return None, async_client
    if isinstance(client, openai.AsyncOpenAI):
        if async_client is not None:
            raise TypeError("client is an openai.AsyncOpenAI and async_client is given too")
        return None, client
    if isinstance(client, openai.OpenAI):
        return client, async_client
    raise TypeError(f"client must be an openai.OpenAI or openai.AsyncOpenAI, got {type(client)!r}")


def _from_environment(factory: Any) -> Any:
    try:
        return factory()
    except openai.OpenAIError as error:  # e.g. OPENAI_API_KEY is not set
        raise PromptEvaluationError(
            f"cannot build an openai client from the environment: {error}",
            phase="request",
            provider=PROVIDER,
        ) from error
