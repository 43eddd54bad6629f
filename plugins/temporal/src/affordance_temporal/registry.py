"""``PromptRegistry``: prompts by name, built the same way in every process of a deployment.

A prompt cannot cross a process boundary (its tools carry handlers), so a durable run names
its prompt instead. The client, the workflow and every worker hold a registry built by the
same code; each looks the name up and builds the same ``PromptTemplate`` locally.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from affordance import PromptTemplate, Tool
from affordance.prompt import Section, open_sections_tool

__all__ = ["PromptFactory", "PromptRegistry", "UnknownPromptError", "UnsupportedPromptError"]

PromptFactory = Callable[[], PromptTemplate[Any]]
FactoryT = TypeVar("FactoryT", bound=PromptFactory)


class UnknownPromptError(LookupError):
    """A durable run named a prompt this process's registry does not hold."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        listed = ", ".join(known) or "none"
        super().__init__(
            f"no prompt {name!r} in the prompt registry (registered: {listed}); every client "
            "and worker of a deployment must build the same registry"
        )
        self.name = name


class UnsupportedPromptError(TypeError):
    """A registered prompt cannot run durably: it has sections whose tools are listed when it
    renders and that cannot give that listing ahead (they do not implement
    ``Section.tools_listing`` and ``Section.listed``, as ``MCPSection`` does). The workflow
    renders the prompt itself, without I/O, from a listing an activity fetched; refusing when
    the prompt is built beats a workflow task that fails and is retried forever."""

    def __init__(self, name: str, sections: tuple[str, ...]) -> None:
        super().__init__(
            f"prompt {name!r} cannot run durably: its section(s) {', '.join(sections)} list "
            "their tools when the prompt renders but do not implement Section.tools_listing "
            "and Section.listed, and a workflow renders without I/O; run it with "
            "evaluate/aevaluate, implement them, or declare those tools locally"
        )
        self.name = name
        self.sections = sections


class PromptRegistry:
    """Names mapped to prompt factories; each prompt is built once per process, on first use.

    ``registry.add("support.agent", build_agent_prompt)`` or ``@registry.register("name")``.
    The names are the registry's own: they need not equal ``PromptTemplate.name``.
    """

    def __init__(self, prompts: Mapping[str, PromptFactory] | None = None) -> None:
        self._factories: dict[str, PromptFactory] = {}
        self._built: dict[str, PromptTemplate[Any]] = {}
        self._tools: dict[str, dict[str, Tool[Any, Any]]] = {}
        self._lock = threading.Lock()
        for name, factory in (prompts or {}).items():
            self.add(name, factory)

    def __repr__(self) -> str:
        return f"PromptRegistry({', '.join(self._factories)})"

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._factories))

    def add(self, name: str, factory: PromptFactory) -> None:
        if not name:
            raise ValueError(f"a prompt registry name must be a non-empty string, got {name!r}")
        if not callable(factory):
            raise TypeError(f"the factory of prompt {name!r} must be callable, got {factory!r}")
        with self._lock:
            if name in self._factories:
                raise ValueError(f"prompt {name!r} is already registered")
            self._factories[name] = factory

    def register(self, name: str) -> Callable[[FactoryT], FactoryT]:
        """Decorator form of :meth:`add`."""

        def decorate(factory: FactoryT) -> FactoryT:
            self.add(name, factory)
            return factory

        return decorate

    def prompt(self, name: str) -> PromptTemplate[Any]:
        """The prompt registered as ``name``, built on first use and kept."""
        built = self._built.get(name)
        if built is not None:
            return built
        with self._lock:
            built = self._built.get(name)
            if built is None:
                factory = self._factories.get(name)
                if factory is None:
                    raise UnknownPromptError(name, tuple(self._factories))
                built = factory()
                if not isinstance(built, PromptTemplate):
                    raise TypeError(
                        f"the factory of prompt {name!r} returned {type(built).__qualname__}, "
                        "not a PromptTemplate"
                    )
                unlisted = tuple(
                    ".".join(path)
                    for path in built.listed_section_paths()
                    if not _lists_ahead(built.section(path))
                )
                if unlisted:
                    raise UnsupportedPromptError(name, unlisted)
                self._built[name] = built
        return built

    def tools(self, name: str) -> Mapping[str, Tool[Any, Any]]:
        """Every tool the prompt declares (enabled or not) and the builtin ``open_sections``,
        by name: what a result or a pending call can be decoded against. Not the tools of
        sections that list them at render (asking would connect to their servers from the
        client): their results and params come back as data."""
        found = self._tools.get(name)
        if found is None:
            prompt = self.prompt(name)
            listed = set(prompt.listed_section_paths())
            found = {
                tool.name: tool
                for path in prompt.section_paths()
                if path not in listed
                for tool in _section_tools(prompt, path)
            }
            builtin = open_sections_tool()
            found.setdefault(builtin.name, builtin)
            self._tools[name] = found
        return found

    def modules(self) -> tuple[str, ...]:
        """The top-level packages of the factories: the workflow sandbox passes them through."""
        found = {getattr(f, "__module__", None) or "" for f in self._factories.values()}
        return tuple(sorted({name.split(".")[0] for name in found if name}))

    def build_all(self) -> None:
        """Build every prompt now: a worker calls it at start, so a broken factory fails the
        worker instead of a run, and no prompt is first built inside a workflow task."""
        for name in tuple(self._factories):
            self.prompt(name)


def _lists_ahead(section: Section[Any] | None) -> bool:
    """Does ``section`` implement the seam a workflow renders it through (its listing taken
    by an activity, then rendered fixed)?"""
    if section is None:
        return False
    kind = type(section)
    return kind.tools_listing is not Section.tools_listing and kind.listed is not Section.listed


def _section_tools(
    prompt: PromptTemplate[Any], path: tuple[str, ...]
) -> tuple[Tool[Any, Any], ...]:
    section = prompt.section(path)
    return () if section is None else section.tools()
