"""HostedTool construction rules (seed 003)."""

from dataclasses import dataclass

import pytest

from affordance import (
    HostedTool,
    HostedToolConfig,
    PromptEvaluationError,
    PromptValidationError,
    UnsupportedHostedConfigError,
)
from affordance.tools.hosted import config_as, refuse_unhonoured


@dataclass(frozen=True, slots=True)
class SearchConfig:
    live: bool = True


@dataclass
class MutableConfig:
    live: bool = True


def test_valid_hosted_tool():
    tool = HostedTool(
        kind="web_search", name="web_search", description=" Search. ", config=SearchConfig()
    )
    assert tool.description == "Search."
    assert isinstance(tool.config, HostedToolConfig)


@pytest.mark.parametrize("name", ["Web", "", "x" * 65])
def test_hosted_tool_names_follow_the_tool_rule(name):
    with pytest.raises(PromptValidationError, match="name"):
        HostedTool(kind="web_search", name=name, description="Search.", config=SearchConfig())


@pytest.mark.parametrize("kind", ["", "Web", "web-search", "9search"])
def test_hosted_tool_kinds_are_identifiers(kind):
    with pytest.raises(PromptValidationError, match="kind"):
        HostedTool(kind=kind, name="search", description="Search.", config=SearchConfig())


@pytest.mark.parametrize("description", ["", "é", "x" * 201])
def test_hosted_tool_descriptions_follow_the_tool_rule(description):
    with pytest.raises(PromptValidationError, match="description"):
        HostedTool(kind="web_search", name="s", description=description, config=SearchConfig())


@pytest.mark.parametrize("config", [MutableConfig(), {"live": True}, SearchConfig])
def test_config_must_be_a_frozen_dataclass_instance(config):
    with pytest.raises(PromptValidationError, match="frozen dataclass"):
        HostedTool(kind="web_search", name="s", description="Search.", config=config)


class UnsupportedSearchError(UnsupportedHostedConfigError):
    pass


def _search_tool() -> HostedTool[SearchConfig]:
    return HostedTool(
        kind="web_search", name="search", description="Search.", config=SearchConfig()
    )


def test_a_codec_refuses_the_first_setting_its_provider_does_not_honour():
    with pytest.raises(UnsupportedSearchError) as info:
        refuse_unhonoured(
            _search_tool(),
            ("geo_hint", "max_uses", "context_size"),
            provider="acme",
            honours=("geo_hint",),
            error=UnsupportedSearchError,
        )

    error = info.value
    assert isinstance(error, PromptEvaluationError)
    assert (error.field, error.provider, error.tool_name, error.phase) == (
        "max_uses",
        "acme",
        "search",
        "render",
    )
    assert "web search tool 'search' sets max_uses" in str(error)
    assert "it honours: geo_hint" in str(error)


def test_settings_the_provider_honours_pass():
    refuse_unhonoured(_search_tool(), ("geo_hint",), provider="acme", honours=("geo_hint",))
    refuse_unhonoured(_search_tool(), (), provider="acme", honours=())


def test_a_codec_reads_only_its_own_config_type():
    @dataclass(frozen=True)
    class OtherConfig:
        pass

    foreign = HostedTool(
        kind="web_search", name="search", description="Search.", config=OtherConfig()
    )

    assert config_as(_search_tool(), SearchConfig) == SearchConfig()
    with pytest.raises(TypeError, match=r"OtherConfig config; the codecs of \S+ read SearchConfig"):
        config_as(foreign, SearchConfig)
