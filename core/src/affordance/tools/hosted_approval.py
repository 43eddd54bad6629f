"""Approvals a provider asks for before it runs a hosted tool's call.

Some hosted tools run calls the caller may want to see first: OpenAI Responses' ``mcp`` tool
answers with an ``mcp_approval_request`` item and waits for an ``mcp_approval_response`` on
the next request. A codec that knows such items implements :class:`AsksForApproval`: it finds
them in a response (:meth:`~AsksForApproval.approval_requests`) and writes the caller's answer
as the item to send back (:meth:`~AsksForApproval.approval_answer`). The loop suspends the run
with them in ``PromptResponse.pending_confirmations``, next to any destructive local call, and
``evaluate(..., confirmations=...)`` resumes it with the answers on the next request. A codec
without these methods asks for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Protocol, TypeVar

from affordance._frozen import frozen
from affordance.tools.hosted import HostedTool, HostedToolConfig

__all__ = ["AsksForApproval", "HostedApprovalRequest"]

ConfigT = TypeVar("ConfigT", bound=HostedToolConfig)


@frozen
class HostedApprovalRequest:
    """One call the provider will run only once the caller approves it.

    ``call_id`` is the provider's id of the request, the key the caller answers it by;
    ``name`` what is to run, for a person (an MCP tool's name); ``arguments`` what it is to
    run with, as JSON-like data. ``item`` is the provider's item as received, for the codec's
    answer (never shown).
    """

    call_id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)
    item: Mapping[str, Any] = field(default_factory=dict, hash=False, repr=False)


class AsksForApproval(Protocol[ConfigT]):
    """The optional part of a hosted-tool codec whose provider asks before running calls."""

    def approval_requests(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[ConfigT]
    ) -> Sequence[HostedApprovalRequest]:
        """The approvals ``tool``'s calls wait for in a response (the items ``parse_output``
        reads), in order; none when nothing waits."""
        ...

    def approval_answer(
        self,
        request: HostedApprovalRequest,
        approved: bool,
        message: str,
        tool: HostedTool[ConfigT],
    ) -> Mapping[str, Any]:
        """The caller's answer to ``request`` as the provider item the next request carries
        (``message``: the reason a denial gave, may be empty)."""
        ...
