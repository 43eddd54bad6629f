"""ToolSweepAdapter: every exposed tool is called once with schema-valid arguments."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime

import pytest

from affordance import MarkdownSection, PromptTemplate, Section, SectionVisibility, Tool, ToolResult
from affordance.serde import parse, schema
from affordance.testing import ToolSweepAdapter, sample_from_schema


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Window:
    start: date
    end: datetime | None = None


@dataclass(frozen=True)
class Everything:
    title: str = field(metadata={"min_length": 12, "max_length": 20})
    count: int = field(metadata={"ge": 3})
    ratio: float
    flag: bool
    color: Color
    tags: tuple[str, ...] = field(metadata={"min_length": 2})
    window: Window
    pair: tuple[int, str]
    extra: dict[str, int] = field(default_factory=dict)
    note: str | None = None


@pytest.mark.parametrize("kind", [Everything, Window])
def test_samples_from_serde_schemas_parse_back(kind):
    value = parse(kind, sample_from_schema(schema(kind)))
    assert isinstance(value, kind)


def test_sample_respects_constraints():
    sample = sample_from_schema(schema(Everything))
    assert len(sample["title"]) == 12
    assert sample["count"] == 3
    assert len(sample["tags"]) == 2
    assert sample["color"] == "red"


def test_every_exposed_tool_is_called_once_and_results_are_listed():
    calls: list[str] = []

    def handler(name: str):
        def run(params: Everything) -> ToolResult[None]:
            calls.append(name)
            if name == "b":
                raise RuntimeError("broken")
            return ToolResult.ok(None)

        return run

    tools = [
        Tool[Everything, None](name=n, description=f"Tool {n}.", handler=handler(n))
        for n in ("a", "b")
    ]
    hidden = Tool[Everything, None](name="hidden", description="Hidden.", handler=handler("c"))
    prompt = PromptTemplate(
        sections=[
            Section(title="Tools", tools=tools),
            MarkdownSection(
                title="More",
                template="more",
                summary="summary",
                visibility=SectionVisibility.SUMMARY,
                tools=[hidden],
            ),
        ]
    )
    response = ToolSweepAdapter().evaluate(prompt)
    assert calls == ["a", "b"]
    assert response.text == "a: ok\nb: failed"


def test_structured_output_is_generated_from_the_output_schema():
    prompt = PromptTemplate[Window](sections=[Section(title="Plan")])
    response = ToolSweepAdapter().evaluate(prompt)
    assert response.output == Window(date(2026, 1, 1))
