"""ToolResult: factories, success semantics, rendering for the model."""

from dataclasses import dataclass

import pytest

from affordance import ToolResult
from affordance.serde import MAX_DEPTH


@dataclass
class Item:
    name: str
    note: str | None = None


@dataclass
class Table:
    rows: list[str]

    def render(self) -> str:
        return "\n".join(f"| {row} |" for row in self.rows)


def test_ok_factory_sets_success_and_value():
    result = ToolResult.ok(Item("a"), message="Done.")
    assert (result.success, result.value, result.message) == (True, Item("a"), "Done.")


def test_error_factory_has_no_value_by_default():
    result = ToolResult.error("It broke.")
    assert (result.success, result.value, result.message) == (False, None, "It broke.")


def test_render_defaults_to_compact_json_without_none_fields():
    assert ToolResult.ok(Item("a")).render() == '{"name":"a"}'


def test_render_uses_the_values_own_render():
    assert ToolResult.ok(Table(["a", "b"])).render() == "| a |\n| b |"


def test_render_of_none_is_empty():
    assert ToolResult(message="nothing").render() == ""


def test_render_must_return_a_string():
    @dataclass
    class Bad:
        def render(self) -> int:
            return 3

    with pytest.raises(TypeError, match="not str"):
        ToolResult.ok(Bad()).render()


def test_model_text_joins_message_and_rendered_value():
    assert ToolResult.ok(Item("a"), message="Found it.").model_text() == 'Found it.\n{"name":"a"}'


def test_model_text_omits_an_excluded_value():
    result = ToolResult(message="Stored.", value=Item("secret"), exclude_value_from_context=True)
    assert result.model_text() == "Stored."
    assert result.value == Item("secret")


def test_render_refuses_a_value_nested_deeper_than_the_serde_limit():
    value: object = "leaf"
    for _ in range(MAX_DEPTH + 1):
        value = [value]
    with pytest.raises(ValueError, match=f"nested deeper than {MAX_DEPTH} levels"):
        ToolResult.ok(value).render()
