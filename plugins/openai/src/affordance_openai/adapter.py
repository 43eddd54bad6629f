"""``OpenAIAdapter``: evaluates prompts with OpenAI's Responses (default) or Chat Completions API.

Its model only translates (:mod:`._request`, :mod:`._reply`) and sends the ready body as the SDK
client's public ``post`` does (``specs/adapters/openai.md``, "Getting plain dicts cheaply").
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

withhold_bodies("openai._base_client")  # openai 1.x logs each body at DEBUG

_SDK = StainlessSdk(openai, openai.OpenAI, openai.AsyncOpenAI, openai.OpenAIError, "x-request-id")


class OpenAIModel(WireModel[PreparedRequest]):
    """OpenAI's Responses wire format through the ``openai`` SDK: an adapter's ``connection``."""

    name: ClassVar[str] = "openai"
    shape: ClassVar[ApiShape] = RESPONSES
    attachment_support: ClassVar[AttachmentSupport] = RESPONSES_SUPPORT
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
        """The function declarations as this API sends them (read-only below their top level)."""
        return [dict(self.shape.function(self.declaration(t).wire)) for t in tools]

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        return build_body(self, request, self.shape, stream=stream)

    def translator(self, prepared: PreparedRequest) -> Translate:
        return self.shape.reply(hosted=prepared.hosted)


class OpenAIChatModel(OpenAIModel):
    """OpenAI's Chat Completions wire format: the model of ``OpenAIAdapter(api="chat")``."""

    shape = CHAT
    attachment_support = CHAT_SUPPORT


class OpenAIAdapter(ProviderAdapter[OpenAIModel]):
    """OpenAI through the official ``openai`` SDK (``specs/adapters/openai.md``).

    ``model`` names the model; ``api`` is ``"responses"`` or ``"chat"``. ``client`` is a ready
    ``openai.OpenAI`` or ``openai.AsyncOpenAI`` (``async_client`` adds the other kind), whose key,
    base URL, proxies, timeouts and ``max_retries`` apply (under an evaluation deadline the core
    spends those retries, none past it); without one, each kind is built once from the
    environment (``OPENAI_API_KEY``, ...) on first use. ``close()`` / ``aclose()`` (or ``with``)
    close those, and yours with ``close_clients=True``. ``max_output_tokens`` and ``temperature``
    are sent when set; ``extra_body`` is merged last into every body, objects key by key
    (``{"reasoning": {"effort": "low"}}``). Other options (``max_turns``, ``tool_choice``,
    ``codecs``...) are ``ProviderAdapter``'s.
    """

    def __init__(
        self,
        model: str,
        *,
        client: openai.OpenAI | openai.AsyncOpenAI | None = None,
        async_client: openai.AsyncOpenAI | None = None,
        api: Literal["responses", "chat"] = "responses",
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
