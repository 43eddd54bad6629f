"""``RunnerModel``: a runner as the model its evaluations send to — the one it holds, or itself.

An :class:`~affordance.runtime.loop.Evaluator` holds one model connection
(:class:`~affordance.runtime.model.connection.Model`, kept as ``connection``) and stands for it
in the loop: requests, whole or streamed, the normalizing of their turns and the reading of
hosted tools' outputs go to that connection. A subclass that implements :meth:`RunnerModel.send`
and :meth:`RunnerModel.asend` itself is its own model (``connection`` is the runner): unless
it streams too, its stream is one whole turn, and it reads hosted tools' outputs through
:meth:`RunnerModel.hosted_codec`. The
approvals hosted tools wait for, and the caller's answers to them, are always its codecs' work.
The evaluate API over it is ``evaluator``'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from affordance.runtime.model.connection import Model
from affordance.runtime.model.deltas import Delta, asent_whole, sent_whole
from affordance.runtime.model.hosted_approvals import (
    HostedApproval,
    answer_hosted_approval,
    read_hosted_approvals,
)
from affordance.runtime.model.hosted_outputs import read_hosted_outputs
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.tools.hosted import HostedTool, HostedToolCodec, HostedToolOutput

__all__ = ["RunnerModel"]


class RunnerModel:
    """The model side of a runner: its held ``connection``'s, unless it is its own model."""

    name: ClassVar[str]  # as a model's: its provider, named in errors
    connection: Model

    def send(self, request: ModelRequest) -> ProviderTurn:
        """Send one request with a sync client and normalize the answer (a subclass that is its
        own model implements it; otherwise the held model's)."""
        return self.connection.send(request)

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        """Send one request with an async client and normalize the answer (as :meth:`send`)."""
        return await self.connection.asend(request)

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        """Send one request streaming; yield its deltas, ending with one ``TurnEnd``.

        A subclass writes it as a generator that closes its HTTP response in ``finally`` (or a
        ``with``): the core closes the generator when the consumer leaves early. By default,
        the held connection's; for a subclass that is its own model and does not stream, a plain
        request whose whole turn is yielded at once.
        """
        if self.connection is not self:
            return self.connection.send_stream(request)
        return sent_whole(self.send, request)

    def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        """The async form of :meth:`send_stream`."""
        if self.connection is not self:
            return self.connection.asend_stream(request)
        return asent_whole(self.asend, request)

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        """The turn as the loop should read it (adapters undo what their wire format changed,
        e.g. strict mode's nulls); called once per turn, streamed or not."""
        if self.connection is not self:
            return self.connection.normalize_turn(turn, request)
        return turn

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        """The codec reading hosted tool ``kind`` on this connection; None: not supported."""
        return None

    def hosted_output_type(self, kind: str) -> type[Any] | None:
        """The output type hosted tool ``kind`` is registered with, which its codec's
        ``parse_output`` must return; None: nothing to check (this connection has no plugin
        registry; a provider adapter answers from its own)."""
        return None

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        """Typed outputs of the hosted tools invoked in a response, by tool name.

        A codec that raises while reading (it is plugin code, reading the provider's data), or
        returns something that is not its kind's registered output type
        (:meth:`hosted_output_type`), loses its output for this response, with a metadata-only
        warning on ``affordance.hosted``; the run goes on (``KeyboardInterrupt`` excepted).
        """
        if self.connection is not self:
            return self.connection.parse_hosted_outputs(items, hosted_tools)
        return read_hosted_outputs(
            items,
            hosted_tools,
            codec_of=self.hosted_codec,
            output_type_of=self.hosted_output_type,
        )

    def hosted_approvals(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> tuple[HostedApproval, ...]:
        """The approvals the hosted tools of a response wait for, found by their codecs
        (:meth:`hosted_codec`; a codec without ``approval_requests`` finds none)."""
        return read_hosted_approvals(items, hosted_tools, codec_of=self.hosted_codec)

    def hosted_approval_answer(
        self, approval: HostedApproval, approved: bool, message: str, *, prompt_name: str
    ) -> Mapping[str, Any]:
        """The caller's answer to ``approval`` as the provider item the next request carries,
        written by the tool's codec."""
        return answer_hosted_approval(
            approval, approved, message, codec_of=self.hosted_codec, prompt_name=prompt_name
        )
