"""``AnthropicAdapter``: evaluates prompts with Anthropic's Messages API.

The adapter is the runner users call; its model, ``AnthropicModel``, only translates:
:mod:`._request` builds the body, :mod:`._reply` reads the answer, whole or streamed. The body
goes out as ready JSON, as the SDK client's public ``post`` sends it, and the answer is parsed once
(``specs/adapters/anthropic.md``, "The request path and speed", has why and the measurements).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import anthropic

from affordance.adapters import (
    AttachmentSupport,
    ModelRequest,
    PreparedRequest,
    ProviderAdapter,
    RequestSettings,
    SerializerFactories,
    StainlessSdk,
    Translate,
    WireModel,
    withhold_bodies,
)
from affordance_anthropic import DEFAULT_MAX_TOKENS
from affordance_anthropic._attachments import MESSAGES_SUPPORT
from affordance_anthropic._reply import MessagesReply
from affordance_anthropic._request import build_body, continued_blocks
from affordance_anthropic.serializers import (
    AnthropicOutputSerializer,
    AnthropicToolResultSerializer,
    AnthropicToolSerializer,
)

__all__ = ["AnthropicAdapter", "AnthropicModel"]

withhold_bodies("anthropic._base_client")  # it logs each request's body at DEBUG

_SDK = StainlessSdk(
    anthropic,
    anthropic.Anthropic,
    anthropic.AsyncAnthropic,
    anthropic.AnthropicError,
    request_id_header="request-id",
    error_kinds=("type",),
)


class AnthropicModel(WireModel[PreparedRequest]):
    """Anthropic's Messages wire format, sent through the ``anthropic`` SDK's clients: the model
    an :class:`AnthropicAdapter` holds (its ``connection``)."""

    name: ClassVar[str] = "anthropic"
    attachment_support: ClassVar[AttachmentSupport] = MESSAGES_SUPPORT
    """Images, PDFs and plain texts in user messages and tool results; images and PDFs by URL
    (:mod:`._attachments`)."""
    default_serializers: ClassVar[SerializerFactories] = {
        "tool": AnthropicToolSerializer,
        "tool_result": AnthropicToolResultSerializer,
        "output": AnthropicOutputSerializer,
    }

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        """The request body for ``request``, and what reading its answer needs."""
        prepared = build_body(self, request)
        if stream:
            prepared.body["stream"] = True
        return prepared

    def translator(self, prepared: PreparedRequest) -> Translate:
        return MessagesReply(hosted=prepared.hosted, continued=continued_blocks(prepared))


class AnthropicAdapter(ProviderAdapter[AnthropicModel]):
    """Anthropic through the official ``anthropic`` SDK.

    ``client`` is a ready ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic``
    (``async_client`` adds the other kind), so callers control keys, base URL, proxies, timeouts
    and ``max_retries``: the SDK retries as the client says (408, 409, 429 honouring
    ``retry-after-ms`` / ``retry-after``, 5xx and 529 overloaded, timeouts, connection errors;
    ``x-should-retry`` overrides), so an error reaching the adapter is final, and a stream that
    has begun is never retried by anyone; under an evaluation deadline the client's
    ``max_retries`` are spent by the core instead, none past the deadline
    (:mod:`affordance.adapters.stainless`). With no client at all, each kind
    is built once from the environment (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``) on first
    use; ``close()`` / ``aclose()`` (or ``with`` / ``async with``) close those, and the ones you
    pass with ``close_clients=True``.

    ``max_tokens`` is required by the API; it defaults to :data:`DEFAULT_MAX_TOKENS`. A request
    runs under the client's timeout, cut to the time left when the evaluation has a deadline
    (the SDK's guard against long non-streamed requests lives in its typed ``messages.create``,
    which the adapter does not call). For a large ``max_tokens``, prefer
    ``stream()``/``astream()``, which are never cut by a read timeout while tokens flow.

    ``extra_body`` is merged last into every request body, object values key by key
    (``{"thinking": {"type": "adaptive"}}``, ``{"output_config": {"effort": "low"}}``,
    ``{"stop_sequences": [...]}``). The other options (``max_turns``, ``tool_choice``,
    ``codecs``...) are :class:`~affordance.adapters.ProviderAdapter`'s.
    """

    def __init__(
        self,
        model: str,
        *,
        client: anthropic.Anthropic | anthropic.AsyncAnthropic | None = None,
        async_client: anthropic.AsyncAnthropic | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        close_clients: bool = False,
        **options: Any,
    ) -> None:
        settings = RequestSettings.of(model, max_tokens, temperature, extra_body)
        clients, transport = _SDK.connect(
            client,
            async_client,
            provider=self.name,
            path="/v1/messages",
            close_clients=close_clients,
            build_sync=lambda: _with_credentials(anthropic.Anthropic()),
            build_async=lambda: _with_credentials(anthropic.AsyncAnthropic()),
        )
        super().__init__(AnthropicModel(settings, clients, transport), **options)
        self.model, self.max_tokens = model, max_tokens


ClientT = TypeVar("ClientT", anthropic.Anthropic, anthropic.AsyncAnthropic)


def _with_credentials(client: ClientT) -> ClientT:
    """A client built from the environment, if it found credentials; without any, the SDK
    would fail each request with a bare ``TypeError``, so say it once, clearly, instead."""
    if client.api_key is None and client.auth_token is None and client.credentials is None:
        raise RuntimeError(
            "no Anthropic credentials found: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), "
            "or pass client=anthropic.Anthropic(...)"
        )
    return client
