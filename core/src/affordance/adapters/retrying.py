"""``RetryingTransport``: the four sends of a provider whose SDK does not retry, once.

Some SDKs (``google-genai``) retry nothing by default and ignore ``Retry-After``, and let
transport failures through as the raw exceptions of their HTTP library. Their adapter then owns
retries: each attempt asks the SDK for a single try, and the core's retry budget
(:func:`~affordance.adapters.retry.with_retries`) decides, from the plugin's ``classify``,
whether another attempt is worth it and how long to wait (:meth:`RetryingTransport.of` takes it
from an :class:`~affordance.adapters.sdk_failures.SdkFailures`). The answer is read as for any
provider — whole, with :func:`decode_turn`, or as server-sent events of the raw HTTP response
(:mod:`affordance.adapters.raw_http`), with :func:`decode_stream`, closing the response however
the reading ends. The plugin says only how one attempt is made (an :class:`Exchange`).

A request with ``retries=False`` (:class:`~affordance.runtime.model.turn.ModelRequest`) is sent
once.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from affordance._frozen import frozen
from affordance.adapters.clients import ClientPair
from affordance.adapters.decoding import adecode_stream, decode_stream, decode_turn
from affordance.adapters.raw_http import (
    achunks,
    aclose_response,
    chunks,
    header_value,
    response_transport_errors,
)
from affordance.adapters.retry import (
    NO_REQUEST_RETRIES,
    Classify,
    RequestRetryPolicy,
    awith_retries,
    with_retries,
)
from affordance.adapters.sdk_failures import SdkFailures
from affordance.adapters.sse import aread_events, read_events
from affordance.clock import Clock
from affordance.errors import PromptEvaluationError

if TYPE_CHECKING:
    from affordance.adapters import Delta, ModelRequest, ProviderTurn, Translate

__all__ = ["Exchange", "RetryingTransport"]


class Exchange(Protocol):
    """How one attempt goes through an SDK: what a plugin gives a :class:`RetryingTransport`."""

    def attempt(
        self, client: Any, body: Any, request: ModelRequest, *, stream: bool
    ) -> Callable[[], Any]:
        """One attempt at posting ``body`` for ``request`` through ``client`` (on an async client,
        returning the awaitable), to call again for each retry. It returns the SDK's answer:
        whole, or with ``stream`` one whose HTTP body is still unread."""
        ...

    def content(self, answer: Any) -> bytes:
        """A whole answer's body."""
        ...

    def headers(self, answer: Any) -> Any:
        """An answer's response headers (a mapping with ``get``), or ``None``."""
        ...

    def raw_response(self, answer: Any) -> Any:
        """A streamed answer's raw HTTP response, to read and close."""
        ...


@frozen
class RetryingTransport:
    """Sends ready JSON bodies through the SDK clients of ``clients``, one ``exchange`` attempt
    at a time, retried within ``policy`` (on ``clock``) while ``classify`` calls a failure
    transient; ``give_up(error, attempts, prompt_name=...)`` words what is left of one.
    ``provider`` names the provider in errors; ``request_id_headers`` are the response headers
    that may carry its request id (read only for an error)."""

    exchange: Exchange
    clients: ClientPair[Any, Any]
    provider: str
    classify: Classify
    give_up: Callable[..., PromptEvaluationError]
    policy: RequestRetryPolicy
    clock: Clock
    request_id_headers: tuple[str, ...] = ("x-request-id",)

    @classmethod
    def of(
        cls,
        exchange: Exchange,
        clients: ClientPair[Any, Any],
        failures: SdkFailures,
        *,
        policy: RequestRetryPolicy,
        clock: Clock,
    ) -> RetryingTransport:
        """The transport of an SDK whose failures ``failures`` reads (its provider, what is
        transient, what is left of a failure, where a request id is)."""
        return cls(
            exchange,
            clients,
            provider=failures.provider,
            classify=failures.classify,
            give_up=failures.give_up,
            policy=policy,
            clock=clock,
            request_id_headers=failures.request_id_headers,
        )

    def send(
        self,
        body: Any,
        request: ModelRequest,
        parse: Callable[[Any], ProviderTurn],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderTurn:
        """Post ``body`` for ``request``; the answer's JSON read by ``parse``. ``headers``
        (from hosted tools) cannot go through an :class:`Exchange`: any is refused."""
        self._refuse(headers, request)
        attempt = self.exchange.attempt(self.clients.sync_client(), body, request, stream=False)
        return self._turn(with_retries(attempt, **self._retrying(request)), request, parse)

    async def asend(
        self,
        body: Any,
        request: ModelRequest,
        parse: Callable[[Any], ProviderTurn],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderTurn:
        """:meth:`send` on the async client."""
        self._refuse(headers, request)
        attempt = self.exchange.attempt(self.clients.async_client(), body, request, stream=False)
        answer = await awith_retries(attempt, **self._retrying(request))
        return self._turn(answer, request, parse)

    def send_stream(
        self,
        body: Any,
        request: ModelRequest,
        translate: Translate,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[Delta]:
        """Post ``body`` (which asks for a stream) and yield the deltas ``translate`` makes of
        its events; the response is closed when the stream ends, fails or is left."""
        self._refuse(headers, request)
        attempt = self.exchange.attempt(self.clients.sync_client(), body, request, stream=True)
        answer = with_retries(attempt, **self._retrying(request))
        raw = self.exchange.raw_response(answer)
        with contextlib.closing(raw):
            yield from decode_stream(
                read_events(chunks(raw)), translate, **self._decoding(answer, raw, request)
            )

    async def asend_stream(
        self,
        body: Any,
        request: ModelRequest,
        translate: Translate,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncIterator[Delta]:
        """:meth:`send_stream` on the async client."""
        self._refuse(headers, request)
        attempt = self.exchange.attempt(self.clients.async_client(), body, request, stream=True)
        answer = await awith_retries(attempt, **self._retrying(request))
        raw = self.exchange.raw_response(answer)
        try:
            deltas = adecode_stream(
                aread_events(achunks(raw)), translate, **self._decoding(answer, raw, request)
            )
            async with contextlib.aclosing(deltas):
                async for delta in deltas:
                    yield delta
        finally:
            await aclose_response(raw)

    def _refuse(self, headers: Mapping[str, str] | None, request: ModelRequest) -> None:
        if headers:
            raise PromptEvaluationError(
                f"hosted tools ask for request headers ({', '.join(sorted(headers))}), which "
                f"the transport of provider {self.provider!r} cannot send",
                prompt_name=request.prompt_name,
                phase="render",
                provider=self.provider,
            )

    # -- reading -----------------------------------------------------------------------------

    def _turn(
        self, answer: Any, request: ModelRequest, parse: Callable[[Any], ProviderTurn]
    ) -> ProviderTurn:
        return decode_turn(
            self.exchange.content(answer),
            parse,
            provider=self.provider,
            prompt_name=request.prompt_name,
            status=200,
            request_id=lambda: self._request_id(answer),
        )

    def _decoding(self, answer: Any, raw: Any, request: ModelRequest) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "prompt_name": request.prompt_name,
            "request_id": self._request_id(answer),
            "transport_errors": response_transport_errors(raw),
        }

    def _request_id(self, answer: Any) -> str | None:
        return header_value(self.exchange.headers(answer), self.request_id_headers)

    def _retrying(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "classify": self.classify,
            "give_up": functools.partial(self.give_up, prompt_name=request.prompt_name),
            "policy": self.policy if request.retries else NO_REQUEST_RETRIES,
            "clock": self.clock,
            "deadline": request.deadline,
        }
