"""``GoogleAdapter``: evaluates prompts with Gemini, on the Developer API or Vertex AI; its model,
``GoogleModel``, is the wire format (:mod:`._request`, :mod:`._reply`, :mod:`._transport`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from google import genai
from google.genai.client import AsyncClient

from affordance.adapters import (
    AttachmentSupport,
    ModelRequest,
    ProviderAdapter,
    RequestRetryPolicy,
    RequestSettings,
    SerializerFactories,
    Translate,
    WireModel,
)
from affordance.clock import Clock
from affordance.tools import Tool
from affordance_google._attachments import GEMINI_ATTACHMENTS
from affordance_google._reply import Reading
from affordance_google._request import PreparedRequest, build_body
from affordance_google._transport import SDK, Exchange
from affordance_google.serializers import (
    GoogleOutputSerializer,
    GoogleToolResultSerializer,
    GoogleToolSerializer,
)

__all__ = ["GoogleAdapter", "GoogleModel"]

DEFAULT_API_VERSION = "v1beta"


class GoogleModel(WireModel[PreparedRequest]):
    """Gemini's ``generateContent`` wire format: the model a :class:`GoogleAdapter` holds."""

    name: ClassVar[str] = "google"
    default_serializers: ClassVar[SerializerFactories] = {
        "tool": GoogleToolSerializer,
        "tool_result": GoogleToolResultSerializer,
        "output": GoogleOutputSerializer,
    }
    attachment_support: ClassVar[AttachmentSupport] = GEMINI_ATTACHMENTS

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The ``tools`` entry the functions go out as: one ``functionDeclarations`` tool."""
        declarations = super().tool_declarations(tools)
        return [{"functionDeclarations": declarations}] if declarations else []

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        """The body of ``request``: the same plain and streamed (a stream has its own path)."""
        return build_body(self, request)

    def translator(self, prepared: PreparedRequest) -> Translate:
        return Reading(prepared)

    def endpoint(self, *, asynchronous: bool) -> str | None:
        """The base URL the SDK set on the client's api client (the client has none of its own)."""
        client = self.clients.async_client() if asynchronous else self.clients.sync_client()
        return client._api_client._http_options.base_url or None


class GoogleAdapter(ProviderAdapter[GoogleModel]):
    """Gemini through the official ``google-genai`` SDK.

    ``model`` is the model id. ``client`` is a ``google.genai.Client`` (its ``.aio`` serves
    ``aevaluate`` and ``astream``) or a ``google.genai.client.AsyncClient``; ``async_client``
    adds the async kind. Keys, base URL, Vertex AI project and location, proxies and timeouts
    are set on the client. With none, a ``genai.Client()`` is built from the environment on
    first use (``GEMINI_API_KEY`` / ``GOOGLE_API_KEY``, or ``GOOGLE_GENAI_USE_VERTEXAI`` with
    ``GOOGLE_CLOUD_PROJECT`` and ``GOOGLE_CLOUD_LOCATION``). ``close()`` / ``aclose()`` (or
    ``with`` / ``async with``) close it, and given clients with ``close_clients=True``.

    ``api_version``: the Developer API version, ``v1beta`` by default (where function calling,
    JSON-Schema declarations and thought signatures live); ``None`` keeps the client's own.
    ``max_output_tokens``, ``temperature``: ``generationConfig`` fields. ``extra_body``: merged
    last into every body, object values key by key. ``retry``: the budget for transient failures
    (429 honouring ``Retry-After``, 408, 500, 502, 503, 504, timeouts, refused or reset
    connections), waiting on ``clock`` (the executor's by default). Other options
    (``max_turns``, ``codecs``...) are :class:`~affordance.adapters.ProviderAdapter`'s.
    """

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
        settings = RequestSettings.of(
            model, max_output_tokens, temperature, extra_body, limit="max_output_tokens"
        )
        clients, transport = SDK.connect(  # one attempt at a time through the SDK's HTTP layer
            client,
            async_client,
            Exchange(model, api_version),
            clock=clock if clock is not None else self.executor_of(options).clock,
            retry=retry,
            close_clients=close_clients,
        )
        super().__init__(GoogleModel(settings, clients, transport), **options)
        self.model, self.api_version = model, api_version
