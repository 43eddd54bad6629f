"""``prompt.render(overrides=...)``: what an override changes, what it may not, and what a
stale, unknown or invalid one does (it is skipped, reported and warned of — never applied)."""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field
from typing import Any

import pytest

from affordance import (
    MarkdownSection,
    OverridesError,
    PromptOverrides,
    PromptTemplate,
    Section,
    SectionVisibility,
    Tool,
    ToolExample,
)
from affordance.prompt.overrides import (
    OverrideWarning,
    SectionOverride,
    ToolOverride,
    seed_overrides,
)
from affordance.prompt.overrides.originals import section_hash, tool_hash


@dataclass(frozen=True)
class LookupParams:
    entity_id: str = field(metadata={"description": "Global identifier to fetch"})
    include_related: bool = False


@dataclass(frozen=True)
class Who:
    user: str = "ada"


LOOKUP = Tool[LookupParams, str](
    name="lookup",
    description="Fetch an entity.",
    examples=(ToolExample("Fetch one", LookupParams("e-1"), "found"),),
)
FROZEN = Tool[LookupParams, str](
    name="frozen", description="A stable contract.", accepts_overrides=False
)
INNER_TOOL = Tool[LookupParams, str](name="inner_tool", description="Inside a locked section.")


def make_prompt(intro: str = "You help ${user}.") -> PromptTemplate[Any]:
    return PromptTemplate(
        ns="tests",
        key="support",
        sections=[
            MarkdownSection[Who](title="Intro", template=intro, tools=[LOOKUP, FROZEN]),
            MarkdownSection(
                title="Policies",
                template="Refunds within 30 days.",
                visibility=SectionVisibility.SUMMARY,
                summary="Refund rules.",
            ),
            Section(
                title="Locked",
                accepts_overrides=False,
                children=[
                    MarkdownSection(title="Inner", template="Inner text.", tools=[INNER_TOOL])
                ],
            ),
        ],
    )


def edited(prompt: PromptTemplate[Any], **changes: Any) -> PromptOverrides:
    """The prompt's seeded overrides with ``sections``/``tools`` entries replaced."""
    seeded = seed_overrides(prompt)
    return dataclasses.replace(
        seeded,
        sections={**seeded.sections, **changes.get("sections", {})},
        tools={**seeded.tools, **changes.get("tools", {})},
    )


def test_a_seeded_document_changes_nothing_and_skips_nothing() -> None:
    prompt = make_prompt()
    plain = prompt.render()
    rendered = prompt.render(overrides=seed_overrides(prompt))

    assert rendered.text == plain.text
    assert [t.description for t in rendered.tools] == [t.description for t in plain.tools]
    assert rendered.skipped_overrides == ()
    assert rendered.tools[:2] == (LOOKUP, FROZEN)  # the very objects: nothing to change
    # what overrides may change: not the locked subtree, not the frozen tool
    assert set(seed_overrides(prompt).sections) == {"intro", "policies"}
    assert set(seed_overrides(prompt).tools) == {"lookup"}


def test_section_templates_summaries_and_tool_texts_are_replaced() -> None:
    prompt = make_prompt()
    intro, policies = prompt.section("intro"), prompt.section("policies")
    assert intro is not None
    assert policies is not None
    overrides = edited(
        prompt,
        sections={
            "intro": SectionOverride(section_hash(intro), template="Be brief with ${user}."),
            "policies": SectionOverride(section_hash(policies), summary="How refunds work."),
        },
        tools={
            "lookup": ToolOverride(
                tool_hash(LOOKUP),
                description="Look an entity up by its id.",
                params={"entity_id": "The id, e.g. e-42", "include_related": ""},
                examples=({"description": "Two", "input": {"entity_id": "e-2"}, "output": "x"},),
            )
        },
    )
    rendered = prompt.render(Who("grace"), overrides=overrides)

    assert "Be brief with grace." in rendered.text
    assert "How refunds work." in rendered.text
    assert "Refund rules." not in rendered.text
    lookup = rendered.tool("lookup")
    assert lookup is not None
    assert lookup is not LOOKUP
    assert lookup.description == "Look an entity up by its id."
    assert lookup.handler is LOOKUP.handler
    assert lookup.params_type is LookupParams
    assert lookup.examples == (ToolExample("Two", LookupParams("e-2"), "x"),)
    properties = lookup.parameters_schema()["properties"]
    assert properties["entity_id"]["description"] == "The id, e.g. e-42"
    assert "description" not in properties["include_related"]  # an empty text keeps none
    # the seed's tool_param_descriptions: what the model is told, overrides included
    assert rendered.tool_param_descriptions["lookup"] == {"entity_id": "The id, e.g. e-42"}
    # the original tool and the cached schema of its params type are untouched
    assert LOOKUP.description == "Fetch an entity."
    assert LOOKUP.parameters_schema()["properties"]["entity_id"]["description"] == (
        "Global identifier to fetch"
    )


def test_accepts_overrides_false_keeps_a_tool_and_a_sections_subtree_unchanged() -> None:
    prompt = make_prompt()
    inner = prompt.section("locked.inner")
    assert inner is not None
    overrides = edited(
        prompt,
        sections={"locked.inner": SectionOverride(section_hash(inner), template="Changed.")},
        tools={
            "frozen": ToolOverride(tool_hash(FROZEN), description="Changed."),
            "inner_tool": ToolOverride(tool_hash(INNER_TOOL), description="Changed."),
        },
    )
    with pytest.warns(OverrideWarning):
        rendered = prompt.render(overrides=overrides)

    assert "Inner text." in rendered.text
    assert "Changed." not in rendered.text
    assert rendered.tool("frozen") is FROZEN
    assert rendered.tool("inner_tool") is INNER_TOOL
    assert {(s.kind, s.name, s.reason) for s in rendered.skipped_overrides} == {
        ("section", "locked.inner", "refused"),
        ("tool", "frozen", "refused"),
        ("tool", "inner_tool", "refused"),
    }


