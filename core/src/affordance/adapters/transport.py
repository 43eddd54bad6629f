"""``StainlessTransport``: the four sends of a provider on a Stainless-generated SDK, once.

The ``openai`` and ``anthropic`` SDKs share one client core, so sending a ready JSON body and
reading the answer is the same for both: post it through the SDK (:class:`JsonPost`) with the
bodies kept out of the SDK's debug logs, map the SDK's errors to the provider's
``PromptEvaluationError``, and read the HTTP response — whole, with :func:`decode_turn`, or as
server-sent events, with :func:`decode_stream`, closing the response however the reading ends.
A provider plugin keeps only its wire format: the body it builds, how it parses a body
(``parse``) and how it translates a stream's events (``translate``).

A request with ``retries=False`` (:class:`~affordance.runtime.model.turn.ModelRequest`) is sent
once: neither the SDK nor the core retries it, and a transient failure reaches the caller at
once (a durable engine retrying with its own policy).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

from affordance._frozen import frozen
from affordance.adapters.clients import ClientPair
from affordance.adapters.decoding import (
    adecode_stream,
    decode_stream,
    decode_turn,
    malformed_response,
)
from affordance.adapters.errors import stainless_error, transport_errors
from affordance.adapters.redaction import bodies_withheld
from affordance.adapters.sse import SseEvent, aread_events, read_events
from affordance.adapters.stainless import JsonPost
from affordance.errors import PromptEvaluationError
from affordance.runtime.model.deltas import Delta
from affordance.runtime.model.turn import ModelRequest, ProviderTurn

__all__ = ["ProviderErrorMapper", "StainlessTransport"]


ErrorT = TypeVar("ErrorT", bound=Exception)
ErrorT_contra = TypeVar("ErrorT_contra", bound=Exception, contravariant=True)


class ProviderErrorMapper(Protocol[ErrorT_contra]):
    """A provider plugin's mapping of its SDK's error to a ``PromptEvaluationError``;
    ``max_retries`` is how many retries were spent (for the message)."""

    def __call__(
        self, error: ErrorT_contra, *, prompt_name: str, max_retries: int | None
    ) -> PromptEvaluationError: ...


@frozen
class StainlessTransport(Generic[ErrorT]):
    """Sends ready JSON bodies through the SDK clients of ``clients`` as their ``post`` does.

    ``sdk_error`` is the SDK's base error (``openai.OpenAIError``), mapped by
    ``provider_error``; ``provider`` names the provider in errors; ``request_id_header`` is the
    response header carrying the provider's request id (read only for an error).
    """

    post: JsonPost
    clients: ClientPair[Any, Any]
    sdk_error: type[ErrorT]
    provider_error: ProviderErrorMapper[ErrorT]
    provider: str
    request_id_header: str

    @classmethod
    def of(
        cls,
        sdk: ModuleType,
        clients: ClientPair[Any, Any],
        *,
        path: str,
        provider: str,
        sdk_error: type[ErrorT],
        request_id_header: str,
        error_kinds: tuple[str, ...] = ("code", "type"),
    ) -> StainlessTransport[ErrorT]:
        """The transport posting to ``path`` through the Stainless SDK package ``sdk`` (passed by
        the plugin: the core imports none): its ``DefaultHttpxClient``, ``APIStatusError``,
        ``APIConnectionError`` and ``_models.FinalRequestOptions``; its errors worded by
        :func:`stainless_error`, whose ``error_kinds`` are the error body's fields naming the
        error's kind."""
        post = JsonPost(
            path,
            http_client_class=sdk.DefaultHttpxClient,
            status_error=sdk.APIStatusError,
            connection_error=sdk.APIConnectionError,
            options_class=getattr(getattr(sdk, "_models", None), "FinalRequestOptions", None),
        )

        def provider_error(
            error: ErrorT, *, prompt_name: str, max_retries: int | None
        ) -> PromptEvaluationError:
            return stainless_error(
                sdk,
                error,
                provider=provider,
                prompt_name=prompt_name,
                max_retries=max_retries,
                error_kinds=error_kinds,
            )

        return cls(post, clients, sdk_error, provider_error, provider, request_id_header)

    def send(
        self,
        body: Any,
        request: ModelRequest,
        parse: Callable[[Any], ProviderTurn],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderTurn:
        """Post ``body`` for ``request`` (with the hosted tools' ``headers``); the answer's
        JSON read by ``parse``."""
        client = self.clients.sync_client()
        try:
            with bodies_withheld():
                response = self.post.send(
                    client,
                    body,
                    deadline=request.deadline,
                    retries=request.retries,
                    headers=headers,
                )
        except self.sdk_error as error:
            raise self._error(error, request, client) from error
        return self._turn(response, request, parse)

    async def asend(
        self,
        body: Any,
        request: ModelRequest,
        parse: Callable[[Any], ProviderTurn],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderTurn:
        """:meth:`send` on the async client."""
        client = self.clients.async_client()
        try:
            with bodies_withheld():
                response = await self.post.asend(
                    client,
                    body,
                    deadline=request.deadline,
                    retries=request.retries,
                    headers=headers,
                )
        except self.sdk_error as error:
            raise self._error(error, request, client) from error
        return self._turn(response, request, parse)

    def send_stream(
        self,
        body: Any,
        request: ModelRequest,
        translate: Callable[[SseEvent], Iterable[Delta]],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[Delta]:
        """Post ``body`` (which asks for a stream) and yield the deltas ``translate`` makes of
        its events; the response is closed when the stream ends, fails or is left."""
        client = self.clients.sync_client()
        try:
            with bodies_withheld():
                response = self.post.send(
                    client,
                    body,
                    deadline=request.deadline,
                    stream=True,
                    retries=request.retries,
                    headers=headers,
                )
            with contextlib.closing(response):
                if _answered_in_json(response):
                    raise self._not_a_stream(response, request, response.read())
                yield from decode_stream(
                    read_events(response.iter_bytes()),
                    translate,
                    **self._decoding(response, request),
                )
        except self.sdk_error as error:
            raise self._error(error, request, client) from error

    async def asend_stream(
        self,
        body: Any,
        request: ModelRequest,
        translate: Callable[[SseEvent], Iterable[Delta]],
        *,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncIterator[Delta]:
        """:meth:`send_stream` on the async client."""
        client = self.clients.async_client()
        try:
            with bodies_withheld():
                response = await self.post.asend(
                    client,
                    body,
                    deadline=request.deadline,
                    stream=True,
                    retries=request.retries,
                    headers=headers,
                )
            try:
                if _answered_in_json(response):
                    raise self._not_a_stream(response, request, await response.aread())
                deltas = adecode_stream(
                    aread_events(response.aiter_bytes()),
                    translate,
                    **self._decoding(response, request),
                )
                async with contextlib.aclosing(deltas):
                    async for delta in deltas:
                        yield delta
            finally:
                await response.aclose()
        except self.sdk_error as error:
            raise self._error(error, request, client) from error

    # -- reading -----------------------------------------------------------------------------

    def _turn(
        self, response: Any, request: ModelRequest, parse: Callable[[Any], ProviderTurn]
    ) -> ProviderTurn:
        return decode_turn(
            response.content,
            parse,
            provider=self.provider,
            prompt_name=request.prompt_name,
            status=response.status_code,
            request_id=functools.partial(self._request_id, response),
        )

    def _decoding(self, response: Any, request: ModelRequest) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "prompt_name": request.prompt_name,
            "request_id": functools.partial(self._request_id, response),
            "transport_errors": transport_errors(response),
        }

    def _request_id(self, response: Any) -> str | None:
        """The request id: read only when a failure needs it (a header lookup scans them), so
        the readers are handed this bound to the response, to call then."""
        found = response.headers.get(self.request_id_header)
        return found if isinstance(found, str) else None

    def _not_a_stream(
        self, response: Any, request: ModelRequest, body: bytes
    ) -> PromptEvaluationError:
        return malformed_response(
            f"expected an event stream, got {response.headers.get('content-type', '')}",
            provider=self.provider,
            prompt_name=request.prompt_name,
            status=response.status_code,
            request_id=self._request_id(response),
            raw_text=body.decode("utf-8", errors="replace"),
        )

    def _error(self, error: ErrorT, request: ModelRequest, client: Any) -> PromptEvaluationError:
        retried: int | None = client.max_retries if request.retries else 0
        return self.provider_error(error, prompt_name=request.prompt_name, max_retries=retried)


def _answered_in_json(response: Any) -> bool:
    """A JSON answer to a request for a stream: an error body some servers send with 200."""
    return "json" in response.headers.get("content-type", "")
