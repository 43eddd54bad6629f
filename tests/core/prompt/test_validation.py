"""Prompt construction refuses ambiguous or broken trees with located errors."""

from dataclasses import dataclass

import pytest

from affordance import (
    HostedTool,
    MarkdownSection,
    PromptTemplate,
    PromptValidationError,
    Section,
    SectionVisibility,
    Tool,
)


@dataclass
class Params:
    name: str


@dataclass(frozen=True)
class Config:
    level: int = 1


def tool(name: str) -> Tool[Params, None]:
    return Tool[Params, None](name=name, description="A tool.")


def test_duplicate_tool_names_anywhere_in_the_tree_are_refused():
    with pytest.raises(PromptValidationError, match="duplicate tool name 'dup'") as info:
        PromptTemplate(
            sections=[
                Section(title="A", tools=[tool("dup")]),
                Section(title="B", children=[Section(title="C", tools=[tool("dup")])]),
            ]
        )
    assert info.value.section_path == ("b", "c")
    assert info.value.tool_name == "dup"


def test_duplicate_names_within_one_section_are_refused():
    with pytest.raises(PromptValidationError, match="duplicate"):
        PromptTemplate(sections=[Section(title="A", tools=[tool("x"), tool("x")])])


def test_tools_and_hosted_tools_share_one_namespace():
    hosted = HostedTool(kind="web_search", name="search", description="Search.", config=Config())
    with pytest.raises(PromptValidationError, match="duplicate"):
        PromptTemplate(
            sections=[
                Section(title="A", tools=[tool("search")]),
                Section(title="B", hosted_tools=[hosted]),
            ]
        )


def test_disabled_sections_still_count_for_uniqueness():
    with pytest.raises(PromptValidationError, match="duplicate"):
        PromptTemplate(
            sections=[
                Section(title="A", tools=[tool("x")], enabled=lambda: False),
                Section(title="B", tools=[tool("x")]),
            ]
        )


def test_open_sections_is_a_reserved_name():
    with pytest.raises(PromptValidationError, match="reserved"):
        PromptTemplate(sections=[Section(title="A", tools=[tool("open_sections")])])


def test_sibling_keys_must_be_unique():
    with pytest.raises(PromptValidationError, match="sibling"):
        PromptTemplate(sections=[Section(title="Notes"), Section(title="notes")])


def test_same_key_under_different_parents_is_fine():
    prompt = PromptTemplate(
        sections=[
            Section(title="A", children=[Section(title="Notes")]),
            Section(title="B", children=[Section(title="Notes")]),
        ]
    )
    assert prompt.section("a.notes") is not None
    assert prompt.section(("b", "notes")) is not None


def test_a_section_object_cannot_appear_twice():
    shared = Section(title="Shared")
    with pytest.raises(PromptValidationError, match="twice"):
        PromptTemplate(sections=[Section(title="A", children=[shared]), shared])


def test_keys_are_derived_from_titles():
    assert Section(title="Project Context").key == "project-context"
    assert Section(title="  API v2 / Reference ").key == "api-v2-reference"


@pytest.mark.parametrize("key", ["Upper", "has.dot", "", "-lead", "x" * 65])
def test_invalid_keys_are_refused(key):
    with pytest.raises(PromptValidationError, match="key"):
        Section(title="T", key=key)


def test_title_is_required():
    with pytest.raises(PromptValidationError, match="title"):
        Section(title="  ")


def test_placeholders_are_checked_against_the_params_dataclass():
    with pytest.raises(PromptValidationError, match=r"\$\{missing\}.*Params") as info:
        MarkdownSection[Params](title="T", template="Hello ${missing}")
    assert info.value.placeholder == "missing"
    assert info.value.dataclass is Params


def test_summary_placeholders_are_checked_too():
    with pytest.raises(PromptValidationError, match="summary placeholder"):
        MarkdownSection[Params](title="T", template="$name", summary="About $other")


def test_malformed_templates_are_refused_with_a_location():
    with pytest.raises(PromptValidationError, match="line 2, column 6"):
        MarkdownSection[Params](title="T", template="ok\ncost $5")


def test_default_params_must_match_the_declared_type():
    with pytest.raises(PromptValidationError, match="default_params"):
        MarkdownSection[Params](title="T", template="$name", default_params=Config())


def test_params_type_is_taken_from_default_params():
    section = MarkdownSection(title="T", template="$name", default_params=Params("x"))
    assert section.params_type is Params


def test_params_type_must_be_a_dataclass():
    with pytest.raises(PromptValidationError, match="dataclass"):
        MarkdownSection[int](title="T", template="x")


def test_summary_visibility_needs_a_summary():
    with pytest.raises(PromptValidationError, match="summary"):
        Section(title="T", visibility=SectionVisibility.SUMMARY)


def test_children_and_tools_must_have_the_right_types():
    with pytest.raises(PromptValidationError, match="children"):
        Section(title="T", children=["not a section"])  # type: ignore[list-item]
    with pytest.raises(PromptValidationError, match="Tool instances"):
        Section(title="T", tools=[lambda: None])  # type: ignore[list-item]
    with pytest.raises(PromptValidationError, match="HostedTool"):
        PromptTemplate(sections=[Section(title="T", hosted_tools=["web"])])  # type: ignore[list-item]


def test_enabled_predicate_must_take_params_or_nothing():
    with pytest.raises(PromptValidationError, match="enabled"):
        Section(title="T", enabled=lambda a, b: True)  # type: ignore[arg-type]


def test_subclassing_a_subscripted_section_binds_its_params_type():
    class Greeting(MarkdownSection[Params]):
        def __init__(self) -> None:
            super().__init__(title="Greeting", template="Hi $name")

    section = Greeting()
    assert section.params_type is Params
    assert PromptTemplate(sections=[section]).render(Params("Ada")).text == "## 1 Greeting\nHi Ada"
