"""Every tool call gets exactly one result; the evaluation is never aborted by a tool."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import pytest
from entity_tools import Entity, LookupParams, make_prompt, slow

from affordance import Tool, ToolContext, ToolError, ToolResult, ToolValidationError
from affordance.adapters import ToolCall, ToolResultMessage
from affordance.clock import Deadline
from affordance.errors import PromptEvaluationError
from affordance.runtime import AllowList, EventBus, ToolExecutor, ToolInvoked
from affordance.runtime.calls.executor import MAX_ARGUMENTS_SIZE
from affordance.serde import MAX_DEPTH
from affordance.testing import FakeClock, ScriptedAdapter, text, tool_call, tool_calls
from affordance.tools import RetryPolicy


def run_one(call, *extra_tools, executor=None, asynchronous=False):
    """Evaluate: one turn with ``call``, then a final answer; return (result, events)."""
    adapter = ScriptedAdapter([tool_calls(call), text("done")], executor=executor)
    bus = EventBus()
    events: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, events.append)
    prompt = make_prompt(*extra_tools)
    if asynchronous:
        response = asyncio.run(adapter.aevaluate(prompt, bus=bus))
    else:
        response = adapter.evaluate(prompt, bus=bus)
    assert response.text == "done"
    assert len(response.tool_results) == 1
    return response.tool_results[0].result, events


def tool_messages(adapter: ScriptedAdapter) -> list[ToolResultMessage]:
    """The tool results the model received in the last request."""
    return [m for m in adapter.requests[-1].messages if isinstance(m, ToolResultMessage)]


def test_successful_call_returns_the_handlers_result():
    result, events = run_one(tool_call("lookup", {"entity_id": "a"}))
    assert result.success
    assert result.value == Entity("a", "https://e/a")
    assert events[0].rendered_output == '{"entity_id":"a","url":"https://e/a"}'
    assert events[0].params == LookupParams("a")


def test_unknown_tool_is_a_failed_result_listing_the_tools():
    result, events = run_one(tool_call("nope", {}))
    assert not result.success
    assert "Unknown tool 'nope'" in result.message
    assert "delete, lookup" in result.message
    assert events[0].name == "nope"
    assert events[0].rendered_output == ""


def test_malformed_json_is_a_failed_result():
    result, _ = run_one(tool_call("lookup", '{"entity_id": '))
    assert not result.success
    assert "not valid JSON" in result.message


def test_non_object_arguments_are_refused():
    result, _ = run_one(tool_call("lookup", "[1, 2]"))
    assert "must be a JSON object, got list" in result.message


@pytest.mark.parametrize("as_text", [True, False], ids=["text", "object"])
def test_arguments_past_the_size_limit_are_refused_before_parsing(as_text):
    arguments = {"entity_id": "x" * MAX_ARGUMENTS_SIZE}
    text = json.dumps(arguments)  # as a model writes it, spaces included
    size = len(text) if as_text else len(json.dumps(arguments, separators=(",", ":")))

    call = tool_call("lookup", text) if as_text else ToolCall("call_big", "lookup", arguments)

    result, _ = run_one(call)

    assert not result.success
    assert result.message == (
        f"Arguments for 'lookup' are too large: {size:,} characters, the limit is "
        f"{MAX_ARGUMENTS_SIZE:,}. Send less, or split the work into several calls."
    )


def test_arguments_exactly_at_the_size_limit_are_accepted():
    padding = MAX_ARGUMENTS_SIZE - len('{"entity_id":""}')
    arguments = '{"entity_id":"' + "x" * padding + '"}'
    assert len(arguments) == MAX_ARGUMENTS_SIZE

    result, _ = run_one(tool_call("lookup", arguments))

    assert result.success


def test_the_size_limit_is_the_executors_to_set():
    executor = ToolExecutor(max_arguments_size=20)

    call = ToolCall("call_small", "lookup", {"entity_id": "abcdefghij"})

    result, _ = run_one(call, executor=executor)

    assert "too large: 26 characters, the limit is 20" in result.message  # {"entity_id":"…"}
    with pytest.raises(ValueError, match="max_arguments_size"):
        ToolExecutor(max_arguments_size=0)


def test_invalid_arguments_are_reported_with_field_paths():
    result, events = run_one(tool_call("lookup", {"entity_id": "", "limit": 99, "extra": 1}))
    assert not result.success
    assert "entity_id" in result.message
    assert "limit" in result.message
    assert "extra" in result.message
    assert events[0].params is None


def test_handler_exceptions_become_failed_results():
    result, _ = run_one(tool_call("lookup", {"entity_id": "boom"}))
    assert not result.success
    assert result.value is None
    assert result.message == "Tool 'lookup' failed: RuntimeError: database unavailable"


def test_tool_error_reaches_the_model_as_a_structured_payload():
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("lookup", {"entity_id": "missing"})), text("ok")]
    )
    response = adapter.evaluate(make_prompt())
    result = response.tool_results[0].result
    assert not result.success
    (message,) = tool_messages(adapter)
    assert message.is_error
    first_line, payload_line = message.content.split("\n")
    assert first_line == "no such entity"
    payload = json.loads(payload_line)
    assert payload == {
        "error": "no such entity",
        "code": "NOT_FOUND",
        "retryable": False,
        "recover_action": "search first",
    }


def test_tool_validation_error_from_a_handler_is_a_failed_result():
    def picky(params: LookupParams) -> ToolResult[None]:
        raise ToolValidationError("entity ids start with 'e-'")

    tool = Tool[LookupParams, None](name="picky", description="Picky.", handler=picky)
    result, _ = run_one(tool_call("picky", {"entity_id": "x"}), tool)
    assert result.message == "Invalid arguments for 'picky': entity ids start with 'e-'"


def test_handler_returning_something_else_is_a_failed_result():
    tool = Tool[LookupParams, None](name="sloppy", description="Sloppy.", handler=lambda p: "oops")
    result, _ = run_one(tool_call("sloppy", {"entity_id": "x"}), tool)
    assert "returned str, not a ToolResult" in result.message


def test_tool_without_handler_is_a_failed_result():
    tool = Tool[LookupParams, None](name="declared", description="Declared only.")
    result, _ = run_one(tool_call("declared", {"entity_id": "x"}), tool)
    assert "no handler" in result.message


def test_tool_without_params_accepts_empty_arguments_and_refuses_others():
    @dataclass
    class Now:
        iso: str

    tool = Tool[None, Now](
        name="now", description="Now.", handler=lambda p: ToolResult.ok(Now("t"))
    )
    assert run_one(tool_call("now", ""), tool)[0].success
    assert run_one(tool_call("now", {}), tool)[0].success
    refused, _ = run_one(tool_call("now", {"x": 1}), tool)
    assert "takes no arguments" in refused.message


def test_sync_handler_past_its_timeout_is_reported_and_the_loop_goes_on():
    tool = Tool[LookupParams, Entity](name="slow", description="Slow.", handler=slow, timeout=0.05)
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("slow", {"entity_id": "a"}), tool_call("lookup", {"entity_id": "b"})
            ),
            text("finished anyway"),
        ]
    )
    started = time.monotonic()
    response = adapter.evaluate(make_prompt(tool))
    assert time.monotonic() - started < 0.9  # the slow handler was not awaited
    slow_result, lookup_result = (r.result for r in response.tool_results)
    assert slow_result.message == "Tool 'slow' timed out after 0.05s."
    assert lookup_result.success
    assert response.text == "finished anyway"


def test_async_handler_past_its_timeout_is_reported():
    async def sleepy(params: LookupParams) -> ToolResult[None]:
        await asyncio.sleep(5)
        return ToolResult.ok(None)

    tool = Tool[LookupParams, None](
        name="sleepy", description="Sleepy.", handler=sleepy, timeout=0.05
    )
    for asynchronous in (False, True):
        result, _ = run_one(
            tool_call("sleepy", {"entity_id": "a"}), tool, asynchronous=asynchronous
        )
        assert result.message == "Tool 'sleepy' timed out after 0.05s."


def test_sync_handler_in_async_driver_times_out_too():
    tool = Tool[LookupParams, Entity](name="slow", description="Slow.", handler=slow, timeout=0.05)
    result, _ = run_one(tool_call("slow", {"entity_id": "a"}), tool, asynchronous=True)
    assert "timed out" in result.message


def flaky_tool(failures: int, *, retryable: bool = True):
    calls: list[int] = []

    def flaky(params: LookupParams) -> ToolResult[None]:
        calls.append(1)
        if len(calls) <= failures:
            raise ToolError("BUSY", "try later", retryable=retryable)
        return ToolResult.ok(None, message=f"worked on attempt {len(calls)}")

    return Tool[LookupParams, None](name="flaky", description="Flaky.", handler=flaky), calls


@pytest.mark.parametrize("asynchronous", [False, True])
def test_retryable_errors_are_retried_with_exponential_backoff_and_jitter(asynchronous):
    clock = FakeClock()
    executor = ToolExecutor(
        clock=clock,
        random_unit=lambda: 0.5,
        retry=RetryPolicy(max_attempts=3, base_delay=0.1, max_delay=1, jitter=0.5),
    )
    tool, calls = flaky_tool(2)
    result, events = run_one(
        tool_call("flaky", {"entity_id": "a"}), tool, executor=executor, asynchronous=asynchronous
    )
    assert result.message == "worked on attempt 3"
    assert clock.sleeps == [0.1, 0.2]
    assert events[0].attempts == 3
    assert len(calls) == 3


def test_retries_stop_at_max_attempts():
    clock = FakeClock()
    executor = ToolExecutor(clock=clock, retry=RetryPolicy(max_attempts=2, jitter=0))
    tool, calls = flaky_tool(5)
    result, events = run_one(tool_call("flaky", {"entity_id": "a"}), tool, executor=executor)
    assert not result.success
    assert len(calls) == 2
    assert events[0].attempts == 2


def test_non_retryable_errors_are_not_retried():
    executor = ToolExecutor(clock=FakeClock())
    tool, calls = flaky_tool(1, retryable=False)
    result, _ = run_one(tool_call("flaky", {"entity_id": "a"}), tool, executor=executor)
    assert not result.success
    assert len(calls) == 1


def test_a_tools_own_retry_policy_wins():
    clock = FakeClock()
    executor = ToolExecutor(clock=clock, retry=RetryPolicy(max_attempts=1))
    tool, calls = flaky_tool(1)
    tool = Tool[LookupParams, None](
        name="flaky",
        description="Flaky.",
        handler=tool.handler,
        retry=RetryPolicy(max_attempts=2, jitter=0),
    )
    result, _ = run_one(tool_call("flaky", {"entity_id": "a"}), tool, executor=executor)
    assert result.success
    assert len(calls) == 2


def test_allowlist_denies_other_tools_and_records_the_decision():
    from affordance.runtime import ToolCallDenied

    adapter = ScriptedAdapter(
        [tool_calls(tool_call("delete", {"entity_id": "a"})), text("ok")],
        executor=ToolExecutor(policy=AllowList(["lookup"])),
    )
    bus = EventBus()
    denied: list[ToolCallDenied] = []
    bus.subscribe(ToolCallDenied, denied.append)
    response = adapter.evaluate(make_prompt(), bus=bus)
    assert response.tool_results[0].result.message == (
        "Tool 'delete' may not run: tool 'delete' is not on the allowlist."
    )
    assert [d.name for d in denied] == ["delete"]


def test_cached_results_are_reused_until_the_ttl_expires():
    clock = FakeClock()
    executor = ToolExecutor(clock=clock)
    count: list[int] = []

    def counted(params: LookupParams) -> ToolResult[int]:
        count.append(1)
        return ToolResult.ok(len(count))

    tool = Tool[LookupParams, int](
        name="counted", description="Count.", handler=counted, cache_ttl=60
    )
    first, _ = run_one(tool_call("counted", {"entity_id": "a"}), tool, executor=executor)
    second, events = run_one(tool_call("counted", {"entity_id": "a"}), tool, executor=executor)
    assert (first.value, second.value) == (1, 1)
    assert events[0].cached is True
    other, _ = run_one(tool_call("counted", {"entity_id": "b"}), tool, executor=executor)
    assert other.value == 2
    clock.advance(61)
    expired, events = run_one(tool_call("counted", {"entity_id": "a"}), tool, executor=executor)
    assert expired.value == 3
    assert events[0].cached is False


def test_failed_results_are_not_cached():
    executor = ToolExecutor(clock=FakeClock())
    count: list[int] = []

    def failing(params: LookupParams) -> ToolResult[None]:
        count.append(1)
        return ToolResult.error("nope")

    tool = Tool[LookupParams, None](
        name="failing", description="Fail.", handler=failing, cache_ttl=60
    )
    run_one(tool_call("failing", {"entity_id": "a"}), tool, executor=executor)
    run_one(tool_call("failing", {"entity_id": "a"}), tool, executor=executor)
    assert len(count) == 2


def test_deadline_passed_before_a_call_is_a_failed_result():
    clock = FakeClock()

    def eats_the_deadline(params: LookupParams, *, context: ToolContext) -> ToolResult[None]:
        clock.advance(10)
        return ToolResult.ok(None)

    tool = Tool[LookupParams, None](name="eater", description="Eat.", handler=eats_the_deadline)
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("eater", {"entity_id": "a"}), tool_call("lookup", {"entity_id": "b"})
            ),
            text("late"),
        ],
        executor=ToolExecutor(clock=clock),
    )
    bus = EventBus()
    events: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, events.append)
    with pytest.raises(PromptEvaluationError, match="deadline"):
        adapter.evaluate(make_prompt(tool), bus=bus, deadline=Deadline.after(5, clock))
    # the turn still gave every call its result before the loop stopped at the deadline
    assert [e.name for e in events] == ["eater", "lookup"]
    assert events[0].result.success
    assert (
        events[1].result.message == "Tool 'lookup' was not run: the evaluation deadline has passed."
    )


def test_async_handlers_run_in_the_sync_driver():
    async def fetch(params: LookupParams) -> ToolResult[Entity]:
        await asyncio.sleep(0)
        return ToolResult.ok(Entity(params.entity_id, "async"))

    tool = Tool[LookupParams, Entity](name="fetch", description="Fetch.", handler=fetch)
    result, _ = run_one(tool_call("fetch", {"entity_id": "a"}), tool)
    assert result.value == Entity("a", "async")


# -- hostile nesting: arguments and results nested past serde.MAX_DEPTH ----------------------

MARKER = "zq-CONTENT-5e2a"  # the content_free_logs fixture fails a test whose logs carry it


@dataclass(frozen=True)
class AnyParams:
    a: Any = None


def echo(params: AnyParams) -> ToolResult[Any]:
    return ToolResult.ok({"echo": MARKER}, message=f"echoed {MARKER}")


ECHO = Tool[AnyParams, Any](name="echo", description="Echo.", handler=echo)


def objects_text(levels: int) -> str:
    """``{"a":{"a":...}}``: ``levels`` objects, as a model would send them."""
    return '{"a":' * levels + f'"{MARKER}"' + "}" * levels


def arrays_text(levels: int) -> str:
    """An object whose ``a`` is ``levels - 1`` nested arrays."""
    inner = levels - 1
    return '{"a":' + "[" * inner + f'"{MARKER}"' + "]" * inner + "}"


def objects(levels: int) -> dict[str, Any]:
    """The same as :func:`objects_text`, already parsed (Anthropic and Google send objects)."""
    data: Any = MARKER
    for _ in range(levels):
        data = {"a": data}
    return data


def evaluate(adapter: ScriptedAdapter, prompt: Any, *, asynchronous: bool, **options: Any) -> Any:
    if asynchronous:
        return asyncio.run(adapter.aevaluate(prompt, **options))
    return adapter.evaluate(prompt, **options)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
@pytest.mark.parametrize(
    "arguments",
    [
        objects_text(1_000),
        arrays_text(1_000),
        arrays_text(100_000),
        objects_text(MAX_DEPTH + 1),
        objects(1_000),
        objects(MAX_DEPTH + 1),
    ],
    ids=["objects", "arrays", "arrays-100k", "objects-limit+1", "mapping", "mapping-limit+1"],
)
def test_arguments_nested_too_deep_are_a_failed_result_and_the_run_goes_on(
    arguments, asynchronous, content_free_logs
):
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("lookup", {"entity_id": MARKER})),
            tool_calls(
                ToolCall("deep", "echo", arguments), tool_call("lookup", {"entity_id": "b"})
            ),
            text("done"),
        ],
        executor=ToolExecutor(log_content=False),
    )
    response = evaluate(adapter, make_prompt(ECHO), asynchronous=asynchronous)
    assert response.text == "done"
    earlier, deep, sibling = (r.result for r in response.tool_results)
    assert earlier.success  # the run's earlier results are kept
    assert not deep.success
    assert f"nested deeper than {MAX_DEPTH} levels" in deep.message
    assert deep.message.startswith("Invalid arguments for 'echo'")
    assert sibling.success
    (message,) = [m for m in tool_messages(adapter) if m.call_id == "deep"]
    assert message.is_error


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
def test_arguments_nested_exactly_to_the_limit_are_accepted(asynchronous, content_free_logs):
    adapter = ScriptedAdapter(
        [tool_calls(ToolCall("ok", "echo", objects_text(MAX_DEPTH))), text("done")]
    )
    response = evaluate(adapter, make_prompt(ECHO), asynchronous=asynchronous)
    assert response.tool_results[0].result.success


def test_deep_arguments_never_reach_the_content_log(content_free_logs):
    """Even with content logging on, a too-deep payload is summarized, not dumped."""
    adapter = ScriptedAdapter(
        [tool_calls(ToolCall("deep", "echo", objects(1_000))), text("done")],
        executor=ToolExecutor(log_content=True),
    )
    response = adapter.evaluate(make_prompt(ECHO))
    assert not response.tool_results[0].result.success
    content = [r for r in content_free_logs.records if hasattr(r, "affordance_content")]
    assert content
    assert "nested too deep to log" in repr(content[0].affordance_content)  # type: ignore[attr-defined]
    content_free_logs.caplog.clear()  # content logging was asked for; the marker may be there


def deep_dict(levels: int) -> Any:
    value: Any = MARKER
    for _ in range(levels):
        value = {"a": value}
    return value


@dataclass(frozen=True)
class Link:
    next: Link | None = None
    note: str = MARKER


def deep_links(levels: int) -> Link:
    link = Link()
    for _ in range(levels - 1):
        link = Link(link)
    return link


def returning(value: object, *, asynchronous_handler: bool = False) -> Tool[Any, Any]:
    if asynchronous_handler:

        async def handler_async(params: AnyParams) -> ToolResult[Any]:
            return ToolResult.ok(value)

        return Tool[AnyParams, Any](name="deep", description="Deep.", handler=handler_async)

    def handler(params: AnyParams) -> ToolResult[Any]:
        return ToolResult.ok(value)

    return Tool[AnyParams, Any](name="deep", description="Deep.", handler=handler)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
@pytest.mark.parametrize("asynchronous_handler", [False, True], ids=["def", "async-def"])
@pytest.mark.parametrize(
    "value",
    [deep_dict(600), deep_links(600), [deep_dict(MAX_DEPTH)], object()],
    ids=["dict", "dataclass-chain", "list-limit+1", "no-json-form"],
)
def test_a_result_that_cannot_be_rendered_is_a_failed_result(
    value, asynchronous, asynchronous_handler, content_free_logs
):
    tool = returning(value, asynchronous_handler=asynchronous_handler)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("lookup", {"entity_id": MARKER})),
            tool_calls(tool_call("deep", {}), tool_call("lookup", {"entity_id": "b"})),
            text("done"),
        ]
    )
    bus = EventBus()
    events: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, events.append)
    response = evaluate(adapter, make_prompt(tool), asynchronous=asynchronous, bus=bus)
    assert response.text == "done"
    earlier, deep, sibling = (r.result for r in response.tool_results)
    assert earlier.success
    assert sibling.success
    assert not deep.success
    assert deep.message.startswith("Tool 'deep' failed: its result cannot be sent to the model")
    if type(value) is not object:
        assert f"nested deeper than {MAX_DEPTH} levels" in deep.message
    assert events[1].rendered_output == ""
    (message,) = [m for m in tool_messages(adapter) if m.name == "deep"]
    assert message.is_error
    assert MARKER not in message.content


def test_a_result_nested_exactly_to_the_limit_is_sent(content_free_logs):
    tool = returning(deep_dict(MAX_DEPTH))
    result, events = run_one(tool_call("deep", {}), tool)
    assert result.success
    assert events[0].rendered_output.count("{") == MAX_DEPTH


# -- bounds the defaults promise (each test kills a mutant the suite used to let through) ------


def test_a_cached_result_expires_at_exactly_its_ttl(content_free_logs):
    clock = FakeClock()
    executor = ToolExecutor(clock=clock)
    count: list[int] = []

    def counted(params: LookupParams) -> ToolResult[int]:
        count.append(1)
        return ToolResult.ok(len(count))

    tool = Tool[LookupParams, int](
        name="counted", description="Count.", handler=counted, cache_ttl=60
    )
    call = tool_call("counted", {"entity_id": MARKER})
    assert run_one(call, tool, executor=executor)[0].value == 1
    clock.advance(59.999)
    assert run_one(call, tool, executor=executor)[0].value == 1  # still cached
    clock.advance(0.001)
    result, events = run_one(call, tool, executor=executor)
    assert result.value == 2  # at exactly 60 s it has expired
    assert events[0].cached is False


def hog(clock: FakeClock, seconds: float) -> Tool[LookupParams, None]:
    """An async tool whose handler takes ``seconds`` of the executor's clock."""

    async def takes_time(params: LookupParams) -> ToolResult[None]:
        clock.advance(seconds)
        return ToolResult.ok(None)

    return Tool[LookupParams, None](name="hog", description="Hog.", handler=takes_time, timeout=10)


