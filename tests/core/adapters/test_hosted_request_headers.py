"""HTTP headers a hosted tool's codec asks for (``request_headers``, e.g. Anthropic's
``anthropic-beta`` for the MCP connector): joined as lists by ``HostedRequest``, carried by the
prepared request, sent by ``JsonPost`` in the request's options next to the client's own
value of the header, and refused by a transport that cannot send them."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import HostedTool, MarkdownSection, PromptEvaluationError, PromptTemplate
from affordance.adapters import HostedRequest, ModelRequest, PreparedRequest, ProviderTurn
from affordance.adapters.hosted_request import join_header_values
from affordance.adapters.retrying import RetryingTransport
from affordance.adapters.stainless import JsonPost
from affordance.adapters.wire import _headers_of
from affordance.clock import Deadline
from affordance.testing import FakeClock, ScriptedAdapter


@dataclass(frozen=True, slots=True)
class BetaConfig:
    beta: str = "feature-1"


class BetaCodec:
    kind = "beta_tool"

    def __init__(self, headers: Any = None) -> None:
        self.headers = headers

    def serialize(self, tool: HostedTool[BetaConfig]) -> dict[str, Any]:
        return {"type": "beta_tool"}

    def request_headers(self, tool: HostedTool[BetaConfig]) -> Any:
        if self.headers is not None:
            return self.headers
        return {"Anthropic-Beta": tool.config.beta}

    def parse_output(self, response_items: Sequence[Mapping[str, Any]], tool: Any) -> None:
        return None


def tool(name: str, beta: str) -> HostedTool[BetaConfig]:
    return HostedTool(kind="beta_tool", name=name, description="Beta.", config=BetaConfig(beta))


def request_of(adapter: ScriptedAdapter, *tools: HostedTool[Any]) -> ModelRequest:
    prompt = PromptTemplate(
        name="betas", sections=[MarkdownSection(title="T", template="Go.", hosted_tools=tools)]
    )
    return adapter.preview_request(prompt.render(), prompt.name)


def test_list_values_are_joined_each_entry_once_in_order() -> None:
    assert join_header_values("a, b", "b,c", "", " a ") == "a, b, c"
    assert join_header_values("") == ""


def test_the_codecs_headers_are_joined_across_tools_under_lower_case_names() -> None:
    adapter = ScriptedAdapter(codecs={"beta_tool": BetaCodec()})
    request = request_of(adapter, tool("one", "feature-1"), tool("two", "feature-2, feature-1"))

    hosted = adapter.connection.hosted_request(request)

    assert dict(hosted.headers) == {"anthropic-beta": "feature-1, feature-2"}
    assert len(hosted.declarations) == 2


def test_a_codec_without_request_headers_asks_for_none() -> None:
    combined = HostedRequest.combine([("t", {"type": "x"}, {})], provider="p")
    assert dict(combined.headers) == {}


@pytest.mark.parametrize(
    "bad", [["anthropic-beta"], {"x": 1}, {"x": "a\r\nInjected: yes"}, {"": "v"}]
)
def test_headers_that_are_no_one_line_strings_fail_naming_the_codec(bad: Any) -> None:
    adapter = ScriptedAdapter(codecs={"beta_tool": BetaCodec(bad)})
    request = request_of(adapter, tool("one", "f"))

    with pytest.raises(PromptEvaluationError, match="failed to give the request headers of"):
        adapter.connection.hosted_request(request)


def test_a_prepared_request_hands_its_headers_to_the_transport_only_when_it_has_some() -> None:
    assert _headers_of(PreparedRequest({})) == {}
    assert _headers_of(PreparedRequest({}, headers={"a": "b"})) == {"headers": {"a": "b"}}


@pytest.fixture
def http_package() -> Iterator[types.ModuleType]:
    """A stand-in for the httpx an SDK is built on: a package with ``Client`` and ``Response``."""
    package = types.ModuleType("standin_http2")

    class Client:
        pass

    class Response:
        pass

    Client.__module__ = Response.__module__ = "standin_http2._client"
    package.Client, package.Response = Client, Response  # type: ignore[attr-defined]
    sys.modules["standin_http2"] = package
    try:
        yield package
    finally:
        del sys.modules["standin_http2"]


class RecordingClient:
    """Records what ``post`` is given, like a Stainless client's."""

    max_retries = 0
    timeout = 10.0

    def __init__(self, default_headers: Mapping[str, str]) -> None:
        self.default_headers = dict(default_headers)
        self.options: list[dict[str, Any]] = []

    def post(self, path: str, *, cast_to: Any, body: Any, options: Any, stream: bool) -> str:
        self.options.append(dict(options))
        return "response"


def post(http_package: types.ModuleType) -> JsonPost:
    return JsonPost(
        "/v1/messages",
        http_client_class=http_package.Client,
        status_error=LookupError,
        connection_error=ConnectionError,
    )


def test_json_post_adds_the_headers_to_the_clients_own(http_package: types.ModuleType) -> None:
    client = RecordingClient({"Anthropic-Beta": "context-1m", "X-Api-Key": "k"})
    sender = post(http_package)

    sender.send(client, {}, headers={"anthropic-beta": "mcp-client-2025-11-20"})
    sender.send(client, {}, headers={"x-other": "1"}, retries=False)
    sender.send(client, {})
    deadline = Deadline(FakeClock().monotonic() + 30, FakeClock())
    sender.send(client, {}, deadline=deadline, headers={"anthropic-beta": "b2"})

    first, second, third, fourth = client.options
    assert first == {"headers": {"anthropic-beta": "context-1m, mcp-client-2025-11-20"}}
    assert second == {"max_retries": 0, "headers": {"x-other": "1"}}
    assert third == {}
    assert fourth["headers"] == {"anthropic-beta": "context-1m, b2"}
    assert fourth["max_retries"] == 0


def test_a_transport_that_cannot_send_headers_refuses_them_before_sending() -> None:
    transport = RetryingTransport(
        exchange=None,  # type: ignore[arg-type]  # never reached
        clients=None,  # type: ignore[arg-type]
        provider="acme",
        classify=None,  # type: ignore[arg-type]
        give_up=None,  # type: ignore[arg-type]
        policy=None,  # type: ignore[arg-type]
        clock=None,  # type: ignore[arg-type]
    )
    request = types.SimpleNamespace(prompt_name="betas")

    def parse(data: Any) -> ProviderTurn:
        return ProviderTurn()

    with pytest.raises(PromptEvaluationError, match="cannot send") as raised:
        transport.send({}, request, parse, headers={"anthropic-beta": "x"})  # type: ignore[arg-type]
    assert raised.value.phase == "render"
    with pytest.raises(PromptEvaluationError, match="cannot send"):
        next(transport.send_stream({}, request, None, headers={"a": "b"}))  # type: ignore[arg-type]
