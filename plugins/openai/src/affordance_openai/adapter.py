"""``OpenAIAdapter``: evaluates prompts with OpenAI's Responses (default) or Chat Completions API.

The adapter only translates: :mod:`._request` builds each API's request body and
:mod:`._reply` reads its answer, whole or streamed; the function declarations, tool-result text
and output formats come from the serializers the plugin registry resolves (:mod:`.serializers`
by default); the loop, tool execution and confirmations are the core's. Requests go through the
SDK client's public ``post`` with our ready JSON body
(:class:`~affordance.adapters.stainless.JsonPost`), and the answer is parsed once with
``json.loads``: the SDK still owns auth, base URL, headers, timeouts and retries, but neither
re-walks our body against its TypedDicts nor builds pydantic models we would only dump again
(see ``specs/adapters/openai.md`` for the measurements).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import openai

from affordance.adapters import (
    ModelRequest,
    PreparedRequest,
    ProviderTurn,
    RequestSettings,
    SerializerFactories,
    StainlessSdk,
    Translate,
    WireAdapter,
    withhold_bodies,
)
from affordance.tools import Tool
from affordance_openai._request import CHAT, RESPONSES, build_body
from affordance_openai.serializers import (
    OpenAIOutputSerializer,
    OpenAIToolResultSerializer,
    OpenAIToolSerializer,
)

__all__ = ["OpenAIAdapter"]

Api = Literal["responses", "chat"]

withhold_bodies("openai._base_client")  # openai 1.x logs each body at DEBUG

_SDK = StainlessSdk(openai, openai.OpenAI, openai.AsyncOpenAI, openai.OpenAIError, "x-request-id")


class OpenAIAdapter(WireAdapter[PreparedRequest]):
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
    False, "include": ["reasoning.encrypted_content"]}``). The loop options (``tool_choice``,
    ``parallel_tool_calls``, ``max_turns``, ...) and ``serializers``/``codecs`` overrides are
    those of :class:`~affordance.adapters.ProviderAdapter`.
    """

    name: ClassVar[str] = "openai"
    default_serializers: ClassVar[SerializerFactories] = {
        "tool": OpenAIToolSerializer,
        "tool_result": OpenAIToolResultSerializer,
        "output": OpenAIOutputSerializer,
    }

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
        super().__init__(**options)
        if api not in ("responses", "chat"):
            raise ValueError(f"api must be 'responses' or 'chat', got {api!r}")
        self.settings = RequestSettings.of(
            model, max_output_tokens, temperature, extra_body, limit="max_output_tokens"
        )
        self.model = model
        self.api: Api = api
        self.shape = RESPONSES if api == "responses" else CHAT
        self.clients, self.transport = _SDK.connect(
            client,
            async_client,
            provider=self.name,
            path=self.shape.path,
            close_clients=close_clients,
        )

    @property
    def codec_provider(self) -> str:
        """``"openai"`` (Responses) or ``"openai-chat"``: hosted tools look different on each."""
        return self.name if self.api == "responses" else f"{self.name}-chat"

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The function declarations as this adapter's API sends them (flat for Responses,
        nested under ``function`` for Chat), from the resolved tool serializer."""
        function = self.shape.function
        return [copy.deepcopy(dict(function(self.declaration(t).wire))) for t in tools]

    # -- the wire format ---------------------------------------------------------------------

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        """The request body for ``request``, and what reading its answer needs."""
        return build_body(self, request, self.settings, self.shape, stream=stream)

    def parse(self, data: Any, prepared: PreparedRequest) -> ProviderTurn:
        return self.shape.parse(data, prepared)

    def translator(self, prepared: PreparedRequest) -> Translate:
        return self.shape.reply(hosted=prepared.hosted)