def hog_result(tool: Tool[LookupParams, None], clock: FakeClock, *, asynchronous: bool) -> Any:
    """Run ``hog`` once with 0.5 s left before the deadline; the result it got."""
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("hog", {"entity_id": MARKER})), text("done")],
        executor=ToolExecutor(clock=clock),
    )
    bus = EventBus()
    events: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, events.append)
    with pytest.raises(PromptEvaluationError, match="deadline"):  # the call used it up
        evaluate(adapter, make_prompt(tool), asynchronous=asynchronous, bus=bus, deadline=0.5)
    (event,) = events
    return event.result


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
def test_the_deadline_bounds_a_tools_own_timeout(asynchronous, content_free_logs):
    clock = FakeClock()
    # the tool allows 10 s, the evaluation has 0.5 s left: the call gets 0.5 s
    result = hog_result(hog(clock, 1.0), clock, asynchronous=asynchronous)
    assert result.message == "Tool 'hog' timed out after 0.5s."


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
def test_the_deadline_is_the_timeout_of_a_tool_without_one(asynchronous, content_free_logs):
    clock = FakeClock()
    handler = hog(clock, 1.0).handler
    tool = Tool[LookupParams, None](name="hog", description="Hog.", handler=handler)
    result = hog_result(tool, clock, asynchronous=asynchronous)
    assert result.message == "Tool 'hog' timed out after 0.5s."


