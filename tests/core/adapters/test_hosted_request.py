"""Request extras: the fields hosted-tool codecs ask for besides their declarations, combined by
one rule for every provider (``affordance.adapters.hosted_request``) and collected by
``ProviderAdapter.hosted_request``. The OpenAI wire is checked end to end in
``tests/core/plugins/test_request_extras.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import HostedTool, PromptEvaluationError, PromptTemplate, Section
from affordance.adapters import ModelRequest
from affordance.adapters.hosted_request import HostedRequest
from affordance.errors import RequestExtrasConflictError
from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import ScriptedAdapter


def combine(*declared: tuple[str, Mapping[str, Any]]) -> HostedRequest:
    return HostedRequest.combine(
        [(name, {"type": name}, extras) for name, extras in declared], provider="acme"
    )


def test_lists_are_concatenated_in_tool_order_without_duplicates() -> None:
    hosted = combine(
        ("search", {"include": ["search_call.sources", "search_call.sources"]}),
        ("files", {"include": ("files_call.results", {"of": "files"})}),
        ("search_again", {"include": ["search_call.sources", {"of": "files"}]}),
    )

    assert hosted.extras == {
        "include": ["search_call.sources", "files_call.results", {"of": "files"}]
    }
    assert hosted.asked_by == {"include": ("search", "files", "search_again")}
    assert hosted.declarations == ({"type": "search"}, {"type": "files"}, {"type": "search_again"})


def test_a_value_several_codecs_agree_on_is_taken_once() -> None:
    hosted = combine(("a", {"store": True, "truncation": "auto"}), ("b", {"store": True}))

    assert hosted.extras == {"store": True, "truncation": "auto"}
    assert hosted.asked_by == {"store": ("a", "b"), "truncation": ("a",)}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (True, False),
        ({"mode": "fast"}, {"mode": "deep"}),
        (["x.results"], "x.results"),  # a list and a scalar: not one list
        (1, True),  # equal in Python, not on the wire
    ],
)
def test_two_codecs_asking_for_different_values_is_an_error_naming_both_tools(
    first: Any, second: Any
) -> None:
    with pytest.raises(RequestExtrasConflictError) as raised:
        HostedRequest.combine(
            [("vault", {}, {"store": first}), ("files", {}, {"store": second})],
            provider="openai",
            prompt_name="research",
        )

    error = raised.value
    assert isinstance(error, PromptEvaluationError)
    assert (error.field, error.tool_names, error.provider, error.phase, error.prompt_name) == (
        "store",
        ("vault", "files"),
        "openai",
        "render",
        "research",
    )
    assert "hosted tools 'vault' and 'files' ask for different values of request field 'store'" in (
        str(error)
    )


def test_the_extras_go_where_the_adapter_merges_them() -> None:
    hosted = combine(("search", {"include": ["search_call.sources"]}))
    body: dict[str, Any] = {"model": "m", "input": []}

    hosted.merge_into(body, built=("model", "input", "tools"))
    body["tools"] = []

    assert list(body) == ["model", "input", "include", "tools"]
    assert body["include"] == ["search_call.sources"]
    assert body["include"] is not hosted.extras["include"]  # the body owns its copy


@pytest.mark.parametrize(
    ("body", "built"),
    [({"model": "m"}, ("model", "tools")), ({"model": "m", "web_search_options": {}}, ())],
    ids=["a field the adapter builds", "a field already in the body"],
)
def test_a_codec_cannot_replace_a_field_of_the_adapter(
    body: dict[str, Any], built: tuple[str, ...]
) -> None:
    field = "tools" if built else "web_search_options"
    hosted = combine(("rogue", {field: "mine"}), ("rogue_too", {field: "mine"}))
    before = dict(body)

    with pytest.raises(RequestExtrasConflictError) as raised:
        hosted.merge_into(body, built=built)

    assert (raised.value.field, raised.value.tool_names) == (field, ("rogue", "rogue_too"))
    assert f"hosted tools 'rogue' and 'rogue_too' ask for request field {field!r}" in str(
        raised.value
    )
    assert body == before


# -- collected through ProviderAdapter.hosted_request --------------------------------------------


@dataclass(frozen=True, slots=True)
class FilesConfig:
    store: bool | None = None


@dataclass(frozen=True, slots=True)
class FilesResult:
    ids: tuple[str, ...]


class PlainCodec:
    """A codec written before request extras: no ``request_extras`` at all."""

    kind = "file_search"

    def serialize(self, tool: HostedTool[FilesConfig]) -> dict[str, Any]:
        return {"type": "file_search"}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[FilesConfig]
    ) -> FilesResult | None:
        return None


class FilesCodec(PlainCodec):
    def request_extras(self, tool: HostedTool[FilesConfig]) -> Mapping[str, Any]:
        extras: dict[str, Any] = {"include": ["file_search_call.results"]}
        if tool.config.store is not None:
            extras["store"] = tool.config.store
        return extras


class Wire(ScriptedAdapter):
    """Builds what a provider plugin builds first: the hosted part of the request."""

    def __init__(self, codec: Any) -> None:
        super().__init__([ProviderTurn(text="done")], codecs={"file_search": codec})
        self.built: list[HostedRequest] = []

    def send(self, request: ModelRequest) -> ProviderTurn:
        self.built.append(self.connection.hosted_request(request))
        return super().send(request)


def files(name: str = "files", store: bool | None = None) -> HostedTool[FilesConfig]:
    return HostedTool("file_search", name, "Search the files.", FilesConfig(store))


def prompt(*tools: HostedTool[Any]) -> PromptTemplate[Any]:
    return PromptTemplate(sections=[Section(title="Research", hosted_tools=list(tools))])


def test_the_adapter_collects_each_codecs_extras_with_its_declaration() -> None:
    adapter = Wire(FilesCodec())

    adapter.evaluate(prompt(files("files"), files("archive", store=True)))

    (hosted,) = adapter.built
    assert hosted.declarations == ({"type": "file_search"}, {"type": "file_search"})
    assert hosted.extras == {"include": ["file_search_call.results"], "store": True}
    assert hosted.provider == "scripted"
    assert adapter.connection.hosted_declarations(adapter.requests[0]) == list(hosted.declarations)


def test_a_codec_without_request_extras_asks_for_nothing() -> None:
    adapter = Wire(PlainCodec())

    adapter.evaluate(prompt(files()))

    assert adapter.built[0].extras == {}
    assert adapter.built[0].declarations == ({"type": "file_search"},)


def test_conflicting_extras_are_an_error_before_any_request() -> None:
    adapter = Wire(FilesCodec())

    with pytest.raises(RequestExtrasConflictError) as raised:
        adapter.evaluate(prompt(files("kept", store=True), files("private", store=False)))

    assert raised.value.tool_names == ("kept", "private")
    assert adapter.requests == []


class BrokenExtras(FilesCodec):
    def request_extras(self, tool: HostedTool[FilesConfig]) -> Mapping[str, Any]:
        raise SystemExit("a codec bug")


class ListExtras(FilesCodec):
    def request_extras(self, tool: HostedTool[FilesConfig]) -> Any:
        return ["file_search_call.results"]


@pytest.mark.parametrize(
    ("codec", "reason"),
    [
        (BrokenExtras(), "SystemExit: a codec bug"),
        (ListExtras(), "TypeError: request_extras returned list, not a mapping"),
    ],
)
def test_a_codec_failing_to_give_its_extras_is_an_error_naming_it_before_any_request(
    codec: FilesCodec, reason: str
) -> None:
    adapter = Wire(codec)

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt(files()))

    message = str(raised.value)
    assert (
        "the 'file_search' codec for provider 'scripted' failed to give the request extras of "
        "hosted tool 'files'"
    ) in message
    assert reason in message
    assert raised.value.phase == "render"
    assert adapter.requests == []


class AskingCodec:
    """Asks for what it is given: ``extras`` and ``headers`` as they are."""

    kind = "file_search"

    def __init__(self, extras: Any, headers: Any) -> None:
        self.extras, self.headers = extras, headers

    def request_extras(self, tool: HostedTool[Any]) -> Any:
        return self.extras

    def request_headers(self, tool: HostedTool[Any]) -> Any:
        return self.headers


def test_what_one_codec_asks_for_is_a_copy_checked_before_it_is_combined() -> None:
    from affordance.adapters.hosted_request import codec_extras, codec_headers

    asked = {"include": ["file_search_call.results"]}
    codec = AskingCodec(asked, {"X-Beta": "files-1"})
    tool = files()

    extras = codec_extras(codec, tool)  # type: ignore[arg-type]
    extras["include"].append("changed")

    assert asked == {"include": ["file_search_call.results"]}  # the body never shares it
    assert codec_headers(codec, tool) == {"X-Beta": "files-1"}  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="request_extras returned list"):
        codec_extras(AskingCodec(["store"], {}), tool)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="one-line values"):
        codec_headers(AskingCodec({}, {"X-Beta": "a\r\nb"}), tool)  # type: ignore[arg-type]
