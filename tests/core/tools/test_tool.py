"""Tool construction: names, descriptions, handler signatures, params types, tuning."""

import asyncio
from dataclasses import dataclass, field

import pytest

from affordance import PromptValidationError, Tool, ToolContext, ToolExample, ToolResult
from affordance.tools import RetryPolicy


@dataclass
class Params:
    query: str = field(metadata={"description": "What to look up"})
    limit: int = 10


@dataclass
class Result:
    answer: str


def handler(params: Params, *, context: ToolContext) -> ToolResult[Result]:
    return ToolResult.ok(Result(params.query))


def make(**overrides: object) -> Tool[Params, Result]:
    options: dict[str, object] = {
        "name": "lookup",
        "description": "Look things up.",
        "handler": handler,
    }
    options.update(overrides)
    return Tool[Params, Result](**options)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["a", "lookup_entity", "get-task", "x" * 64, "v2_search"])
def test_valid_names_are_accepted(name):
    assert make(name=name).name == name


@pytest.mark.parametrize(
    "name", ["", "Lookup", "with space", "x" * 65, "naïve", "dot.name", " lookup", 3]
)
def test_invalid_names_are_refused(name):
    with pytest.raises(PromptValidationError, match="name"):
        make(name=name)


def test_description_is_stripped():
    assert make(description="  Look things up.  \n").description == "Look things up."


@pytest.mark.parametrize("description", ["", "   ", "x" * 201, "café lookup"])
def test_invalid_descriptions_are_refused(description):
    with pytest.raises(PromptValidationError, match="description"):
        make(description=description)


def test_description_of_exactly_200_characters_is_accepted():
    assert len(make(description="x" * 200).description) == 200


def test_canonical_handler_takes_context():
    tool = make()
    assert tool.takes_context is True
    assert tool.is_async is False


def test_params_only_handler_is_accepted_without_context():
    def params_only(params: Params) -> ToolResult[Result]:
        return ToolResult.ok(Result(params.query))

    assert make(handler=params_only).takes_context is False


def test_async_handler_is_detected():
    async def async_handler(params: Params, *, context: ToolContext) -> ToolResult[Result]:
        await asyncio.sleep(0)
        return ToolResult.ok(Result(params.query))

    assert make(handler=async_handler).is_async is True


@pytest.mark.parametrize(
    "bad",
    [
        lambda: None,
        lambda params, context: None,
        lambda params, *, ctx: None,
        lambda *args: None,
        lambda params, **kwargs: None,
        lambda a, b, *, context: None,
    ],
    ids=["no-params", "positional-context", "wrong-keyword", "varargs", "varkw", "two-positional"],
)
def test_other_handler_signatures_are_refused(bad):
    with pytest.raises(PromptValidationError, match="handler"):
        make(handler=bad)


def test_handler_must_be_callable():
    with pytest.raises(PromptValidationError, match="callable"):
        make(handler="not a function")


def test_params_type_is_inferred_from_the_handler_annotation():
    tool = Tool(name="lookup", description="Look things up.", handler=handler)
    assert tool.params_type is Params
    assert tool.result_type is Result


def test_a_tool_without_any_params_type_is_refused():
    with pytest.raises(PromptValidationError, match="params type"):
        Tool(name="lookup", description="Look things up.", handler=lambda params: None)


def test_tool_without_params_uses_none():
    tool = Tool[None, Result](name="now", description="Current time.")
    assert tool.params_type is type(None)
    assert tool.parameters_schema() == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_params_type_must_be_a_dataclass():
    with pytest.raises(PromptValidationError, match="dataclass"):
        Tool[int, Result](name="x", description="Something.")


def test_handler_is_optional():
    assert make(handler=None).handler is None


def test_examples_are_checked_against_the_params_type():
    good = ToolExample(description="Find a cat.", input=Params("cat"), output=Result("meow"))
    assert make(examples=[good]).examples == (good,)
    with pytest.raises(PromptValidationError, match="input"):
        make(examples=[ToolExample(description="Bad.", input=Result("x"), output=Result("y"))])
    with pytest.raises(PromptValidationError, match="ToolExample"):
        make(examples=[{"input": {}}])


def test_param_descriptions_come_from_field_metadata():
    assert make().param_descriptions == {"query": "What to look up"}


def test_timeout_and_cache_ttl_must_be_positive():
    with pytest.raises(PromptValidationError, match="timeout"):
        make(timeout=0)
    with pytest.raises(PromptValidationError, match="cache_ttl"):
        make(cache_ttl=-1)


def test_destructive_tools_cannot_be_cached():
    with pytest.raises(PromptValidationError, match="never cached"):
        make(destructive=True, cache_ttl=10)


def test_retry_policy_validates_its_bounds_and_backs_off_exponentially():
    policy = RetryPolicy(max_attempts=4, base_delay=0.1, max_delay=0.3, jitter=0)
    assert [policy.delay(n, 0.5) for n in (1, 2, 3)] == [0.1, 0.2, 0.3]
    jittered = RetryPolicy(base_delay=1, max_delay=10, jitter=0.5)
    assert jittered.delay(1, 0.0) == 0.5
    assert jittered.delay(1, 0.999) == pytest.approx(1.499)
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="jitter"):
        RetryPolicy(jitter=2)


def test_type_arguments_contradicting_explicit_keywords_are_refused():
    with pytest.raises(TypeError, match="contradicts"):
        Tool[Params, Result](name="x", description="y.", params_type=Result)


def test_subscripted_tool_is_printable_and_comparable():
    assert repr(Tool[Params, Result]) == "Tool[Params, Result]"
    assert Tool[Params, Result] == Tool[Params, Result]
    assert hash(Tool[Params, Result]) == hash(Tool[Params, Result])
