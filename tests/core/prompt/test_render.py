"""Rendering: headings numbered by depth, params matched by type, disabled sections dropped."""

from dataclasses import dataclass

import pytest

from affordance import (
    MarkdownSection,
    PromptRenderError,
    PromptTemplate,
    Section,
    Tool,
    ToolResult,
)


@dataclass
class TaskParams:
    objective: str


@dataclass
class StyleParams:
    tone: str = "plain"


@dataclass
class Empty:
    pass


def a_tool(name: str) -> Tool[Empty, None]:
    return Tool[Empty, None](
        name=name, description=f"Tool {name}.", handler=lambda params: ToolResult.ok(None)
    )


def test_headings_are_numbered_by_depth():
    prompt = PromptTemplate(
        sections=[
            Section(
                title="Outer",
                children=[
                    MarkdownSection(title="First", template="one"),
                    MarkdownSection(
                        title="Second",
                        template="two",
                        children=[MarkdownSection(title="Deep", template="three")],
                    ),
                ],
            ),
            MarkdownSection(title="Last", template="four"),
        ]
    )
    assert prompt.render().text == (
        "## 1 Outer\n\n"
        "### 1.1 First\none\n\n"
        "### 1.2 Second\ntwo\n\n"
        "#### 1.2.1 Deep\nthree\n\n"
        "## 2 Last\nfour"
    )


def test_params_are_matched_to_sections_by_type():
    prompt = PromptTemplate(
        sections=[
            MarkdownSection[TaskParams](title="Task", template="Do: ${objective}"),
            MarkdownSection[StyleParams](title="Style", template="Tone: $tone"),
        ]
    )
    text = prompt.render(StyleParams("warm"), TaskParams("ship it")).text
    assert text == "## 1 Task\nDo: ship it\n\n## 2 Style\nTone: warm"


def test_params_fall_back_to_default_params_then_field_defaults():
    prompt = PromptTemplate(
        sections=[
            MarkdownSection(
                title="Task", template="Do: ${objective}", default_params=TaskParams("default")
            ),
            MarkdownSection[StyleParams](title="Style", template="Tone: $tone"),
        ]
    )
    assert prompt.render().text == "## 1 Task\nDo: default\n\n## 2 Style\nTone: plain"


def test_missing_required_params_is_a_render_error_naming_section_and_fields():
    prompt = PromptTemplate(
        sections=[
            Section(
                title="Outer",
                children=[MarkdownSection[TaskParams](title="Task", template="${objective}")],
            )
        ]
    )
    with pytest.raises(PromptRenderError, match="objective") as info:
        prompt.render()
    assert info.value.section_path == ("outer", "task")
    assert info.value.dataclass is TaskParams


def test_params_no_section_takes_are_refused():
    prompt = PromptTemplate(sections=[MarkdownSection(title="A", template="a")])
    with pytest.raises(PromptRenderError, match="TaskParams"):
        prompt.render(TaskParams("x"))


def test_params_of_one_type_given_twice_are_refused():
    prompt = PromptTemplate(
        sections=[MarkdownSection[TaskParams](title="Task", template="${objective}")]
    )
    with pytest.raises(PromptRenderError, match="twice"):
        prompt.render(TaskParams("a"), TaskParams("b"))


def test_disabled_sections_contribute_neither_text_nor_tools_nor_numbers():
    prompt = PromptTemplate(
        sections=[
            MarkdownSection(
                title="Hidden",
                template="secret",
                enabled=lambda: False,
                tools=[a_tool("hidden_tool")],
                children=[MarkdownSection(title="Child", template="c", tools=[a_tool("child")])],
            ),
            MarkdownSection(title="Shown", template="visible", tools=[a_tool("shown_tool")]),
        ]
    )
    rendered = prompt.render()
    assert rendered.text == "## 1 Shown\nvisible"
    assert [t.name for t in rendered.tools] == ["shown_tool"]


def test_enabled_predicate_receives_the_sections_params():
    prompt = PromptTemplate(
        sections=[
            MarkdownSection[StyleParams](
                title="Style", template="$tone", enabled=lambda p: p.tone != "off"
            )
        ]
    )
    assert prompt.render(StyleParams("on")).text == "## 1 Style\non"
    assert prompt.render(StyleParams("off")).text == ""


def test_tools_are_exposed_depth_first_in_declaration_order():
    prompt = PromptTemplate(
        sections=[
            Section(
                title="A",
                tools=[a_tool("a1")],
                children=[Section(title="B", tools=[a_tool("b1"), a_tool("b2")])],
            ),
            Section(title="C", tools=[a_tool("c1")]),
        ]
    )
    assert [t.name for t in prompt.render().tools] == ["a1", "b1", "b2", "c1"]
    assert [t.name for t in prompt.tools()] == ["a1", "b1", "b2", "c1"]


def test_tool_param_descriptions_are_exposed_per_tool():
    from dataclasses import field

    @dataclass
    class Lookup:
        entity_id: str = field(metadata={"description": "Global identifier"})

    tool = Tool[Lookup, None](name="lookup", description="Look up.")
    rendered = PromptTemplate(sections=[Section(title="S", tools=[tool])]).render()
    assert rendered.tool_param_descriptions == {"lookup": {"entity_id": "Global identifier"}}
    assert rendered.tool("lookup") is tool
    assert rendered.tool("missing") is None


def test_templates_are_dedented_and_dollars_can_be_escaped():
    prompt = PromptTemplate(
        sections=[
            MarkdownSection[TaskParams](
                title="Task",
                template="""
                    Objective: $objective
                      - costs $$5
                """,
            )
        ]
    )
    assert prompt.render(TaskParams("x")).text == "## 1 Task\nObjective: x\n  - costs $5"


def test_untyped_section_with_placeholders_fails_at_render_with_a_fix():
    prompt = PromptTemplate(sections=[MarkdownSection(title="Task", template="Q: $question")])
    with pytest.raises(PromptRenderError, match=r"MarkdownSection\[Params\]") as info:
        prompt.render()
    assert info.value.section_path == ("task",)


def test_prompt_and_prompt_template_are_the_same_class():
    from affordance import Prompt

    assert Prompt is PromptTemplate


def test_output_type_comes_from_the_type_argument():
    prompt = PromptTemplate[TaskParams](sections=[Section(title="A")])
    assert prompt.output_type is TaskParams
    assert prompt.render().output_type is TaskParams


def test_names_default_sensibly():
    assert PromptTemplate(sections=[]).name == "prompt"
    only_key = PromptTemplate(key="lookup", sections=[])
    assert (only_key.name, only_key.key) == ("lookup", "lookup")
    only_name = PromptTemplate(name="overview", sections=[])
    assert (only_name.name, only_name.key) == ("overview", "overview")