def test_timeouts_are_not_retried_by_default(content_free_logs):
    clock = FakeClock()
    tool = hog(clock, 20.0)  # past its 10 s timeout every time
    result, events = run_one(
        tool_call("hog", {"entity_id": MARKER}), tool, executor=ToolExecutor(clock=clock)
    )
    assert result.message == "Tool 'hog' timed out after 10s."
    assert events[0].attempts == 1
    assert clock.sleeps == []


def test_timeouts_are_retried_when_the_policy_asks(content_free_logs):
    clock = FakeClock()
    executor = ToolExecutor(clock=clock, retry=RetryPolicy(retry_timeouts=True, jitter=0))
    result, events = run_one(
        tool_call("hog", {"entity_id": MARKER}), hog(clock, 20.0), executor=executor
    )
    assert "timed out" in result.message
    assert events[0].attempts == 3


def test_the_default_policy_makes_three_attempts(content_free_logs):
    clock = FakeClock()
    tool, calls = flaky_tool(10)
    result, events = run_one(
        tool_call("flaky", {"entity_id": MARKER}), tool, executor=ToolExecutor(clock=clock)
    )
    assert not result.success
    assert len(calls) == 3
    assert events[0].attempts == 3
    assert len(clock.sleeps) == 2  # a wait between attempts, none after the last


