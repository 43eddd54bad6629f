"""HostedTool construction rules (seed 003)."""

from dataclasses import dataclass

import pytest

from affordance import HostedTool, HostedToolConfig, PromptValidationError


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
