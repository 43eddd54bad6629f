"""Render: one prompt of 20 sections, each with its own params dataclass and one tool.

affordance and weakincentives 0.27 build the same prompt (same titles, keys, template text and
tool names; about 12k characters) and render it with its params. Reported per render: the
render itself, and the render plus the provider tool declarations for all 20 tools
(affordance: the adapter's model's ``tool_declarations``; weakincentives: ``tool_to_spec``).
Building the prompt (first build in the process, so it includes any per-type caching) is
reported too.

    python bench/measures/render.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, make_dataclass
from typing import Any

from _harness import Sample, Skip, jobs_of, main, time_calls

FRAMEWORKS = ("affordance", "weakincentives")
JOBS = jobs_of(FRAMEWORKS)

SECTIONS = 20
TEMPLATE = "Topic: ${topic}\n\nDetail: ${detail}\n\n" + "Some static guidance text. " * 20


@dataclass(frozen=True, slots=True)
class LookupParams:
    query: str
    limit: int = 10


@dataclass(frozen=True, slots=True)
class LookupResult:
    answer: str

    def render(self) -> str:
        return self.answer


def section_params_types() -> list[type[Any]]:
    return [
        make_dataclass(f"S{i}Params", [("topic", str), ("detail", str)], frozen=True)
        for i in range(SECTIONS)
    ]


def affordance_prompt() -> tuple[Callable[[], Any], Callable[[Any], Any], Callable[[], Any]]:
    from affordance import MarkdownSection, PromptTemplate, Tool, ToolContext, ToolResult

    try:  # declarations in the OpenAI format, as weakincentives' tool_to_spec makes them
        from affordance_openai import OpenAIAdapter
    except ImportError as error:
        raise Skip(f"plugin not installed: {error}") from None

    def handler(params: LookupParams, *, context: ToolContext) -> ToolResult[LookupResult]:
        return ToolResult.ok(LookupResult(answer=params.query))

    def build() -> tuple[Any, list[Any]]:
        sections, params = [], []
        for i, params_type in enumerate(section_params_types()):
            tool = Tool[LookupParams, LookupResult](
                name=f"lookup_{i}", description=f"Look up facts for topic {i}.", handler=handler
            )
            sections.append(
                MarkdownSection[params_type](  # type: ignore[valid-type]
                    title=f"Section {i}", key=f"section-{i}", template=TEMPLATE, tools=[tool]
                )
            )
            params.append(params_type(topic=f"t{i}", detail=f"d{i}"))
        return PromptTemplate(name="bench-render", sections=sections), params

    started = time.perf_counter()
    prompt, params = build()
    build_s = time.perf_counter() - started
    adapter = OpenAIAdapter("bench", api="chat")  # no client: declaring sends nothing

    def render() -> Any:
        return prompt.render(*params)

    def declarations(rendered: Any) -> Any:
        return adapter.connection.tool_declarations(rendered.tools)

    return render, declarations, lambda: build_s


def weakincentives_prompt() -> tuple[Callable[[], Any], Callable[[Any], Any], Callable[[], Any]]:
    from weakincentives.adapters.tool_spec import tool_to_spec
    from weakincentives.prompt import (
        MarkdownSection,
        Prompt,
        PromptTemplate,
        Tool,
        ToolContext,
        ToolResult,
    )

    def handler(params: LookupParams, *, context: ToolContext) -> ToolResult[LookupResult]:
        return ToolResult.ok(LookupResult(answer=params.query))

    def build() -> Any:
        sections, params = [], []
        for i, params_type in enumerate(section_params_types()):
            tool = Tool[LookupParams, LookupResult](
                name=f"lookup_{i}", description=f"Look up facts for topic {i}.", handler=handler
            )
            sections.append(
                MarkdownSection[params_type](  # type: ignore[valid-type]
                    title=f"Section {i}", key=f"section-{i}", template=TEMPLATE, tools=[tool]
                )
            )
            params.append(params_type(topic=f"t{i}", detail=f"d{i}"))
        template = PromptTemplate(ns="bench", key="render", sections=sections)
        return Prompt(template).bind(*params)

    started = time.perf_counter()
    prompt = build()
    build_s = time.perf_counter() - started

    def declarations(rendered: Any) -> Any:
        return [tool_to_spec(tool) for tool in rendered.tools]

    return prompt.render, declarations, lambda: build_s


BUILDERS = {"affordance": affordance_prompt, "weakincentives": weakincentives_prompt}


def measure(framework: str, args: argparse.Namespace) -> Sample:
    try:
        render, declarations, build_seconds = BUILDERS[framework]()
    except ImportError as error:
        raise Skip(f"not installed: {error}") from None
    rendered = render()
    sample = Sample()
    sample.info["characters"] = len(rendered.text)
    sample.info["tools"] = len(rendered.tools)
    target, repeat = (0.05, 3) if args.quick else (0.1, 5)
    sample.add(
        "render",
        "render(): 20 sections, 20 tools",
        "µs",
        time_calls(render, target_s=target, repeat=repeat) * 1e6,
    )
    sample.add(
        "render_declarations",
        "render() + tool declarations for all 20 tools",
        "µs",
        time_calls(lambda: declarations(render()), target_s=target, repeat=repeat) * 1e6,
    )
    sample.add(
        "build", "build the 20-section prompt (first in process)", "ms", build_seconds() * 1e3
    )
    return sample


if __name__ == "__main__":
    main("render", measure, JOBS)
