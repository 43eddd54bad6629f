"""The module-level API (default host, configure, load_adapter) and adapters' codec lookup."""

from __future__ import annotations

import pytest

import affordance.plugins
from affordance import HostedTool, PromptEvaluationError
from affordance.adapters import ProviderAdapter, ProviderModel
from affordance.plugins import (
    CodecSpec,
    HostedToolKindSpec,
    PluginHost,
    ProviderSpec,
    UnknownProviderError,
    configure,
    default_host,
    hookimpl,
    load_adapter,
    registry,
)

pytestmark = pytest.mark.usefixtures("fresh_default_host")

CODEC = """
from dataclasses import dataclass


@dataclass(frozen=True)
class Found:
    found: int


@dataclass(frozen=True)
class Config:
    pass


class Codec:
    kind = "acme_search"

    def serialize(self, tool):
        return {"type": "acme_search", "name": tool.name}

    def parse_output(self, response_items, tool):
        for item in response_items:
            if item.get("type") == "acme_search_call":
                found = item["found"]
                return found if isinstance(found, str) else Found(found)
        return None
"""

ADAPTER = """
from affordance.adapters import ProviderAdapter, ProviderModel

class AcmeModel(ProviderModel):
    name = "acme"

class AcmeAdapter(ProviderAdapter):
    name = "acme"

    def __init__(self, *, model, **options):
        super().__init__(AcmeModel(), **options)
        self.model = model
"""


class AcmePlugin:
    @hookimpl
    def affordance_register_providers(self):
        return [ProviderSpec("acme", "t_default_adapter:AcmeAdapter")]

    @hookimpl
    def affordance_register_hosted_tool_kinds(self):
        return [
            HostedToolKindSpec("acme_search", "t_default_codec:Config", "t_default_codec:Found")
        ]

    @hookimpl
    def affordance_register_codecs(self):
        return [
            CodecSpec("acme", "acme_search", "t_default_codec:Codec"),
            CodecSpec("zeta", "acme_search", "t_default_codec:Codec"),
            CodecSpec("omega", "acme_search", "t_default_codec:Codec"),
        ]


class AcmeModel(ProviderModel):
    name = "acme"


class BareModel(ProviderModel):
    name = "bare"


def acme_adapter(**options):
    return ProviderAdapter(AcmeModel(), **options)


def bare_adapter(**options):
    return ProviderAdapter(BareModel(), **options)


@pytest.fixture
def acme(fake_dists):
    fake_dists.module("t_default_codec", CODEC)
    fake_dists.module("t_default_adapter", ADAPTER)
    host = configure(autoload=False)
    host.register(AcmePlugin(), name="acme")
    return host


def search_tool():
    from t_default_codec import Config  # the registered config type

    return HostedTool(kind="acme_search", name="search", description="Search.", config=Config())


def test_the_default_host_is_created_once_and_lazily():
    host = default_host()
    assert default_host() is host
    assert isinstance(host, PluginHost)


def test_configure_replaces_the_default_host_and_keeps_code_registrations(acme):
    assert default_host() is acme
    again = configure(autoload=False, disable=["anything"])
    assert again is not acme
    assert default_host() is again
    assert again.settings.disable == frozenset({"anything"})
    assert registry().provider_names() == ("acme",)


def test_configure_rejects_a_bare_string_list(acme):
    from affordance.plugins import PluginConfigError

    with pytest.raises(PluginConfigError, match="list of names"):
        configure(disable="openai")


def test_a_misspelt_option_is_refused_everywhere_it_is_taken(acme):
    with pytest.raises(TypeError, match="unknown plugin option"):
        configure(autolaod=False)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unknown plugin option\(s\) strikt"):
        PluginHost(strikt=True)  # type: ignore[call-arg]
    assert default_host() is acme  # nothing replaced


def test_load_adapter_uses_the_default_host(acme):
    adapter = load_adapter("acme", model="acme-1")
    assert type(adapter).__name__ == "AcmeAdapter"
    assert adapter.model == "acme-1"
    with pytest.raises(UnknownProviderError, match=r"no provider named 'nope'\. Available: acme\."):
        load_adapter("nope")


def test_an_adapter_finds_its_hosted_codecs_in_the_registry(acme):
    adapter = acme_adapter()
    codec = adapter.hosted_codec("acme_search")
    assert codec.serialize(search_tool()) == {"type": "acme_search", "name": "search"}
    assert adapter.connection.require_hosted_codec(search_tool()) is codec
    outputs = adapter.parse_hosted_outputs(
        [{"type": "message"}, {"type": "acme_search_call", "found": 3}], [search_tool()]
    )
    assert {name: vars(output) for name, output in outputs.items()} == {"search": {"found": 3}}


def test_a_codec_output_not_of_the_registered_type_is_dropped_with_a_warning(acme, caplog):
    adapter = acme_adapter()
    assert adapter.hosted_output_type("acme_search").__name__ == "Found"
    assert adapter.hosted_output_type("never_registered") is None
    with caplog.at_level("WARNING", logger="affordance.hosted"):
        outputs = adapter.parse_hosted_outputs(
            [{"type": "acme_search_call", "found": "a plain string"}], [search_tool()]
        )
    assert outputs == {}
    [record] = caplog.records
    assert "returned builtins.str" in record.getMessage()
    assert "t_default_codec.Found" in record.getMessage()
    assert "a plain string" not in record.getMessage()  # metadata only


def test_an_unsupported_kind_names_the_provider_kind_and_who_supports_it(acme):
    with pytest.raises(PromptEvaluationError) as info:
        bare_adapter().connection.require_hosted_codec(search_tool(), prompt_name="research")
    error = info.value
    assert error.message == (
        "hosted tool kind 'acme_search' is not supported by provider 'bare'; "
        "providers that support it: acme, omega, zeta"
    )
    assert (error.provider, error.phase, error.prompt_name) == ("bare", "render", "research")


def test_a_kind_nobody_supports_says_so(acme):
    with pytest.raises(PromptEvaluationError, match="no installed provider supports it"):
        acme_adapter().connection.require_hosted_codec(
            HostedTool("code_interpreter", "run", "Run code.", search_tool().config)
        )


def test_the_module_exports_what_it_documents():
    for name in affordance.plugins.__all__:
        assert getattr(affordance.plugins, name) is not None
