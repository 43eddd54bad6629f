"""The request body the real SDK sends: declarations, tool choice, instructions, structured
output, options; a third-party serializer changes the wire; the path and API version."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from loopback import JsonReply, LoopbackServer, generate_path, google_text

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.plugins import PluginHost
from affordance.plugins.hookspecs import hookimpl
from affordance.plugins.specs import SerializerSpec
from affordance.runtime.model.serializers import ToolDeclaration
from affordance_google import GoogleAdapter, plugin

PATH = generate_path("gemini-test")


def first_body(
    server: LoopbackServer, adapter: GoogleAdapter, prompt: PromptTemplate[Any], **options: Any
) -> dict[str, Any]:
    server.script(PATH, JsonReply(google_text("Sunny.")))
    adapter.evaluate(prompt, **options)
    body: dict[str, Any] = server.requests[-1].body
    return body


def test_functions_go_out_as_one_tool_with_json_schema_parameters(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    body = first_body(server, make_adapter(), prompt)

    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {
                            "city": {"type": "string"},
                            "unit": {"type": "string", "description": '(default "c")'},
                        },
                        "required": ["city"],
                        "additionalProperties": False,
                    },
                },
                {
                    "name": "flaky",
                    "description": "Always fails.",
                    "parametersJsonSchema": body["tools"][0]["functionDeclarations"][0][
                        "parametersJsonSchema"
                    ],
                },
            ]
        }
    ]
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "## 1 Task\nWhat is the weather?"}]}
    ]
    assert "toolConfig" not in body
    assert "generationConfig" not in body


def test_the_adapter_shows_the_declarations_it_sends(
    make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    adapter = make_adapter()
    tools = prompt.render().tools

    (declared,) = adapter.connection.tool_declarations(tools)

    assert [d["name"] for d in declared["functionDeclarations"]] == ["get_weather", "flaky"]
    assert adapter.connection.tool_declarations(()) == []


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ("flaky", {"mode": "ANY", "allowedFunctionNames": ["flaky"]}),
        ({"mode": "VALIDATED"}, {"mode": "VALIDATED"}),
    ],
)
def test_tool_choice_becomes_the_function_calling_config(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    choice: Any,
    config: dict[str, Any],
) -> None:
    body = first_body(server, make_adapter(tool_choice=choice), prompt)

    assert body["toolConfig"] == {"functionCallingConfig": config}


def test_parallel_tool_calls_has_no_wire_form(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    body = first_body(server, make_adapter(parallel_tool_calls=False), prompt)

    assert set(body) == {"contents", "tools"}


@dataclass(frozen=True)
class Verdict:
    label: str
    score: int


def test_structured_output_asks_for_json_with_the_schema(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    make_prompt: Callable[..., PromptTemplate[Any]],
) -> None:
    server.script(PATH, JsonReply(google_text('{"label": "ok", "score": 3}')))
    adapter = make_adapter(max_output_tokens=256, temperature=0.2)

    response = adapter.evaluate(make_prompt(output_type=Verdict))

    assert response.output == Verdict("ok", 3)
    assert server.requests[0].body["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseJsonSchema": {
            "type": "object",
            "properties": {"label": {"type": "string"}, "score": {"type": "integer"}},
            "required": ["label", "score"],
            "additionalProperties": False,
        },
        "maxOutputTokens": 256,
        "temperature": 0.2,
    }


def test_extra_body_is_merged_last_object_by_object(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    make_prompt: Callable[..., PromptTemplate[Any]],
) -> None:
    thinking = {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}, "cachedContent": "c"}
    adapter = make_adapter(max_output_tokens=64, extra_body=thinking)

    body = first_body(server, adapter, make_prompt())

    assert body["generationConfig"] == {
        "maxOutputTokens": 64,
        "thinkingConfig": {"thinkingBudget": 0},
    }
    assert body["cachedContent"] == "c"


def test_instructions_go_out_as_the_system_instruction(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    adapter = make_adapter()
    rendered = PromptTemplate(
        ns="t", key="k", sections=[MarkdownSection(title="T", template="Hi.")]
    ).render()
    request = adapter.preview_request(rendered, "k")
    from dataclasses import replace

    from affordance.runtime.model.messages import UserMessage

    body = adapter.wire_request(
        replace(request, instructions="Be brief.", messages=(UserMessage("Hello"),))
    )

    assert body == {
        "contents": [{"role": "user", "parts": [{"text": "Hello"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
    }


def test_the_request_goes_to_v1beta_by_default_and_to_the_client_s_version_on_request(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    server.script(PATH, JsonReply(google_text("a")))
    server.script(generate_path("gemini-test", "v1"), JsonReply(google_text("b")))

    make_adapter().evaluate(prompt)
    make_adapter(api_version=None, client_options={"api_version": "v1"}).evaluate(prompt)

    assert [r.path for r in server.requests] == [PATH, generate_path("gemini-test", "v1")]
    assert server.requests[0].headers["x-goog-api-key"] == "test"
    server.assert_script_consumed()


def test_a_tool_name_gemini_cannot_take_is_declared_with_a_prefix_and_mapped_back(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    from loopback import google_function_calls

    seen: list[str] = []

    def render(params: Any) -> ToolResult[str]:
        seen.append("3d-render")
        return ToolResult.ok("done")

    @dataclass(frozen=True)
    class NoParams:
        pass

    tool = Tool[NoParams, str](name="3d-render", description="Render.", handler=render)
    prompt = PromptTemplate(
        ns="t", key="k", sections=[MarkdownSection(title="T", template="Go.", tools=[tool])]
    )
    server.script(
        PATH,
        JsonReply(google_function_calls([("_3d-render", {})])),
        JsonReply(google_text("Rendered.")),
    )

    response = make_adapter(tool_choice="3d-render").evaluate(prompt)

    first, second = (r.body for r in server.requests)
    assert first["tools"][0]["functionDeclarations"][0]["name"] == "_3d-render"
    assert first["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"] == ["_3d-render"]
    assert seen == ["3d-render"]
    assert response.tool_results[0].call.name == "3d-render"
    assert second["contents"][-1]["parts"][0]["functionResponse"]["name"] == "_3d-render"


class PlainNames:
    """A third-party tool serializer: no schema at all, an upper-case name."""

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        return ToolDeclaration({"name": tool.name.upper(), "description": "overridden"})


class Override:
    @hookimpl
    def affordance_register_serializers(self) -> list[SerializerSpec]:
        return [SerializerSpec("google", "tool", f"{__name__}:PlainNames", priority=10)]


def test_a_third_party_serializer_that_outranks_the_plugin_changes_the_wire(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    from loopback import google_function_calls

    host = PluginHost(autoload=False)
    host.register(plugin, name="google")
    host.register(Override(), name="override")
    server.script(
        PATH,
        JsonReply(google_function_calls([("GET_WEATHER", {"city": "Oslo"})])),
        JsonReply(google_text("Cold.")),
    )

    response = make_adapter(registry=host.registry()).evaluate(prompt)

    first = server.requests[0].body
    assert first["tools"] == [
        {
            "functionDeclarations": [
                {"name": "GET_WEATHER", "description": "overridden"},
                {"name": "FLAKY", "description": "overridden"},
            ]
        }
    ]
    assert response.tool_results[0].call.name == "get_weather"
    assert response.tool_results[0].result.success
