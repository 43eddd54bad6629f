"""``overrides=`` on the four entry points: the model is sent the overridden texts on every
request (after ``open_sections`` too), the overridden tools run as the originals do, and each
skipped override is an ``OverrideSkipped`` event the session keeps."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest
from drivers import DRIVERS, run
from entity_tools import make_prompt

from affordance import (
    EventBus,
    FileOverridesStore,
    MarkdownSection,
    OverrideSkipped,
    PromptTemplate,
    SectionVisibility,
    Session,
)
from affordance.adapters import UserMessage
from affordance.prompt.overrides import OverrideWarning, SectionOverride, seed_overrides
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


def tuned_store(tmp_path: Path, prompt: PromptTemplate[object]) -> FileOverridesStore:
    seeded = seed_overrides(prompt)
    store = FileOverridesStore(tmp_path)
    store.save(
        dataclasses.replace(
            seeded,
            sections={
                "task": dataclasses.replace(
                    seeded.sections["task"], template="Manage entities carefully."
                )
            },
            tools={
                **seeded.tools,
                "lookup": dataclasses.replace(
                    seeded.tools["lookup"],
                    description="Find an entity by id.",
                    params={"entity_id": "The entity's id, like e-42"},
                ),
            },
        )
    )
    return store


@pytest.mark.parametrize("driver", DRIVERS)
def test_every_request_carries_the_overridden_texts(driver: str, tmp_path: Path) -> None:
    prompt = make_prompt()
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("lookup", {"entity_id": "e-1"})), text("Found it.")]
    )
    response, _ = run(adapter, prompt, driver, overrides=tuned_store(tmp_path, prompt))

    assert response.text == "Found it."
    assert response.tool_results[0].result.success  # the overridden tool runs its handler
    for request in adapter.requests:
        opening = request.messages[0]
        assert isinstance(opening, UserMessage)
        assert opening.text == "## 1 Task\nManage entities carefully."
        lookup = next(t for t in request.tools if t.name == "lookup")
        assert lookup.description == "Find an entity by id."
        schema = lookup.parameters_schema()
        assert schema["properties"]["entity_id"]["description"] == "The entity's id, like e-42"


@pytest.mark.parametrize("driver", DRIVERS)
def test_each_skipped_override_is_an_event_the_session_keeps(driver: str) -> None:
    prompt = make_prompt()
    seeded = seed_overrides(prompt)
    stale = dataclasses.replace(
        seeded,
        sections={"task": SectionOverride("sha256:written-for-older-text", template="Old.")},
    )
    bus, seen = EventBus(), []
    bus.subscribe(OverrideSkipped, seen.append)
    session = Session()
    adapter = ScriptedAdapter([text("Done.")])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OverrideWarning)
        response, _ = run(adapter, prompt, driver, overrides=stale, bus=bus, session=session)

    (event,) = session.slice(OverrideSkipped)
    assert seen == [event]
    assert (event.run_id, event.skipped.name, event.skipped.reason) == (
        response.run_id,
        "task",
        "stale",
    )
    opening = adapter.requests[0].messages[0]
    assert isinstance(opening, UserMessage)
    assert opening.text == "## 1 Task\nManage entities."


def test_a_section_opened_during_the_run_shows_its_overridden_body() -> None:
    prompt = PromptTemplate(
        key="rules",
        sections=[
            MarkdownSection(title="Intro", template="Answer questions."),
            MarkdownSection(
                title="Refunds",
                template="Refunds within 30 days.",
                visibility=SectionVisibility.SUMMARY,
                summary="Refund rules.",
            ),
        ],
    )
    seeded = seed_overrides(prompt)
    overrides = dataclasses.replace(
        seeded,
        sections={
            **seeded.sections,
            "refunds": dataclasses.replace(
                seeded.sections["refunds"],
                template="Refunds within 14 days, receipt required.",
                summary="When refunds are allowed.",
            ),
        },
    )
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": ["refunds"], "reason": "q"})),
            text("14 days."),
        ]
    )
    adapter.evaluate(prompt, overrides=overrides)

    first, second = (request.messages[0] for request in adapter.requests)
    assert isinstance(first, UserMessage)
    assert isinstance(second, UserMessage)
    assert "When refunds are allowed." in first.text
    assert "Refunds within 14 days, receipt required." in second.text
