"""``OpenAIAdapter``: evaluates prompts with OpenAI's Responses (default) or Chat Completions API.

The adapter is the runner users call; its model (``OpenAIModel`` for Responses,
``OpenAIChatModel`` for Chat) only translates — :mod:`._request` builds the body, :mod:`._reply`
reads the answer, whole or streamed — and posts its ready JSON body through the SDK client's
public ``post``, parsing the answer once (``specs/adapters/openai.md``, "Getting plain dicts
cheaply", has the reasons and the measurements).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import openai

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
from affordance.tools import Tool
from affordance_openai._attachments import CHAT_SUPPORT, RESPONSES_SUPPORT
from affordance_openai._request import CHAT, RESPONSES, ApiShape, build_body
from affordance_openai.serializers import (
    OpenAIOutputSerializer,
    OpenAIToolResultSerializer,
    OpenAIToolSerializer,
)

__all__ = ["OpenAIAdapter", "OpenAIChatModel", "OpenAIModel"]

Api = Literal["responses", "chat"]

withhold_bodies("openai._base_client")  # openai 1.x logs each body at DEBUG

_SDK = StainlessSdk(openai, openai.OpenAI, openai.AsyncOpenAI, openai.OpenAIError, "x-request-id")


class OpenAIModel(WireModel[PreparedRequest]):
    """OpenAI's Responses wire format, sent through the ``openai`` SDK's clients: the model an
    :class:`OpenAIAdapter` holds (its ``connection``)."""

    name: ClassVar[str] = "openai"
    shape: ClassVar[ApiShape] = RESPONSES
    attachment_support: ClassVar[AttachmentSupport] = RESPONSES_SUPPORT
    """Images and documents (PDF, plain text) in user messages and tool results, by bytes or
    URL (:mod:`._attachments`)."""
    default_serializers: ClassVar[SerializerFactories] = {
        "tool": OpenAIToolSerializer,
        "tool_result": OpenAIToolResultSerializer,
        "output": OpenAIOutputSerializer,
    }

    @property
    def codec_provider(self) -> str:
        """``"openai"`` (Responses) or ``"openai-chat"``: hosted tools look different on each."""
        return self.name if self.shape is RESPONSES else f"{self.name}-chat"

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The function declarations as this model's API sends them (flat for Responses,
        nested under ``function`` for Chat), from the resolved tool serializer; read-only below
        their top level, as ``ProviderModel.tool_declarations`` says."""
        function = self.shape.function
        return [dict(function(self.declaration(t).wire)) for t in tools]

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        """The request body for ``request``, and what reading its answer needs."""
        return build_body(self, request, self.settings, self.shape, stream=stream)

    def translator(self, prepared: PreparedRequest) -> Translate:
        return self.shape.reply(hosted=prepared.hosted)


class OpenAIChatModel(OpenAIModel):
    """OpenAI's Chat Completions wire format: the model of ``OpenAIAdapter(api="chat")``."""

    shape = CHAT
    attachment_support = CHAT_SUPPORT
    """Images (bytes or URL) and PDFs (bytes only); a tool result's ride in a user message."""


class OpenAIAdapter(ProviderAdapter[OpenAIModel]):
    """OpenAI through the official ``openai`` SDK.

    ``client`` is a ready ``openai.OpenAI`` or ``openai.AsyncOpenAI`` (``async_client`` adds the
    other kind), so callers control keys, base URL, proxies, timeouts and ``max_retries``: the
    SDK retries as the client says (429 with ``retry-after-ms``/``retry-after``, 408, 409, 5xx,
    timeouts, connection errors; ``x-should-retry`` overrides), so an error reaching the
    adapter is final; under an evaluation deadline the client's ``max_retries`` are spent by
    the core instead, none past the deadline (:mod:`affordance.adapters.stainless`). With no
    client at all, each kind is built once from the environment (``OPENAI_API_KEY``,
    ``OPENAI_BASE_URL``) on first use; ``close()`` / ``aclose()`` (or ``with`` / ``async with``)
    close those, and the ones you pass with ``close_clients=True``.

    ``extra_body`` is merged last into every request body, object values key by key
    (``{"reasoning": {"effort": "low"}}``, ``{"text": {"verbosity": "low"}}``, ``{"store":
    False, "include": ["reasoning.encrypted_content"]}``). The other options (``max_turns``,
    ``tool_choice``, ``codecs``...) are :class:`~affordance.adapters.ProviderAdapter`'s.
    """

    def __init__(
        self,
        model: str,
        *,
        client: openai.OpenAI | openai.AsyncOpenAI | None = None,
        async_client: openai.AsyncOpenAI | None = None,
        api: Api = "responses",
        max_output_tokens: int | None = None,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        close_clients: bool = False,
        **options: Any,
    ) -> None:
        if api not in ("responses", "chat"):
            raise ValueError(f"api must be 'responses' or 'chat', got {api!r}")
        settings = RequestSettings.of(
            model, max_output_tokens, temperature, extra_body, limit="max_output_tokens"
        )
        kind = OpenAIModel if api == "responses" else OpenAIChatModel
        clients, transport = _SDK.connect(
            client,
            async_client,
            provider=self.name,
            path=kind.shape.path,
            close_clients=close_clients,
        )
        super().__init__(kind(settings, clients, transport), **options)
        self.model, self.api = model, api
