"""A hosted-tool plugin registered in code (not installed) whose codecs ask for request extras:
what they ask for reaches the OpenAI Responses body — the real SDK over HTTP to the loopback
server — merged by the core's rule with the first-party codecs' own, and conflicts fail before
any request. The rule itself is tested offline in ``tests/core/adapters/test_hosted_request.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("affordance_openai", reason="needs the OpenAI plugin and its SDK")
pytest.importorskip("affordance_web_search", reason="needs the web-search plugin")

import openai
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    LoopbackServer,
    chat_text,
    message_item,
    openai_server,
    output_text_part,
    response,
    response_text,
    responses_stream,
)

import affordance_openai.plugin
import affordance_web_search.plugin
from affordance import HostedTool, MarkdownSection, PromptTemplate
from affordance.errors import RequestExtrasConflictError
from affordance.plugins import PluginHost
from affordance_openai import OpenAIAdapter
from affordance_web_search import web_search_tool

FILE_SEARCH_PLUGIN = '''
from dataclasses import dataclass

from affordance.plugins import CodecSpec, HostedToolKindSpec, hookimpl


@dataclass(frozen=True, slots=True)
class FileSearchConfig:
    vector_store_ids: tuple[str, ...] = ()
    store: bool | None = None  # a search whose results must (not) be kept with the response


@dataclass(frozen=True, slots=True)
class FileSearchResult:
    file_ids: tuple[str, ...]


class FileSearchCodec:
    """Responses sends a file search's results only when the request includes them."""

    kind = "file_search"

    def serialize(self, tool):
        return {"type": "file_search", "vector_store_ids": list(tool.config.vector_store_ids)}

    def request_extras(self, tool):
        extras = {"include": ["file_search_call.results"]}
        if tool.config.store is not None:
            extras["store"] = tool.config.store
        return extras

    def parse_output(self, response_items, tool):
        calls = [i for i in response_items if i.get("type") == "file_search_call"]
        if not calls:
            return None
        return FileSearchResult(
            tuple(r["file_id"] for c in calls for r in c.get("results") or ())
        )


class VaultSearchCodec(FileSearchCodec):
    """A zero-retention search: its responses must not be stored."""

    kind = "vault_search"

    def request_extras(self, tool):
        return {"include": ["file_search_call.results"], "store": False}


class ModelPickingCodec(FileSearchCodec):
    kind = "cheap_search"

    def request_extras(self, tool):
        return {"model": "gpt-cheaper"}


@hookimpl
def affordance_register_hosted_tool_kinds():
    return [
        HostedToolKindSpec(kind, config="file_search_plugin:FileSearchConfig",
                           output="file_search_plugin:FileSearchResult")
        for kind in ("file_search", "vault_search", "cheap_search")
    ]


@hookimpl
def affordance_register_codecs():
    return [
        CodecSpec("openai", "file_search", "file_search_plugin:FileSearchCodec"),
        CodecSpec("openai", "vault_search", "file_search_plugin:VaultSearchCodec"),
        CodecSpec("openai", "cheap_search", "file_search_plugin:ModelPickingCodec"),
    ]
