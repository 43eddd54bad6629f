"""Reading the approvals a response's hosted tools wait for, and writing the caller's answers,
through the tools' codecs (:class:`~affordance.tools.hosted_approval.AsksForApproval`).

Codecs are plugin code reading the provider's data. One that raises while looking for
approvals, or returns something that is not a list of
:class:`~affordance.tools.hosted_approval.HostedApprovalRequest`, loses that tool's approvals
for the response with one WARNING on ``affordance.hosted`` (metadata only), like a codec that
fails to read an output. Failing to write an answer is different: the run cannot go on
without it, so it is a :class:`~affordance.errors.PromptEvaluationError` (phase ``confirm``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from affordance._frozen import frozen
from affordance.errors import PromptEvaluationError
from affordance.tools.hosted import HostedTool, HostedToolCodec
from affordance.tools.hosted_approval import HostedApprovalRequest

__all__ = ["HostedApproval", "answer_hosted_approval", "read_hosted_approvals"]

_log = logging.getLogger("affordance.hosted")

CodecOf = Callable[[str], "HostedToolCodec[Any, Any] | None"]


@frozen
class HostedApproval:
    """An approval a hosted tool's call waits for: the tool (as the request declared it) and
    its codec's request."""

    tool: HostedTool[Any]
    request: HostedApprovalRequest

    @property
    def call_id(self) -> str:
        return self.request.call_id


def read_hosted_approvals(
    items: Sequence[Mapping[str, Any]],
    hosted_tools: Sequence[HostedTool[Any]],
    *,
    codec_of: CodecOf,
) -> tuple[HostedApproval, ...]:
    """The approvals the ``hosted_tools`` wait for in ``items``, tool by tool, in order; a tool
    whose codec has no ``approval_requests`` waits for none."""
    found: list[HostedApproval] = []
    for tool in hosted_tools:
        codec = codec_of(tool.kind)
        ask = getattr(codec, "approval_requests", None)
        if ask is None:
            continue
        try:
            requests = ask(items, tool)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 - a codec is plugin code
            _warn(tool, "failed to read the approvals of the response", type(error).__name__)
            continue
        if not isinstance(requests, Sequence) or not all(_readable(r) for r in requests):
            _warn(tool, "returned approvals that are no HostedApprovalRequest list", "wrong type")
            continue
        found.extend(HostedApproval(tool, request) for request in requests)
    return tuple(found)


def answer_hosted_approval(
    approval: HostedApproval,
    approved: bool,
    message: str,
    *,
    codec_of: CodecOf,
    prompt_name: str,
) -> Mapping[str, Any]:
    """The provider item carrying the caller's answer to ``approval``, written by its codec."""
    tool = approval.tool
    try:
        return _written(codec_of(tool.kind), approval, approved, message)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        raise PromptEvaluationError(
            f"the {tool.kind!r} codec failed to write the answer to approval "
            f"{approval.call_id!r} of hosted tool {tool.name!r}: {type(error).__name__}: {error}",
            prompt_name=prompt_name,
            phase="confirm",
        ) from error


def _written(
    codec: HostedToolCodec[Any, Any] | None, approval: HostedApproval, approved: bool, message: str
) -> dict[str, Any]:
    write = getattr(codec, "approval_answer", None)
    if write is None:
        raise TypeError("the codec has no approval_answer")
    item = write(approval.request, approved, message, approval.tool)
    if not isinstance(item, Mapping) or not all(isinstance(key, str) for key in item):
        raise TypeError(f"approval_answer returned {type(item).__qualname__}, not an item")
    return dict(item)


def _readable(request: object) -> bool:
    """A request the loop can show and answer (codecs are not always type-checked)."""
    if not isinstance(request, HostedApprovalRequest):
        return False
    call_id: object = request.call_id
    name: object = request.name
    arguments: object = request.arguments
    return (
        isinstance(call_id, str)
        and bool(call_id)
        and isinstance(name, str)
        and (isinstance(arguments, Mapping))
    )


def _warn(tool: HostedTool[Any], what: str, code: str) -> None:
    _log.warning(
        "hosted tool %s: its %s codec %s (%s)",
        tool.name,
        tool.kind,
        what,
        code,
        extra={
            "affordance_hosted_tool": tool.name,
            "affordance_kind": tool.kind,
            "affordance_error_code": code,
        },
    )
