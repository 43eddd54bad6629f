"""The walkthrough's hosted tool kind (``walkthroughs.file_search``) passes the codec and plugin
contracts of affordance-testing, and works end to end: through the real OpenAI adapter and SDK
over the loopback server, its output is a ``FileSearchResult``."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from walkthroughs.file_search.config import FileSearchConfig
from walkthroughs.file_search.openai_responses import OpenAIFileSearchCodec
from walkthroughs.file_search.plugin import file_search_tool
from walkthroughs.file_search.result import FileHit, FileSearchResult

from affordance.plugins import PluginHost
from affordance.prompt import MarkdownSection, PromptTemplate
from affordance.tools import HostedTool
from affordance_testing.codec_contract import CodecContract
from affordance_testing.plugin_contract import PluginContract

SEARCH_CALL = {
    "type": "file_search_call",
    "id": "fs_1",
    "status": "completed",
    "queries": ["refund policy"],
    "results": [
        {"file_id": "file_a", "filename": "terms.md", "score": 0.41, "text": "Refunds..."},
        {"file_id": "file_b", "filename": "faq.md", "score": 0.93, "text": "Within 30 days."},
    ],
}


class TestFileSearchCodec(CodecContract):
    @pytest.fixture
    def codec(self) -> OpenAIFileSearchCodec:
        return OpenAIFileSearchCodec()

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[FileSearchConfig]:
        return file_search_tool(FileSearchConfig(("vs_1",), max_results=5))

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [SEARCH_CALL]

    @pytest.fixture
    def output_type(self) -> type[Any]:
        return FileSearchResult  # not installed here, so no registry knows the kind


class TestFileSearchPlugin(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "walkthroughs.file_search.plugin"


def test_the_hits_come_best_first_with_the_queries() -> None:
    tool = file_search_tool(FileSearchConfig(("vs_1",)))

    result = OpenAIFileSearchCodec().parse_output([SEARCH_CALL], tool)

    assert result == FileSearchResult(
        ("refund policy",),
        (
            FileHit("file_b", "faq.md", 0.93, "Within 30 days."),
            FileHit("file_a", "terms.md", 0.41, "Refunds..."),
        ),
    )


def test_a_config_without_a_vector_store_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one vector store"):
        FileSearchConfig(())


@pytest.fixture
def openai_server() -> Iterator[Any]:
    loopback = pytest.importorskip("loopback")  # the OpenAI fake of this repository's tests
    with loopback.openai_server() as server:
        yield server


def test_the_openai_adapter_reads_the_search_as_a_file_search_result(openai_server: Any) -> None:
    openai = pytest.importorskip("openai")
    affordance_openai = pytest.importorskip("affordance_openai")
    import loopback
    from walkthroughs.file_search import plugin
    from walkthroughs.file_search.section import FileSearchSection

    host = PluginHost(autoload=False)  # the kind registered as its entry point would
    host.register(plugin, name="file-search")
    host.register(importlib.import_module("affordance_openai.plugin"), name="openai")
    answer = loopback.message_item(loopback.output_text_part("Within 30 days of purchase."))
    openai_server.script(loopback.RESPONSES_PATH, loopback.response([SEARCH_CALL, answer]))
    prompt = PromptTemplate(
        name="refunds",
        sections=[
            MarkdownSection(title="Task", template="What is the refund policy?"),
            FileSearchSection(FileSearchConfig(("vs_1",), max_results=5)),
        ],
    )
    client = openai.OpenAI(base_url=openai_server.base_url, api_key="test", max_retries=0)

    with affordance_openai.OpenAIAdapter(
        "gpt-test", client=client, api="responses", registry=host.registry(), close_clients=True
    ) as adapter:
        response = adapter.evaluate(prompt)

    assert response.text == "Within 30 days of purchase."
    result = response.hosted_outputs["file_search"]
    assert isinstance(result, FileSearchResult)
    assert [hit.file_id for hit in result.hits] == ["file_b", "file_a"]
    (request,) = openai_server.requests
    assert request.body["include"] == ["file_search_call.results"]
    declared = {"type": "file_search", "vector_store_ids": ["vs_1"], "max_num_results": 5}
    assert declared in request.body["tools"]