'''

RESULTS = {
    "type": "file_search_call",
    "id": "fs_1",
    "status": "completed",
    "queries": ["refund policy"],
    "results": [{"file_id": "file-a", "filename": "policy.md", "score": 0.9, "text": "..."}],
}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


@pytest.fixture
def plugins(fake_dists: Any, plugin_host: PluginHost) -> Any:
    """The file-search plugin registered in code beside the OpenAI and web-search plugins; its
    module (its codecs are named by dotted path) written onto ``sys.path``."""
    fake_dists.module("file_search_plugin", FILE_SEARCH_PLUGIN)
    plugin_host.register(importlib.import_module("file_search_plugin"), name="file-search")
    plugin_host.register(affordance_openai.plugin, name="openai")
    plugin_host.register(affordance_web_search.plugin, name="web-search")
    return importlib.import_module("file_search_plugin")


def adapter(host: PluginHost, server: LoopbackServer, **options: Any) -> OpenAIAdapter:
    client = openai.OpenAI(
        base_url=server.base_url,
        api_key="test",
        max_retries=0,
        http_client=openai.DefaultHttpxClient(verify=False),
    )
    made = host.registry().load_adapter(
        "openai", model="gpt-test", client=client, close_clients=True, **options
    )
    assert isinstance(made, OpenAIAdapter)
    return made


def prompt(*hosted: HostedTool[Any]) -> PromptTemplate[Any]:
    section = MarkdownSection(title="Task", template="Find it.", hosted_tools=list(hosted))
    return PromptTemplate(ns="extras", key="search", sections=[section])


def file_search(plugins: Any, name: str = "files", **config: Any) -> HostedTool[Any]:
    kind = config.pop("kind", "file_search")
    return HostedTool(kind, name, "Search the files.", plugins.FileSearchConfig(**config))


def test_a_codecs_include_reaches_the_responses_body_plain_and_streamed(
    plugins: Any, plugin_host: PluginHost, server: LoopbackServer
) -> None:
    answer = response([RESULTS, message_item(output_text_part("Refunds take 5 days."))])
    server.script(RESPONSES_PATH, answer, responses_stream(answer))
    files = file_search(plugins, vector_store_ids=("vs_1",))

    with adapter(plugin_host, server) as openai_adapter:
        plain = openai_adapter.evaluate(prompt(files))
        with openai_adapter.stream(prompt(files)) as events:
            list(events)

    for request in server.requests:
        assert request.body["tools"] == [{"type": "file_search", "vector_store_ids": ["vs_1"]}]
        assert request.body["include"] == ["file_search_call.results"]
        assert list(request.body)[:4] == ["model", "input", "include", "tools"]
    assert plain.hosted_outputs["files"] == plugins.FileSearchResult(("file-a",))
    assert events.response.hosted_outputs == plain.hosted_outputs


def test_includes_of_several_codecs_are_joined_in_tool_order_without_duplicates(
    plugins: Any, plugin_host: PluginHost, server: LoopbackServer
) -> None:
    server.script(RESPONSES_PATH, response_text("Found."))
    tools = (web_search_tool(), file_search(plugins), file_search(plugins, "more_files"))

    with adapter(plugin_host, server) as openai_adapter:
        openai_adapter.evaluate(prompt(*tools))

    assert server.requests[0].body["include"] == [
        "web_search_call.action.sources",
        "file_search_call.results",
    ]


def test_the_callers_include_in_extra_body_still_replaces_the_codecs(
    plugins: Any, plugin_host: PluginHost, server: LoopbackServer
) -> None:
    server.script(RESPONSES_PATH, response_text("Found."))
    own = {"include": ["message.output_text.logprobs"]}

    with adapter(plugin_host, server, extra_body=own) as openai_adapter:
        openai_adapter.evaluate(prompt(file_search(plugins)))

    assert server.requests[0].body["include"] == ["message.output_text.logprobs"]


def test_two_codecs_asking_for_different_scalars_fail_naming_both_before_any_request(
    plugins: Any, plugin_host: PluginHost, server: LoopbackServer
) -> None:
    kept = file_search(plugins, "kept_files", store=True)
    vault = file_search(plugins, "vault", kind="vault_search")

    with adapter(plugin_host, server) as openai_adapter:
        with pytest.raises(RequestExtrasConflictError) as raised:
            openai_adapter.evaluate(prompt(kept, vault))
        with (
            pytest.raises(RequestExtrasConflictError),
            openai_adapter.stream(prompt(kept, vault)) as events,
        ):
            list(events)  # a stream builds its request when iterated

    error = raised.value
    assert (error.field, error.tool_names, error.provider, error.phase) == (
        "store",
        ("kept_files", "vault"),
        "openai",
        "render",
    )
    assert (
        "hosted tools 'kept_files' and 'vault' ask for different values of request field "
        "'store' (True and False)"
    ) in str(error)
    assert server.requests == ()


def test_a_codec_cannot_set_a_field_the_adapter_builds(
    plugins: Any, plugin_host: PluginHost, server: LoopbackServer
) -> None:
    cheap = file_search(plugins, "cheap", kind="cheap_search")

    with (
        adapter(plugin_host, server) as openai_adapter,
        pytest.raises(RequestExtrasConflictError) as raised,
    ):
        openai_adapter.evaluate(prompt(cheap))

    assert (raised.value.field, raised.value.tool_names) == ("model", ("cheap",))
    assert "hosted tool 'cheap' asks for request field 'model', which the adapter" in str(
        raised.value
    )
    assert server.requests == ()


def test_the_chat_api_gets_none_of_the_responses_codecs_extras(
    plugins: Any, plugin_host: PluginHost, server: LoopbackServer
) -> None:
    server.script(CHAT_COMPLETIONS_PATH, chat_text("Sunny."))

    with adapter(plugin_host, server, api="chat") as openai_adapter:
        openai_adapter.evaluate(prompt(web_search_tool()))

    body = server.requests[0].body
    assert body["web_search_options"] == {}  # the openai-chat codec's declaration
    assert "include" not in body