def test_open_sections_is_never_changed() -> None:
    prompt = make_prompt()
    overrides = edited(
        prompt, tools={"open_sections": ToolOverride("sha256:any", description="Changed.")}
    )
    with pytest.warns(OverrideWarning, match="open_sections"):
        rendered = prompt.render(overrides=overrides)

    opener = rendered.tool("open_sections")
    assert opener is not None
    assert opener.description != "Changed."
    assert [(s.name, s.reason) for s in rendered.skipped_overrides] == [
        ("open_sections", "unknown")
    ]


def test_a_stale_override_is_reported_and_not_applied() -> None:
    written_for = make_prompt("You help ${user}.")
    overrides = edited(
        written_for,
        sections={
            "intro": dataclasses.replace(
                seed_overrides(written_for).sections["intro"], template="Old advice for ${user}."
            )
        },
    )
    changed = make_prompt("You help ${user}, politely.")  # the code moved on

    with pytest.warns(OverrideWarning, match=r"section 'intro' \(stale\)"):
        rendered = changed.render(overrides=overrides)

    assert "You help ada, politely." in rendered.text
    assert "Old advice" not in rendered.text
    (skipped,) = rendered.skipped_overrides
    assert (skipped.kind, skipped.name, skipped.reason) == ("section", "intro", "stale")
    assert "written against sha256:" in skipped.detail


def test_a_tool_whose_params_changed_makes_its_override_stale() -> None:
    @dataclass(frozen=True)
    class Wider:
        entity_id: str = field(metadata={"description": "Global identifier to fetch"})
        include_related: bool = False
        depth: int = 1

    prompt = make_prompt()
    overrides = edited(
        prompt, tools={"lookup": ToolOverride(tool_hash(LOOKUP), description="New words.")}
    )
    widened = Tool[Wider, str](name="lookup", description="Fetch an entity.")
    assert tool_hash(widened) != tool_hash(LOOKUP)
    moved_on = PromptTemplate(
        ns="tests",
        key="support",
        sections=[MarkdownSection(title="Intro", template="Hi.", tools=[widened])],
    )
    with pytest.warns(OverrideWarning):
        rendered = moved_on.render(overrides=overrides)
    assert rendered.tool("lookup") is widened
    assert ("lookup", "stale") in {(s.name, s.reason) for s in rendered.skipped_overrides}


@pytest.mark.parametrize(
    ("changes", "name", "says"),
    [
        ({"sections": {"intro": "Hello ${nobody}."}}, "intro", "not a field"),
        ({"sections": {"policies": "Hello $."}}, "policies", "must start a placeholder"),
        ({"tools": {"description": "x" * 300}}, "lookup", "description"),
        ({"tools": {"params": {"nope": "?"}}}, "lookup", "no parameter named 'nope'"),
        (
            {"tools": {"examples": ({"description": "d", "input": {"entity_id": 3}},)}},
            "lookup",
            "example 0",
        ),
    ],
)
def test_an_invalid_override_is_skipped_with_the_reason(
    changes: dict[str, Any], name: str, says: str
) -> None:
    prompt = make_prompt()
    seeded = seed_overrides(prompt)
    sections = dict(seeded.sections)
    for key, template in changes.get("sections", {}).items():
        sections[key] = dataclasses.replace(sections[key], template=template)
    tools = dict(seeded.tools)
    if "tools" in changes:
        tools["lookup"] = dataclasses.replace(tools["lookup"], **changes["tools"])
    with pytest.warns(OverrideWarning):
        rendered = prompt.render(
            overrides=dataclasses.replace(seeded, sections=sections, tools=tools)
        )

    (skipped,) = rendered.skipped_overrides
    assert (skipped.name, skipped.reason) == (name, "invalid")
    assert says in skipped.detail
    assert rendered.text == prompt.render().text
    assert rendered.tool("lookup") is LOOKUP


def test_an_unknown_section_or_tool_is_reported() -> None:
    prompt = make_prompt()
    overrides = edited(
        prompt,
        sections={"gone": SectionOverride("sha256:x", template="?")},
        tools={"removed": ToolOverride("sha256:x", description="?")},
    )
    with pytest.warns(OverrideWarning):
        rendered = prompt.render(overrides=overrides)
    assert {(s.kind, s.name, s.reason) for s in rendered.skipped_overrides} == {
        ("section", "gone", "unknown"),
        ("tool", "removed", "unknown"),
    }


def test_overridden_tools_are_the_same_objects_from_render_to_render() -> None:
    """What keeps the adapters' declaration caches (keyed by tool identity) warm."""
    prompt = make_prompt()
    overrides = edited(
        prompt, tools={"lookup": ToolOverride(tool_hash(LOOKUP), description="Other words.")}
    )
    first = prompt.render(overrides=overrides).tool("lookup")
    second = prompt.render(Who("bob"), overrides=overrides).tool("lookup")
    assert first is second
    assert first is not LOOKUP


def test_warnings_come_once_per_document_not_per_render() -> None:
    prompt = make_prompt()
    overrides = edited(prompt, tools={"removed": ToolOverride("sha256:x", description="?")})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            prompt.render(overrides=overrides)
    assert len([w for w in caught if issubclass(w.category, OverrideWarning)]) == 1


def test_overrides_for_another_prompt_are_refused() -> None:
    other = PromptTemplate(key="other", sections=[MarkdownSection(title="A", template="a")])
    with pytest.raises(OverridesError, match="for prompt 'other'"):
        make_prompt().render(overrides=seed_overrides(other))
