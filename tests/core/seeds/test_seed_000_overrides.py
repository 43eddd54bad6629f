"""Seed 000 on overrides: tools opt in by default (``accepts_overrides=True``), sections can
disable overrides while a contract stabilizes, and ``RenderedPrompt.tool_param_descriptions``
is sourced from the override system — on the seed's own example, import path changed only."""

from __future__ import annotations

import dataclasses
import runpy
from pathlib import Path
from typing import Any

import pytest

from affordance.prompt import MarkdownSection, Prompt
from affordance.prompt.overrides import OverrideWarning, seed_overrides

HERE = Path(__file__).parent


def seed_example() -> dict[str, Any]:
    return runpy.run_path(str(HERE / "seed_000_tooling.py"))


def test_tools_opt_in_by_default_and_their_param_descriptions_come_from_overrides() -> None:
    example = seed_example()
    prompt, lookup_tool = example["prompt"], example["lookup_tool"]
    assert lookup_tool.accepts_overrides is True

    seeded = seed_overrides(prompt)
    entry = seeded.tools["lookup_entity"]
    assert entry.params == {"entity_id": "Global identifier to fetch", "include_related": ""}
    tuned = dataclasses.replace(
        seeded,
        tools={
            "lookup_entity": dataclasses.replace(
                entry,
                params={
                    "entity_id": "The entity's global id, like ent-42",
                    "include_related": "Also fetch the entities it links to",
                },
            )
        },
    )
    rendered = prompt.render(overrides=tuned)

    assert rendered.tool_param_descriptions == {
        "lookup_entity": {
            "entity_id": "The entity's global id, like ent-42",
            "include_related": "Also fetch the entities it links to",
        }
    }
    assert example["rendered"].tool_param_descriptions == {
        "lookup_entity": {"entity_id": "Global identifier to fetch"}
    }


def test_a_section_disables_overrides_while_its_contract_stabilizes() -> None:
    example = seed_example()
    lookup_tool = example["lookup_tool"]
    prompt = Prompt(
        ns="examples/tooling",
        key="tools_overview",
        name="tools_overview",
        sections=[
            MarkdownSection(
                title="Guidance",
                template="Use tools when you need up-to-date context.",
                tools=[lookup_tool],
                accepts_overrides=False,
            )
        ],
    )
    written = seed_overrides(example["prompt"])  # written while the section accepted them
    with pytest.warns(OverrideWarning, match="accepts_overrides=False"):
        rendered = prompt.render(overrides=dataclasses.replace(written, target=None))

    assert rendered.tools == (lookup_tool,)
    assert {(s.name, s.reason) for s in rendered.skipped_overrides} == {
        ("guidance", "refused"),
        ("lookup_entity", "refused"),
    }
