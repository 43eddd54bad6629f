"""``Model``: what the evaluation loop needs of a model connection, and nothing else.

A model takes one :class:`ModelRequest` and answers one normalized :class:`ProviderTurn` —
whole (``send``/``asend``) or as deltas ending with one ``TurnEnd`` (``send_stream``/
``asend_stream``) — then says how the loop should read the turn (``normalize_turn``) and what
the hosted tools it ran produced (``parse_hosted_outputs``). The runner, an
:class:`~affordance.runtime.loop.Evaluator`, holds one as its ``connection``:
``Evaluator(connection, ...)``. The loop
options, tool execution, confirmations and events are the runner's; a model holds only its
connection and wire format.

A provider plugin's model (an ``affordance.adapters.ProviderModel``) implements this protocol,
and its adapter — the user's object, a ``ProviderAdapter`` — is the runner holding it; a model
of another kind — the Temporal plugin's stand-in, which replays turns a workflow already has —
is handed to a plain ``Evaluator``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from affordance.runtime.model.deltas import Delta
    from affordance.runtime.model.turn import ModelRequest, ProviderTurn
    from affordance.tools.hosted import HostedTool, HostedToolOutput

__all__ = ["Model", "endpoint_of", "model_name_of"]


class Model(Protocol):
    """One model connection: ``name`` names its provider in errors."""

    @property
    def name(self) -> str: ...

    def send(self, request: ModelRequest) -> ProviderTurn:
        """One request with a sync client; the answer, normalized."""
        ...

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        """One request with an async client; the answer, normalized."""
        ...

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        """One streamed request: its deltas, ending with one ``TurnEnd``; closing the iterator
        early closes the response."""
        ...

    def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        """The async form of :meth:`send_stream`."""
        ...

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        """The turn as the loop should read it; called once per turn, streamed or not."""
        ...

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        """Typed outputs of the hosted tools a response ran, by tool name."""
        ...


def model_name_of(connection: object) -> str | None:
    """The model name a connection sends: its ``model`` attribute, else its request settings'
    (a ``WireModel``'s ``settings.model``); ``None`` when it has neither."""
    name = getattr(connection, "model", None)
    if isinstance(name, str):
        return name
    name = getattr(getattr(connection, "settings", None), "model", None)
    return name if isinstance(name, str) else None


def endpoint_of(connection: object, *, asynchronous: bool) -> str | None:
    """The base URL a connection sends to with its sync or async client: its ``endpoint``
    method's answer (a ``ProviderModel``'s), ``None`` when it has none or cannot say. Read only
    for request events (tracing's ``server.address``), so a failure here never fails a run."""
    endpoint = getattr(connection, "endpoint", None)
    if not callable(endpoint):
        return None
    try:
        url = endpoint(asynchronous=asynchronous)
    except Exception:  # noqa: BLE001 - a client that cannot be built fails the request itself
        return None
    return url if isinstance(url, str) and url else None
