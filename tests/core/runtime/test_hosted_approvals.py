"""Approvals a hosted tool's provider asks for (``affordance.tools.AsksForApproval``): the loop
suspends the run with them in ``pending_confirmations`` next to destructive local calls, and
resuming adds each answer — written by the tool's codec — to the turn's provider items, so the
next request carries it. Offline, with a codec of a kind no plugin registers."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import (
    ConfirmationRequired,
    HostedTool,
    MarkdownSection,
    PromptEvaluationError,
    PromptTemplate,
    Tool,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
)
from affordance.runtime import (
    ConfirmationRequested,
    ConfirmationResolved,
    EventBus,
    PendingConfirmation,
    approve,
    deny,
)
from affordance.runtime.model.messages import AssistantMessage, ToolResultMessage
from affordance.runtime.model.turn import ProviderTurn, Usage
from affordance.testing import ScriptedAdapter, text, tool_call
from affordance.tools import HostedApprovalRequest


@dataclass(frozen=True, slots=True)
class GatedConfig:
    server: str = "s1"


@dataclass(frozen=True, slots=True)
class GatedResult:
    ran: tuple[str, ...]


class GatedCodec:
    """A provider that runs ``gated_call`` items and holds ``gated_request`` ones."""

    kind = "gated"

    def serialize(self, tool: HostedTool[GatedConfig]) -> dict[str, Any]:
        return {"type": "gated"}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[GatedConfig]
    ) -> GatedResult | None:
        ran = tuple(i["id"] for i in response_items if i.get("type") == "gated_call")
        return GatedResult(ran) if ran else None

    def approval_requests(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[GatedConfig]
    ) -> list[HostedApprovalRequest]:
        return [
            HostedApprovalRequest(i["id"], i["name"], i["args"], i)
            for i in response_items
            if i.get("type") == "gated_request"
        ]

    def approval_answer(
        self,
        request: HostedApprovalRequest,
        approved: bool,
        message: str,
        tool: HostedTool[GatedConfig],
    ) -> dict[str, Any]:
        return {"type": "gated_answer", "id": request.call_id, "ok": approved, "why": message}


GATED = HostedTool(kind="gated", name="gated", description="Gated.", config=GatedConfig())
DELETED: list[str] = []


@dataclass(frozen=True, slots=True)
class NoParams:
    pass


def delete(params: NoParams) -> ToolResult[None]:
    DELETED.append("x")
    return ToolResult.ok(None, message="Deleted.")


def look(params: NoParams) -> ToolResult[None]:
    return ToolResult.ok(None, message="Looked.")


def prompt() -> PromptTemplate[Any]:
    tools: list[Tool[Any, Any]] = [
        Tool[NoParams, None](
            name="delete", description="Delete it.", handler=delete, destructive=True
        ),
        Tool[NoParams, None](name="look", description="Look.", handler=look),
    ]
    section = MarkdownSection(title="Task", template="Do it.", tools=tools, hosted_tools=[GATED])
    return PromptTemplate(name="gated", sections=[section])


def request_item(request_id: str = "r1") -> dict[str, Any]:
    return {"type": "gated_request", "id": request_id, "name": "wipe", "args": {"disk": "d1"}}


def asking(*items: Mapping[str, Any], calls: Sequence[Any] = ()) -> ProviderTurn:
    chosen = items or (request_item(),)
    return ProviderTurn(
        hosted_items=tuple(chosen),
        provider_items=tuple(chosen),
        tool_calls=tuple(calls),
        finish_reason="tool_calls" if calls else "stop",
    )


RAN = ProviderTurn(text="wiped", hosted_items=({"type": "gated_call", "id": "c1"},))
PENDING = PendingConfirmation("r1", "wipe", {"disk": "d1"}, {"disk": "d1"}, hosted_tool="gated")


def scripted(*steps: Any, codec: Any = None) -> ScriptedAdapter:
    return ScriptedAdapter(list(steps), codecs={"gated": codec or GatedCodec()})


def test_an_approval_request_suspends_the_run_with_it_pending() -> None:
    adapter = scripted(asking())
    bus = EventBus()
    requested: list[ConfirmationRequested] = []
    bus.subscribe(ConfirmationRequested, requested.append)

    response = adapter.evaluate(prompt(), bus=bus)

    assert response.pending_confirmations == (PENDING,)
    assert response.finish_reason == "confirmation_required"
    assert response.session.pending_call_ids() == ("r1",)
    assert [(e.call_id, e.name, e.params) for e in requested] == [("r1", "wipe", {"disk": "d1"})]


def test_an_approval_goes_into_the_turns_provider_items_on_the_next_request() -> None:
    asked = prompt()
    adapter = scripted(asking(), RAN)
    bus = EventBus()
    resolved: list[ConfirmationResolved] = []
    bus.subscribe(ConfirmationResolved, resolved.append)

    first = adapter.evaluate(asked)
    second = adapter.evaluate(
        asked, session=first.session, bus=bus, confirmations={"r1": approve()}
    )

    assert second.text == "wiped"
    assert second.hosted_outputs == {"gated": GatedResult(("c1",))}
    turn = adapter.requests[1].messages[-1]
    assert isinstance(turn, AssistantMessage)
    assert list(turn.provider_items) == [
        request_item(),
        {"type": "gated_answer", "id": "r1", "ok": True, "why": ""},
    ]
    assert [(e.call_id, e.approved) for e in resolved] == [("r1", True)]
    assert first.session.pending_call_ids() == ()


def test_a_denial_is_answered_with_its_message_and_runs_nothing_locally() -> None:
    asked = prompt()
    adapter = scripted(asking(), text("not wiped"))
    first = adapter.evaluate(asked)
    second = adapter.evaluate(asked, session=first.session, confirmations={"r1": deny("no")})

    assert second.text == "not wiped"
    assert second.tool_results == ()
    turn = adapter.requests[1].messages[-1]
    assert isinstance(turn, AssistantMessage)
    assert turn.provider_items[-1] == {"type": "gated_answer", "id": "r1", "ok": False, "why": "no"}


def test_a_hosted_approval_and_a_destructive_call_wait_together() -> None:
    asked = prompt()
    DELETED.clear()
    delete_call = tool_call("delete", {}, call_id="del")
    adapter = scripted(asking(calls=[delete_call]), text("done"))

    first = adapter.evaluate(asked)
    assert [p.call_id for p in first.pending_confirmations] == ["del", "r1"]
    assert [p.hosted_tool for p in first.pending_confirmations] == [None, "gated"]
    with pytest.raises(PromptEvaluationError, match="no answer for pending calls: r1"):
        adapter.evaluate(asked, session=first.session, confirmations={"del": approve()})
    second = adapter.evaluate(
        asked, session=first.session, confirmations={"del": approve(), "r1": deny()}
    )

    assert second.text == "done"
    assert DELETED == ["x"]
    sent = adapter.requests[1].messages
    assert isinstance(sent[-2], AssistantMessage)
    assert sent[-2].provider_items[-1]["ok"] is False
    assert isinstance(sent[-1], ToolResultMessage)
    assert sent[-1].call_id == "del"


def test_a_call_that_needs_no_approval_runs_before_the_run_waits() -> None:
    asked = prompt()
    adapter = scripted(asking(calls=[tool_call("look", {}, call_id="l1")]), text("done"))

    first = adapter.evaluate(asked)
    assert [p.call_id for p in first.pending_confirmations] == ["r1"]
    assert [r.name for r in first.tool_results] == []  # recorded once the turn closes
    second = adapter.evaluate(asked, session=first.session, confirmations={"r1": approve()})

    assert [r.call.id for r in second.tool_results] == ["l1"]
    assert isinstance(adapter.requests[1].messages[-1], ToolResultMessage)


def test_an_approval_id_shared_with_a_function_call_is_refused() -> None:
    adapter = scripted(asking(calls=[tool_call("look", {}, call_id="r1")]))

    with pytest.raises(PromptEvaluationError, match="more than one call or approval") as raised:
        adapter.evaluate(prompt())
    assert raised.value.phase == "response"


class Raising(GatedCodec):
    def approval_requests(self, response_items: Any, tool: Any) -> list[HostedApprovalRequest]:
        raise RuntimeError("secret-detail")


class Garbage(GatedCodec):
    def approval_requests(self, response_items: Any, tool: Any) -> Any:
        return [{"call_id": "r1"}]


@pytest.mark.parametrize(
    ("codec", "code"), [(Raising(), "RuntimeError"), (Garbage(), "wrong type")]
)
def test_a_codec_that_cannot_read_approvals_loses_them_with_a_warning(
    codec: GatedCodec, code: str, caplog: pytest.LogCaptureFixture
) -> None:
    adapter = scripted(ProviderTurn(text="answer", hosted_items=(request_item(),)), codec=codec)
    with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
        response = adapter.evaluate(prompt())

    assert response.text == "answer"
    assert response.pending_confirmations == ()
    (record,) = [r for r in caplog.records if r.name == "affordance.hosted"]
    assert record.affordance_error_code == code  # type: ignore[attr-defined]
    assert "secret-detail" not in record.getMessage()


class CannotAnswer(GatedCodec):
    def approval_answer(self, request: Any, approved: bool, message: str, tool: Any) -> Any:
        return "approved"


def test_a_codec_that_cannot_write_the_answer_leaves_the_run_waiting() -> None:
    asked = prompt()
    adapter = scripted(asking(), RAN, codec=CannotAnswer())
    first = adapter.evaluate(asked)

    with pytest.raises(PromptEvaluationError, match="failed to write the answer") as raised:
        adapter.evaluate(asked, session=first.session, confirmations={"r1": approve()})

    assert raised.value.phase == "confirm"
    assert first.session.pending_call_ids() == ("r1",)
    assert adapter.sent == 1


def test_a_codec_without_approvals_never_suspends() -> None:
    class Plain(GatedCodec):
        approval_requests = None  # type: ignore[assignment]

    adapter = scripted(ProviderTurn(text="answer", hosted_items=(request_item(),)), codec=Plain())

    assert adapter.evaluate(prompt()).pending_confirmations == ()


def test_streamed_and_async_runs_wait_and_resume_alike() -> None:
    asked = prompt()
    adapter = scripted(asking(), RAN, asking(), RAN)
    with adapter.stream(asked) as events:
        required = [e for e in events if isinstance(e, ConfirmationRequired)]
    first = events.response
    assert first is not None
    with adapter.stream(asked, session=first.session, confirmations={"r1": approve()}) as events:
        for _ in events:
            pass

    async def run() -> tuple[Any, Any]:
        waiting = await adapter.aevaluate(asked)
        done = await adapter.aevaluate(
            asked, session=waiting.session, confirmations={"r1": approve()}
        )
        return waiting, done

    waiting, done = asyncio.run(run())

    assert required == [ConfirmationRequired("r1", "wipe", {"disk": "d1"})]
    assert first.pending_confirmations == waiting.pending_confirmations == (PENDING,)
    assert events.response is not None
    assert events.response.hosted_outputs == done.hosted_outputs == {"gated": GatedResult(("c1",))}


def test_a_run_waiting_for_an_approval_stays_held_to_its_token_limits() -> None:
    asked = prompt()
    adapter = scripted(dataclasses.replace(asking(), usage=Usage(10, 5)), RAN)
    first = adapter.evaluate(asked, limits=UsageLimits(input_tokens=19))
    assert first.finish_reason == "confirmation_required"
    # approved without new limits: the next request would read at least 10 more input tokens
    with pytest.raises(UsageLimitExceeded) as info:
        adapter.evaluate(asked, session=first.session, confirmations={"r1": approve()})
    assert (info.value.limit, info.value.reached, adapter.sent) == ("input_tokens", 20, 1)
