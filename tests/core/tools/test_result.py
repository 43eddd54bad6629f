"""ToolResult: factories, success semantics, rendering for the model."""

from dataclasses import dataclass

import pytest

from affordance import ToolResult
from affordance.serde import MAX_DEPTH
from affordance.tools import OK


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


def test_the_default_message_is_left_out_and_a_string_value_is_the_text_itself():
    value = "x" * 1_000_000
    result = ToolResult.ok(value)
    assert result.message == OK
    assert result.model_text() is value  # not a copy: a large result costs no second copy
    assert ToolResult(message="", value=value).model_text() is value


def test_a_failure_or_an_empty_rendering_keeps_its_message():
    assert ToolResult(message=OK, value="v", success=False).model_text() == "OK\nv"
    assert ToolResult.ok("").model_text() == OK


def test_a_large_string_result_adds_no_copy_to_a_run():
    """A 10 MB result through a whole offline run: the request the model gets holds the very
    string the tool returned, and the run's peak memory grows by far less than its size."""
    import tracemalloc
    from dataclasses import dataclass

    from affordance import MarkdownSection, PromptTemplate, Tool
    from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

    @dataclass(frozen=True)
    class NoParams:
        pass

    big = "y" * 10_000_000
    dump_tool = Tool[NoParams, str](
        name="dump", description="A big text.", handler=lambda params: ToolResult.ok(big)
    )
    prompt = PromptTemplate(
        ns="t", key="t", sections=[MarkdownSection(title="T", template="Go.", tools=[dump_tool])]
    )
    adapter = ScriptedAdapter([tool_calls(tool_call("dump")), text("done")])
    adapter.evaluate(prompt)  # warm: imports, caches
    adapter = ScriptedAdapter([tool_calls(tool_call("dump")), text("done")])
    tracemalloc.start()
    try:
        response = adapter.evaluate(prompt)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.tool_results[0].result.value is big
    assert adapter.requests[1].messages[-1].content is big
    assert peak < 1_000_000, f"peak {peak:,} bytes for a 10 MB result"
