"""Many concurrent evaluations share one adapter without sharing state."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from entity_tools import Entity, make_prompt

from affordance.adapters import ModelRequest, ToolResultMessage
from affordance.prompt import MarkdownSection, PromptTemplate
from affordance.runtime import EventBus, Session, ToolInvoked
from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Who:
    name: str


def responder(request: ModelRequest) -> ProviderTurn:
    """Look up the entity named in the prompt, then answer with what the tool returned."""
    results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
    if not results:
        name = request.messages[0].text.rsplit(" ", 1)[-1]  # type: ignore[union-attr]
        return tool_calls(tool_call("lookup", {"entity_id": name}, call_id=f"call-{name}"))
    payload = json.loads(results[-1].content.split("\n", 1)[1])
    return text(f"answer for {payload['entity_id']}")


def test_a_thousand_concurrent_evaluations_keep_their_events_and_results_apart():
    base = make_prompt()
    prompt = PromptTemplate(
        name="who",
        sections=[
            *base.sections,
            MarkdownSection[Who](title="Who", template="Look up ${name}"),
        ],
    )
    adapter = ScriptedAdapter(responder=responder)

    async def one(index: int) -> tuple[str, Session, list[ToolInvoked], object]:
        name = f"e{index}"
        bus = EventBus()
        events: list[ToolInvoked] = []
        bus.subscribe(ToolInvoked, events.append)
        session = Session()
        response = await adapter.aevaluate(prompt, Who(name), session=session, bus=bus)
        return name, session, events, response

    async def main() -> list[tuple[str, Session, list[ToolInvoked], object]]:
        return await asyncio.gather(*(one(i) for i in range(1000)))

    outcomes = asyncio.run(main())
    run_ids = set()
    for name, session, events, response in outcomes:
        assert response.text == f"answer for {name}"  # type: ignore[attr-defined]
        assert [e.result.value for e in events] == [Entity(name, f"https://e/{name}")]
        assert [e.call_id for e in session.slice(ToolInvoked)] == [f"call-{name}"]
        assert {e.run_id for e in events} == {response.run_id}  # type: ignore[attr-defined]
        run_ids.add(response.run_id)  # type: ignore[attr-defined]
    assert len(run_ids) == 1000
    assert len(adapter.requests) == 2000