# -- empty arguments and the size of non-ASCII arguments -----------------------------------------


def no_params_tool() -> Tool[None, str]:
    return Tool[None, str](name="now", description="Now.", handler=lambda p: ToolResult.ok("t"))


@pytest.mark.parametrize("blank", ["", " ", "   ", "\n", " \t\r\n "])
def test_arguments_of_whitespace_only_are_the_empty_object(blank: str) -> None:
    # TOOLS.md: a tool without params "may send `{}` or nothing"; blank text is nothing
    prepared = ToolExecutor().prepare(tool_call("now", blank), {"now": no_params_tool()})

    assert prepared.result is None
    assert prepared.arguments == {}
    assert run_one(tool_call("now", blank), no_params_tool())[0].success


@pytest.mark.parametrize("blank", ["   ", "\n"])
def test_blank_arguments_to_a_tool_with_params_are_missing_fields_not_invalid_json(
    blank: str,
) -> None:
    result, _ = run_one(tool_call("lookup", blank))

    assert not result.success
    assert result.message.startswith("Invalid arguments for 'lookup': ")
    assert "entity_id" in result.message
    assert "not valid JSON" not in result.message


NON_ASCII_PADDING = MAX_ARGUMENTS_SIZE - len('{"entity_id":""}')


@pytest.mark.parametrize("letter", ["é", "雨", "\U0001f326"], ids=["latin", "cjk", "astral"])
def test_an_object_of_non_ascii_text_is_measured_in_characters_as_json_writes_it(
    letter: str,
) -> None:
    # ensure_ascii would write each letter as \\uXXXX (an astral one as two): 6 to 12 times
    # the characters, and this object, exactly at the limit, would be refused
    at_limit = {"entity_id": letter * NON_ASCII_PADDING}
    over = {"entity_id": letter * (NON_ASCII_PADDING + 1)}

    accepted, _ = run_one(ToolCall("call_at", "lookup", at_limit))
    refused, _ = run_one(ToolCall("call_over", "lookup", over))

    assert accepted.success, accepted.message
    assert refused.message.startswith(
        f"Arguments for 'lookup' are too large: {MAX_ARGUMENTS_SIZE + 1:,} characters, "
    )


def test_text_of_non_ascii_arguments_is_measured_in_characters_not_bytes() -> None:
    at_limit = '{"entity_id":"' + "é" * NON_ASCII_PADDING + '"}'
    assert len(at_limit) == MAX_ARGUMENTS_SIZE

    result, _ = run_one(tool_call("lookup", at_limit))

    assert result.success, result.message
