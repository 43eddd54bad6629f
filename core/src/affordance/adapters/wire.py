"""``WireModel``: a provider's model as a wire format and a transport.

Every shipped provider plugin works the same way: build the JSON body of a request
(:meth:`WireModel.prepare`), read a stream's events into deltas (:meth:`~WireModel.translator`)
and a whole answer's JSON into a turn (:meth:`~WireModel.parse`: by default, with the same
translator, as the stream of that answer would bring it). Sending the body through
the SDK — retries, decoding, closing the response, mapping errors — is a
:class:`WireTransport`'s (:class:`~affordance.adapters.transport.StainlessTransport` for the
``openai`` and ``anthropic`` SDKs, :class:`~affordance.adapters.retrying.RetryingTransport` for
an SDK that does not retry). This class writes the rest once: the four sends, the preview
(``wire_request``) and closing the clients, so a plugin holds only its wire format.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar

from affordance._frozen import frozen
from affordance.adapters.delta_turn import turn_from_deltas
from affordance.adapters.model import ProviderModel

if TYPE_CHECKING:
    from affordance.adapters import ClientPair, Delta, ModelRequest, ProviderTurn, SseEvent

__all__ = [
    "Prepared",
    "PreparedRequest",
    "RequestSettings",
    "Translate",
    "WireModel",
    "WireTransport",
    "check_model",
]

Translate: TypeAlias = "Callable[[SseEvent], Iterable[Delta]]"
"""A stream's translator: the deltas of each event. One with an ``end()`` method gets it called
once the events run out (a format that closes the turn only then); one with a ``whole(data)``
method reads a whole answer too, into the deltas a stream of it would bring
(:meth:`WireModel.parse`)."""


class Prepared(Protocol):
    """A request's body, with whatever reading its answer needs (the plugin's own fields)."""

    @property
    def body(self) -> dict[str, Any]: ...


PreparedT = TypeVar("PreparedT", bound=Prepared)


@frozen  # built for each request
class PreparedRequest:
    """A request body, whether hosted tools were declared (their codecs then read the answer)
    and the HTTP headers their codecs ask for (``HostedRequest.headers``), sent with it; a
    plugin whose reading needs more subclasses it."""

    body: dict[str, Any]
    hosted: bool = False
    headers: Mapping[str, str] = field(default_factory=dict)


@frozen
class RequestSettings:
    """The adapter options every request sends: the model, the cap on output tokens, the
    temperature and the caller's ``extra_body`` (merged last). Each plugin places them."""

    model: str
    max_tokens: int | None = None
    temperature: float | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        model: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        *,
        limit: str = "max_tokens",
    ) -> RequestSettings:
        """The settings of an adapter's options, checked: a model is named and the cap on
        output tokens (the option ``limit`` names) is a positive integer when given."""
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens < 1):
            raise ValueError(f"{limit} must be a positive integer, got {max_tokens!r}")
        return cls(check_model(model), max_tokens, temperature, dict(extra_body or {}))


class WireTransport(Protocol):
    """Sends a ready body for a request through an SDK and reads the answer. ``headers`` are
    HTTP headers hosted tools ask for; :class:`WireModel` passes them only when there are
    some, so a transport of a provider no such codec serves may leave them out."""

    def send(
        self,
        body: Any,
        request: ModelRequest,
        parse: Callable[[Any], ProviderTurn],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderTurn: ...

    async def asend(
        self,
        body: Any,
        request: ModelRequest,
        parse: Callable[[Any], ProviderTurn],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderTurn: ...

    def send_stream(
        self,
        body: Any,
        request: ModelRequest,
        translate: Translate,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[Delta]: ...

    def asend_stream(
        self,
        body: Any,
        request: ModelRequest,
        translate: Translate,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncIterator[Delta]: ...


def _headers_of(prepared: Prepared) -> dict[str, Any]:
    """``{"headers": ...}`` when the prepared request carries headers, else nothing (a
    transport written before headers existed is called as it always was)."""
    headers = getattr(prepared, "headers", None)
    return {"headers": headers} if headers else {}


def check_model(model: str) -> str:
    """``model``, refused when empty (every provider needs one)."""
    if not model:
        raise ValueError(f"model must be a non-empty string, got {model!r}")
    return model


class WireModel(ProviderModel, Generic[PreparedT]):
    """A provider's model made of a wire format (the three methods a plugin implements) and a
    :class:`WireTransport` (``transport``) sending through ``clients``."""

    def __init__(
        self,
        settings: RequestSettings,
        clients: ClientPair[Any, Any],
        transport: WireTransport,
    ) -> None:
        """``settings`` are what every request sends, ``transport`` sends through ``clients``."""
        super().__init__()
        self.settings, self.clients, self.transport = settings, clients, transport

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedT:
        """The body of ``request`` (asking for a stream when ``stream``), and what reading its
        answer needs."""
        raise NotImplementedError

    def parse(self, data: Any, prepared: PreparedT) -> ProviderTurn:
        """The turn a whole answer's JSON holds: by default, the turn of the deltas a fresh
        translator's ``whole(data)`` reads from it, so a plain and a streamed turn are built by
        the same code. A format read otherwise overrides it."""
        whole = getattr(self.translator(prepared), "whole", None)
        if whole is None:
            raise NotImplementedError(f"{type(self).__qualname__}'s translator has no whole()")
        return turn_from_deltas(whole(data))

    def translator(self, prepared: PreparedT) -> Translate:
        """A fresh translator for one streamed answer."""
        raise NotImplementedError

    # -- the Model protocol ---------------------------------------------------------------------

    def send(self, request: ModelRequest) -> ProviderTurn:
        prepared = self.prepare(request)
        return self.transport.send(
            prepared.body,
            request,
            lambda data: self.parse(data, prepared=prepared),  # cheaper than a partial
            **_headers_of(prepared),
        )

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        prepared = self.prepare(request)
        return await self.transport.asend(
            prepared.body,
            request,
            lambda data: self.parse(data, prepared=prepared),
            **_headers_of(prepared),
        )

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        prepared = self.prepare(request, stream=True)
        translate = self.translator(prepared)
        return self.transport.send_stream(
            prepared.body, request, translate, **_headers_of(prepared)
        )

    def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        prepared = self.prepare(request, stream=True)
        translate = self.translator(prepared)
        return self.transport.asend_stream(
            prepared.body, request, translate, **_headers_of(prepared)
        )

    def wire_request(self, request: ModelRequest) -> Mapping[str, Any]:
        return self.prepare(request).body

    def endpoint(self, *, asynchronous: bool) -> str | None:
        """The ``base_url`` of the client a request would use (a Stainless SDK's client has
        one); ``None`` when the client has none."""
        client = self.clients.async_client() if asynchronous else self.clients.sync_client()
        url = getattr(client, "base_url", None)
        return None if url is None else str(url)

    # -- clients -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the sync client if this model owns it (built it from the environment, or was
        given it with ``close_clients=True``)."""
        self.clients.close()

    async def aclose(self) -> None:
        """Close the async client if this model owns it; call it on the loop that used it."""
        await self.clients.aclose()
