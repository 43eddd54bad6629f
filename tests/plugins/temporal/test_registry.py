"""``PromptRegistry``: prompts by name, each built once per process."""

from __future__ import annotations

from typing import Any

import pytest

from affordance import MarkdownSection, PromptTemplate
from affordance_temporal import PromptRegistry, UnknownPromptError


def build() -> PromptTemplate[Any]:
    return PromptTemplate(sections=[MarkdownSection(title="A", template="a")], name="a")


def test_a_prompt_is_built_once_on_first_use() -> None:
    built: list[int] = []

    def factory() -> PromptTemplate[Any]:
        built.append(1)
        return build()

    registry = PromptRegistry({"a": factory})

    assert registry.prompt("a") is registry.prompt("a")
    assert built == [1]
    assert "a" in registry
    assert list(registry) == ["a"]


def test_an_unknown_name_says_which_names_exist() -> None:
    registry = PromptRegistry({"a": build})

    with pytest.raises(UnknownPromptError, match=r"no prompt 'b' .*registered: a"):
        registry.prompt("b")


def test_a_name_is_registered_once_and_a_factory_must_build_a_prompt() -> None:
    registry = PromptRegistry()

    @registry.register("a")
    def first() -> PromptTemplate[Any]:
        return build()

    with pytest.raises(ValueError, match="already registered"):
        registry.add("a", build)
    registry.add("broken", lambda: "not a prompt")  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="not a PromptTemplate"):
        registry.build_all()


def test_tools_include_the_builtin_open_sections_for_decoding_results() -> None:
    registry = PromptRegistry({"a": build})

    assert list(registry.tools("a")) == ["open_sections"]


def test_the_factories_modules_are_what_the_sandbox_passes_through() -> None:
    assert PromptRegistry({"a": build}).modules() == (__name__.split(".")[0],)
