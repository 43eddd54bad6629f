"""What a provider's tests give :class:`~affordance_testing.contract.AdapterContract`: the types
of its two fixtures, ``wire`` (a :class:`ContractWire`, the fake server) and ``make_adapter``
(a :data:`MakeAdapter`, fresh adapters pointed at it).

Kept apart from the suite so that the helpers the suite runs with (``contract_runs``,
``contract_faults``) can name them; imported through :mod:`affordance_testing.contract`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

from affordance.adapters import ProviderAdapter, ProviderTurn
from affordance_testing.faults import FaultProfile, WireFault

__all__ = ["ContractWire", "MakeAdapter"]

MakeAdapter = Callable[[Literal["sync", "async"]], ProviderAdapter[Any]]
"""The ``make_adapter`` fixture: a fresh adapter whose client of that kind points at the fake
server."""


class ContractWire(Protocol):
    """What a provider's tests give the contract: its fake server, spoken in its wire format."""

    profile: FaultProfile
    """Who retries, the overloaded status, the SDK's loggers and where the provider's outcome
    differs from a fault row's (see :mod:`affordance_testing.faults`)."""

    def script(self, *turns: ProviderTurn) -> None:
        """Answer the next requests with these turns, in order, each plain or streamed as the
        request asks (streamed in several events, text in several pieces). A call's arguments
        are sent as given: text that is not JSON, or nested past any parser, goes out verbatim
        where the wire format carries text, and embedded as raw JSON where it carries objects."""

    def script_fault(self, fault: WireFault) -> None:
        """Answer with a fault (``affordance_testing.faults.WIRE_FAULTS`` says what each one
        sends, once or on every request from now on); a reply carrying headers carries
        ``FAULT_REQUEST_ID`` as the provider's request id."""

    def respond(self, answer: Callable[[str], ProviderTurn]) -> None:
        """Answer every request not otherwise scripted with ``answer(body)``, ``body`` being
        the request's JSON text (runs at once from several threads)."""

    def requests(self) -> Sequence[Mapping[str, Any]]:
        """The JSON bodies of the requests received so far."""

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        """The tool results in the last message of a request body: ``(call id, failed)``, as
        the model reads them."""

    def wait_idle(self) -> bool:
        """Wait (briefly) until the server has no open connection; whether it got there. The
        early-exit checks ask it while the adapter and its client are still open, so it must
        count a connection as open until the client's side has closed it (a server that closes
        its end after each response would hide an adapter that never closed its stream)."""
