"""The adapter over the real SDK and the loopback server: the tool loop (ids, thought
signatures, calls without ids), usage, finish reasons, blocked prompts, hosted items, clients."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from typing import Any

import pytest
from google import genai
from loopback import (
    JsonReply,
    LoopbackServer,
    candidate,
    code_execution_result_part,
    executable_code_part,
    generate_path,
    generate_response,
    google_blocked,
    google_finish,
    google_function_calls,
    google_text,
    grounding_metadata,
    grounding_support,
    text_part,
    usage_metadata,
    web_chunk,
)

from affordance import PromptEvaluationError, PromptTemplate
from affordance.runtime.model.turn import Usage
from affordance_google import GoogleAdapter

PATH = generate_path("gemini-test")


def run(adapter: GoogleAdapter, prompt: PromptTemplate[Any], mode: str) -> Any:
    if mode == "sync":
        return adapter.evaluate(prompt)

    async def go() -> Any:
        try:
            return await adapter.aevaluate(prompt)
        finally:
            await adapter.connection.clients.async_client().aclose()

    return asyncio.run(go())


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    chosen: str = request.param
    return chosen


def test_parallel_calls_keep_their_ids_and_signatures_and_failures_reach_the_model(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    calls: Any,
    mode: str,
) -> None:
    model_turn = google_function_calls(
        [("get_weather", {"city": "Paris"}, "fc_1"), ("flaky", {"city": "Rome"}, "fc_2")],
        text="Checking.",
        thought_signature=b"\x00opaque",
    )
    server.script(PATH, JsonReply(model_turn), JsonReply(google_text("Paris is sunny.")))

    response = run(make_adapter(), prompt, mode)

    assert response.text == "Paris is sunny."
    assert sorted(calls.seen) == [("flaky", "Rome", "c"), ("get_weather", "Paris", "c")]
    assert [(r.call.id, r.result.success) for r in response.tool_results] == [
        ("fc_1", True),
        ("fc_2", False),
    ]
    second = server.requests[1].body
    model, answers = second["contents"][1:]
    # the model's own turn goes back unchanged: text, ids, the signature (base64 as received)
    assert model == model_turn["candidates"][0]["content"]
    assert model["parts"][1]["thoughtSignature"] == base64.b64encode(b"\x00opaque").decode()
    assert answers["role"] == "user"
    assert [p["functionResponse"]["id"] for p in answers["parts"]] == ["fc_1", "fc_2"]
    assert answers["parts"][0]["functionResponse"]["response"] == {"output": "Paris: sunny, 21 c"}
    failed = answers["parts"][1]["functionResponse"]
    assert set(failed["response"]) == {"error"}
    assert "backend down" in failed["response"]["error"]
    assert response.usage == Usage(20, 10)


def test_calls_without_ids_get_synthetic_ones_that_never_reach_the_wire(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, mode: str
) -> None:
    server.script(
        PATH,
        JsonReply(
            google_function_calls([("get_weather", {"city": "A"}), ("flaky", {"city": "B"})])
        ),
        JsonReply(google_function_calls([("get_weather", {"city": "C"})])),
        JsonReply(google_text("Done.")),
    )

    response = run(make_adapter(), prompt, mode)

    ids = [r.call.id for r in response.tool_results]
    assert ids == ["resp-loopback-1-0", "resp-loopback-1-1", "resp-loopback-2-0"]
    assert len(set(ids)) == 3
    _, second, third = (r.body for r in server.requests)
    for body in (second, third):
        for content in body["contents"]:
            for part in content["parts"]:
                for key in ("functionCall", "functionResponse"):
                    assert "id" not in part.get(key, {})
    # paired by order and name
    answers = [p["functionResponse"] for p in second["contents"][-1]["parts"]]
    assert [(a["name"], set(a["response"])) for a in answers] == [
        ("get_weather", {"output"}),
        ("flaky", {"error"}),
    ]


def test_a_call_id_the_model_repeats_in_one_turn_is_made_unique(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    twice = google_function_calls(
        [("get_weather", {"city": "A"}, "same"), ("get_weather", {"city": "B"}, "same")]
    )
    server.script(PATH, JsonReply(twice), JsonReply(google_text("Done.")))

    response = make_adapter().evaluate(prompt)

    assert [r.call.id for r in response.tool_results] == ["same", "resp-loopback-1-1"]
    answers = server.requests[1].body["contents"][-1]["parts"]
    assert [a["functionResponse"].get("id") for a in answers] == ["same", "same"]


def test_a_transcript_from_elsewhere_is_rebuilt_as_gemini_parts(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    from affordance.runtime.model.messages import (
        AssistantMessage,
        ToolCall,
        ToolResultMessage,
        UserMessage,
    )

    history = [
        UserMessage("Earlier question"),
        AssistantMessage(
            "Let me look.",
            (ToolCall("call_x", "get_weather", '{"city": "Oslo"}'),),
            ({"type": "function_call", "call_id": "call_x"},),  # another provider's item
        ),
        ToolResultMessage("call_x", "get_weather", "Oslo: cold", is_error=False),
        AssistantMessage("Oslo is cold."),
    ]
    server.script(PATH, JsonReply(google_text("Hi again.")))

    make_adapter().evaluate(prompt, messages=history)

    contents = server.requests[0].body["contents"]
    assert contents[:4] == [
        {"role": "user", "parts": [{"text": "Earlier question"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Let me look."},
                {
                    "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                    # the stand-in Google documents for a call Gemini did not make
                    "thoughtSignature": "skip_thought_signature_validator",
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get_weather",
                        "response": {"output": "Oslo: cold"},
                    }
                }
            ],
        },
        {"role": "model", "parts": [{"text": "Oslo is cold."}]},
    ]


def test_usage_counts_tool_use_prompts_as_input_and_thoughts_as_output(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    usage = usage_metadata(100, 20, thoughts=30, cached=40, tool_use_prompt=5)
    server.script(PATH, JsonReply(google_text("Hi.", thought="Thinking...", usage=usage)))

    response = make_adapter().evaluate(prompt)

    assert response.text == "Hi."  # the thought summary is not the answer
    assert response.usage == Usage(
        input_tokens=105, output_tokens=50, cached_input_tokens=40, reasoning_tokens=30
    )


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("MAX_TOKENS", "length"), ("MALFORMED_FUNCTION_CALL", "malformed_function_call")],
)
def test_finish_reasons_are_normalized(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    reason: str,
    finish: str,
) -> None:
    server.script(PATH, JsonReply(google_finish(reason, text="Partial")))

    response = make_adapter().evaluate(prompt)

    assert (response.text, response.finish_reason) == ("Partial", finish)


@pytest.mark.parametrize(
    "reason", ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]
)
def test_a_filtered_answer_is_a_content_filter_outcome_with_a_readable_refusal(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, reason: str
) -> None:
    server.script(PATH, JsonReply(google_finish(reason)))

    response = make_adapter().evaluate(prompt)

    assert response.finish_reason == "content_filter"
    assert response.text is not None
    assert response.text.startswith(f"Gemini stopped its answer ({reason})")


def test_a_blocked_prompt_is_a_content_filter_outcome_not_an_empty_text(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, mode: str
) -> None:
    blocked = google_blocked("PROHIBITED_CONTENT")
    blocked["promptFeedback"]["blockReasonMessage"] = "The prompt is not allowed."
    server.script(PATH, JsonReply(blocked))

    response = run(make_adapter(), prompt, mode)

    assert response.finish_reason == "content_filter"
    assert response.text == (
        "Gemini blocked the prompt (PROHIBITED_CONTENT): The prompt is not allowed."
    )
    assert response.usage.input_tokens == 10


def test_a_refused_structured_answer_raises_with_the_refusal(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    make_prompt: Callable[..., PromptTemplate[Any]],
) -> None:
    server.script(PATH, JsonReply(google_blocked("SAFETY")))

    with pytest.raises(PromptEvaluationError, match=r"blocked the prompt \(SAFETY\)"):
        make_adapter().evaluate(make_prompt(output_type=dict))


def test_hosted_tools_see_the_whole_candidate_as_one_plain_item(
    make_adapter: Callable[..., GoogleAdapter],
) -> None:
    from affordance.adapters import turn_from_deltas
    from affordance_google._reply import Reading
    from affordance_google._request import PreparedRequest

    text = "Paris is sunny. 6*7 is 42."
    grounding = grounding_metadata(
        ["paris weather"],
        [web_chunk("https://a.example", "a.example")],
        [grounding_support(text, 0, 15, [0])],
    )
    body = generate_response(
        [
            candidate(
                [
                    executable_code_part("print(6*7)", id="ex_1"),
                    code_execution_result_part("42\n", id="ex_1"),
                    text_part(text),
                ],
                grounding_metadata=grounding,
            )
        ]
    )
    turn = turn_from_deltas(Reading(PreparedRequest({}, {}, 1, hosted=True)).whole(body))
    plain = turn_from_deltas(Reading(PreparedRequest({}, {}, 1)).whole(body))

    parts = body["candidates"][0]["content"]["parts"]
    expected = {"content": {"role": "model", "parts": parts}, "groundingMetadata": grounding}
    assert turn.hosted_items == (expected,)
    assert type(turn.hosted_items[0]) is dict
    assert turn.provider_items == tuple(parts)
    assert turn.text == text
    assert plain.hosted_items == ()


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"candidates": "many"},
        {"candidates": [{"content": {"parts": "x"}, "finishReason": "STOP"}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "no finish reason"}]}}]},
        {"usageMetadata": {}},
    ],
)
def test_a_body_of_the_wrong_shape_is_an_unusable_response(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, body: Any
) -> None:
    server.script(PATH, JsonReply(body))

    with pytest.raises(PromptEvaluationError) as info:
        make_adapter().evaluate(prompt)

    assert (info.value.provider, info.value.phase, info.value.status) == ("google", "response", 200)
    assert info.value.raw_text


def test_arguments_that_are_not_an_object_reach_the_model_as_a_failed_call(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    odd = generate_response([candidate([{"functionCall": {"name": "get_weather", "args": [1]}}])])
    server.script(PATH, JsonReply(odd), JsonReply(google_text("Sorry.")))

    response = make_adapter().evaluate(prompt)

    (result,) = response.tool_results
    assert not result.result.success
    assert response.text == "Sorry."
    answer = server.requests[1].body["contents"][-1]["parts"][0]["functionResponse"]
    assert set(answer["response"]) == {"error"}


def test_a_given_client_serves_both_paths_and_stays_open(
    server: LoopbackServer, new_client: Callable[..., genai.Client], prompt: Any
) -> None:
    client = new_client(server)
    adapter = GoogleAdapter("gemini-test", client=client)
    server.script(PATH, JsonReply(google_text("one")), JsonReply(google_text("two")))

    async def both() -> list[str | None]:
        first = adapter.evaluate(prompt).text
        second = (await adapter.aevaluate(prompt)).text
        await adapter.aclose()
        adapter.close()
        third_client_still_usable = client.models is not None
        await client.aio.aclose()
        return [first, second, str(third_client_still_usable)]

    assert asyncio.run(both()) == ["one", "two", "True"]
    server.script(PATH, JsonReply(google_text("three")))
    assert adapter.evaluate(prompt).text == "three"  # close() left the caller's client open
    client.close()


def test_with_no_client_one_is_built_from_the_environment_and_closed(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, prompt: Any
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "from-env")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.base_url)
    server.script(PATH, JsonReply(google_text("env")), JsonReply(google_text("env async")))

    async def go() -> list[Any]:
        adapter = GoogleAdapter("gemini-test")
        first = adapter.evaluate(prompt).text
        second = (await adapter.aevaluate(prompt)).text
        same = (
            adapter.connection.clients.sync_client().aio
            is adapter.connection.clients.async_client()
        )
        await adapter.aclose()
        adapter.close()
        return [first, second, same]

    assert asyncio.run(go()) == ["env", "env async", True]
    assert {r.headers["x-goog-api-key"] for r in server.requests} == {"from-env"}


def test_without_a_key_the_environment_client_is_a_prompt_evaluation_error(
    prompt: Any,
) -> None:
    with pytest.raises(PromptEvaluationError, match="cannot build a google client") as info:
        GoogleAdapter("gemini-test").evaluate(prompt)

    assert info.value.provider == "google"


def test_a_deadline_bounds_the_http_timeout(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    server.script(PATH, JsonReply(google_text("fast")))

    make_adapter().evaluate(prompt, deadline=30.0)

    assert server.requests[0].headers["x-server-timeout"] == "30"


def test_a_deadline_never_lengthens_the_clients_own_timeout(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    server.script(PATH, JsonReply(google_text("fast")), JsonReply(google_text("fast")))

    adapter = make_adapter(client_options={"timeout": 5_000})  # milliseconds
    adapter.evaluate(prompt, deadline=30.0)
    adapter.evaluate(prompt, deadline=2.0)

    assert [r.headers["x-server-timeout"] for r in server.requests] == ["5", "2"]


def test_the_constructor_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="model"):
        GoogleAdapter("")
    with pytest.raises(ValueError, match="max_output_tokens"):
        GoogleAdapter("m", max_output_tokens=0)
    with pytest.raises(TypeError, match="client must be"):
        GoogleAdapter("m", client=object())  # type: ignore[arg-type]
