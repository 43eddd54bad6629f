"""``ProviderModel``: a provider's model — its wire format and clients, with the plugin
registry's serializers and hosted-tool codecs for its provider.

A provider plugin subclasses it (most through :class:`~affordance.adapters.WireModel`, a wire
format plus a transport) and implements the :class:`~affordance.runtime.model.Model` protocol:
``send``/``asend`` (and, for streaming, ``send_stream``/``asend_stream``) build the wire body
with :meth:`ProviderModel.declaration`, :meth:`~ProviderModel.output_format`,
:meth:`~ProviderModel.tool_result` and :meth:`~ProviderModel.hosted_request`, call the SDK and
read the answer into a :class:`ProviderTurn`. The loop, tool execution, confirmations,
disclosure and events are the runner's (:class:`~affordance.adapters.ProviderAdapter`, which
holds the model as its ``connection``).

Serializers and codecs resolve through the plugin registry once per model and registry
snapshot (see :mod:`affordance.adapters.resolution`); ``serializers=`` and ``codecs=`` override
them for one model. The registry sits below this layer: the model asks it, it never imports
models.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from affordance.adapters.hosted_request import HostedRequest, codec_extras, codec_headers
from affordance.adapters.resolution import Resolution, SerializerFactories, WireForms
from affordance.errors import AffordanceError, PromptEvaluationError
from affordance.runtime.model import (
    Delta,
    ModelRequest,
    OutputFormat,
    ProviderTurn,
    ToolCall,
    ToolDeclaration,
    ToolResultMessage,
    asent_whole,
    read_hosted_outputs,
    sent_whole,
)
from affordance.tools.hosted import HostedTool, HostedToolCodec, HostedToolOutput
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.plugins import Registry

__all__ = ["ProviderModel"]

ResultT = TypeVar("ResultT")

_NO_HOSTED_TOOLS = HostedRequest()


class ProviderModel:
    """One provider's model connection (the :class:`~affordance.runtime.model.Model` protocol).

    Its serializers and codecs resolve through the process-wide plugin registry (built on first
    use) unless :meth:`resolve_through` says otherwise.
    """

    name: ClassVar[str] = "provider"
    """The provider's name, in errors and events."""

    default_serializers: ClassVar[SerializerFactories] = {}
    """The plugin's own serializers, used when the registry offers none for this provider."""

    def __init__(self) -> None:
        self._given_serializers: dict[str, Any] = {}
        self._given_codecs: dict[str, HostedToolCodec[Any, Any]] = {}
        self._fixed_registry: Registry | None = None
        self._resolution: Resolution | None = None

    def resolve_through(
        self,
        *,
        serializers: Mapping[str, Any] | None = None,
        codecs: Mapping[str, HostedToolCodec[Any, Any]] | None = None,
        registry: Registry | None = None,
    ) -> None:
        """Resolve through these from now on: ``serializers`` (roles ``"tool"``,
        ``"tool_result"``, ``"output"`` to serializers) and ``codecs`` (hosted tool kinds to
        codecs) take precedence over the registry's, added over the ones given before;
        ``registry`` (``load_adapter`` passes its own) replaces the process-wide one. The adapter
        holding this model calls it with its own ``serializers=``, ``codecs=`` and
        ``registry=``."""
        if serializers:
            from affordance.plugins.specs import SERIALIZER_ROLES

            unknown = sorted(set(serializers) - set(SERIALIZER_ROLES))
            if unknown:
                raise ValueError(
                    f"serializers has unknown role(s) {', '.join(unknown)}; "
                    f"roles are {', '.join(SERIALIZER_ROLES)}"
                )
        self._given_serializers.update(serializers or {})
        self._given_codecs.update(codecs or {})
        if registry is not None:
            self._fixed_registry = registry
        self._resolution = None

    # -- resolution ------------------------------------------------------------------------

    def resolution(self) -> Resolution:
        """Serializers and codecs for the current registry snapshot (cheap after the first)."""
        registry = self._fixed_registry
        if registry is None:
            registry = _plugins().registry()
        resolved = self._resolution
        if resolved is None or resolved.registry is not registry:
            resolved = Resolution(
                self.name,
                registry,
                serializers=self._given_serializers,
                defaults=self.default_serializers,
                codecs=self._given_codecs,
                codec_provider=self.codec_provider,
            )
            self._resolution = resolved
        return resolved

    def declaration(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        """``tool`` as this provider declares it (role ``tool``), computed once per tool."""
        return self.resolution().declaration(tool)

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat:
        """The structured-output format (role ``output``), computed once per schema."""
        return self.resolution().output_format(schema, name)

    def tool_result(self, message: ToolResultMessage) -> Any:
        """What the model reads back for one call (role ``tool_result``)."""
        return self.resolution().tool_result_serializer().serialize(message)

    def wire_forms(self) -> WireForms:
        """The messages' wire forms this model has built, kept as long as each message lives:
        a request builder encodes a message once, not on every request that resends it."""
        return self.resolution().wire_forms

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        """Apply what the resolved serializers say about reading the model back: each call's
        arguments through its declaration's ``normalize_arguments``, a final structured answer
        through the output format's ``normalize_text``. The same for plain and streamed turns,
        so a serializer override changes both. An adapter with no serializers of its own (no
        wire format, like the offline ones) reads turns as they are."""
        if not self.default_serializers and not self._given_serializers:
            return turn
        calls = turn.tool_calls
        if calls:  # the calls to read back; a turn with calls is no final answer
            if not request.tools:
                return turn
            resolution = self.resolution()
            tools = {tool.name: tool for tool in request.tools}
            normalized: list[ToolCall] = []
            changed = False
            for call in calls:
                tool = tools.get(call.name)
                normalize = (
                    None if tool is None else resolution.declaration(tool).normalize_arguments
                )
                if normalize is None:
                    normalized.append(call)
                    continue
                normalized.append(ToolCall(call.id, call.name, normalize(call.arguments)))
                changed = True
            return dataclasses.replace(turn, tool_calls=tuple(normalized)) if changed else turn
        schema, text = request.output_schema, turn.text
        if schema is None or text is None or turn.finish_reason != "stop":
            return turn  # no structured answer to read back
        normalize_text = self.resolution().output_format(schema, request.output_name).normalize_text
        if normalize_text is None:
            return turn
        return dataclasses.replace(turn, text=normalize_text(text))

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """The declarations of ``tools`` as this provider's tool serializer makes them.

        Each is a new dict, but what it holds (the parameters schema) is the declaration kept
        for the tool's lifetime: treat it as read-only, and deep-copy it to transform it (as
        ``affordance.serde.schema``'s answers). No copy per call: a request's tools cost the
        same on the thousandth call as on the second."""
        return [dict(self.declaration(tool).wire) for tool in tools]

    # -- hosted tools ----------------------------------------------------------------------

    @property
    def codec_provider(self) -> str:
        """The provider name hosted-tool codecs are registered under for this adapter: its
        ``name``, unless one provider speaks several wire formats (OpenAI's Chat API uses
        ``"openai-chat"``)."""
        return self.name

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        """The codec for hosted tool ``kind`` on this provider (None if unsupported)."""
        return self.resolution().codec(kind)

    def hosted_output_type(self, kind: str) -> type[Any] | None:
        """The output type the registry's hosted tool kind ``kind`` names (imported on first
        use), which its codec's output must be; None when no plugin registers the kind."""
        registry = self.resolution().registry
        found = None if registry is None else registry.hosted_tool_output(kind)
        return None if found is None else found[0]

    def hosted_declarations(self, request: ModelRequest) -> list[dict[str, Any]]:
        """The request's hosted tools as this provider declares them, through their codecs
        (:meth:`hosted_request`'s declarations, without the request extras)."""
        return list(self.hosted_request(request).declarations)

    def hosted_request(self, request: ModelRequest) -> HostedRequest:
        """The request's hosted tools as this provider declares them, through their codecs:
        each tool's declaration (``serialize``) and the request fields the codecs ask for
        (``request_extras``, optional), combined by the rule of
        :mod:`affordance.adapters.hosted_request`; the adapter places them with
        :meth:`HostedRequest.merge_into`. The HTTP headers they ask for (``request_headers``,
        optional) are :attr:`HostedRequest.headers`, for the adapter to send.

        A codec's own ``AffordanceError`` (config the provider cannot honour) propagates as it
        is; anything else a codec raises or returns wrongly — it is plugin code — is a
        ``PromptEvaluationError`` naming the codec, raised before any request
        (``KeyboardInterrupt`` excepted); so are extras that conflict."""
        if not request.hosted_tools:
            return _NO_HOSTED_TOOLS
        declared: list[tuple[str, dict[str, Any], Mapping[str, Any]]] = []
        headers: list[Mapping[str, str]] = []
        for tool in request.hosted_tools:
            codec = self.require_hosted_codec(tool, prompt_name=request.prompt_name)
            declaration = self._ask_codec(tool, request, "declare", codec.serialize)
            extras = self._ask_codec(
                tool,
                request,
                "give the request extras of",
                functools.partial(codec_extras, codec),
            )
            declared.append((tool.name, declaration, extras))
            headers.append(
                self._ask_codec(
                    tool,
                    request,
                    "give the request headers of",
                    functools.partial(codec_headers, codec),
                )
            )
        return HostedRequest.combine(
            declared, provider=self.codec_provider, prompt_name=request.prompt_name, headers=headers
        )

    def _ask_codec(
        self,
        tool: HostedTool[Any],
        request: ModelRequest,
        doing: str,
        ask: Callable[[HostedTool[Any]], ResultT],
    ) -> ResultT:
        """``ask(tool)``; anything but an ``AffordanceError`` (or ``KeyboardInterrupt``) it
        raises — a codec is plugin code — as a ``PromptEvaluationError`` naming the codec and
        what it failed to do."""
        try:
            return ask(tool)
        except (AffordanceError, KeyboardInterrupt):
            raise
        except BaseException as error:
            raise PromptEvaluationError(
                f"the {tool.kind!r} codec for provider {self.codec_provider!r} failed to "
                f"{doing} hosted tool {tool.name!r}: {type(error).__name__}: {error}",
                prompt_name=request.prompt_name,
                phase="render",
                provider=self.name,
            ) from error

    def require_hosted_codec(
        self, tool: HostedTool[Any], *, prompt_name: str | None = None
    ) -> HostedToolCodec[Any, Any]:
        """The codec for ``tool``, after checking its config is the registered kind's config
        type; else a :class:`PromptEvaluationError` (phase ``render``) naming the kind, the
        plugin that registered it and, for an unsupported kind, the providers that support it.
        """
        registry = self.resolution().registry
        kind = tool.kind
        if registry is not None:
            registered = registry.hosted_tool_config(kind)
            if registered is not None and not isinstance(tool.config, registered[0]):
                config_type, contribution = registered
                raise PromptEvaluationError(
                    f"hosted tool {tool.name!r} of kind {kind!r} has a "
                    f"{type(tool.config).__qualname__} config, but {contribution.origin} "
                    f"registers kind {kind!r} with config {config_type.__qualname__}",
                    prompt_name=prompt_name,
                    phase="render",
                    provider=self.name,
                )
        codec = self.hosted_codec(kind)
        if codec is not None:
            return codec
        others = [] if registry is None else registry.providers_supporting(kind)
        others = [p for p in others if p != self.codec_provider]
        supported = (
            f"providers that support it: {', '.join(others)}"
            if others
            else "no installed provider supports it (is its hosted-tool plugin installed?)"
        )
        raise PromptEvaluationError(
            f"hosted tool kind {kind!r} is not supported by provider {self.codec_provider!r}; "
            f"{supported}",
            prompt_name=prompt_name,
            phase="render",
            provider=self.name,
        )

    # -- sending: the Model protocol ----------------------------------------------------------

    def send(self, request: ModelRequest) -> ProviderTurn:
        """One request with a sync client; the answer, normalized."""
        raise NotImplementedError(f"{type(self).__qualname__} does not implement send")

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        """One request with an async client; the answer, normalized."""
        raise NotImplementedError(f"{type(self).__qualname__} does not implement asend")

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        """One streamed request: its deltas, ending with one ``TurnEnd``. A model writes it as a
        generator closing its HTTP response in ``finally`` (the core closes the generator when
        the consumer leaves early); by default, a plain request whose turn comes whole."""
        return sent_whole(self.send, request)

    def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        """The async form of :meth:`send_stream`."""
        return asent_whole(self.asend, request)

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        """Typed outputs of the hosted tools a response ran, by tool name, read by their codecs
        and checked against their kinds' registered output types (a codec that raises or
        answers another type loses its output, with a metadata-only warning)."""
        return read_hosted_outputs(
            items,
            hosted_tools,
            codec_of=self.hosted_codec,
            output_type_of=self.hosted_output_type,
        )

    def wire_request(self, request: ModelRequest) -> Mapping[str, Any]:
        """The body this model would send for ``request`` (``affordance render`` shows it).

        Provider plugins override this with the body their ``send`` builds.
        """
        raise NotImplementedError(f"{type(self).__qualname__} does not preview its requests")

    def endpoint(self, *, asynchronous: bool) -> str | None:
        """The base URL the sync or async client sends to, for tracing (``server.address``);
        ``None`` (the default) when the model cannot say. Read once per traced request."""
        return None

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Release what the model owns (the sync client it built from the environment, or was
        handed with ``close_clients=True``)."""

    async def aclose(self) -> None:
        """Release what the model owns on the async side."""


@functools.cache
def _plugins() -> ModuleType:
    """``affordance.plugins``, imported once, when first needed: models with no wire format
    never load the plugin machinery."""
    import affordance.plugins

    return affordance.plugins
