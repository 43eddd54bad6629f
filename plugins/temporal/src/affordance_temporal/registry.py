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
from affordance.prompt import open_sections_tool

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
    renders (an MCP server's). The workflow renders the prompt itself, deterministically and
    without I/O, so it cannot ask a server; refusing when the prompt is built beats a workflow
    task that fails and is retried forever."""

    def __init__(self, name: str, sections: tuple[str, ...]) -> None:
        super().__init__(
            f"prompt {name!r} cannot run durably: its section(s) {', '.join(sections)} list "
            "their tools from a server when the prompt renders, and a workflow renders without "
            "I/O; run it with evaluate/aevaluate, or declare those tools locally"
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
                listed = tuple(
                    ".".join(path)
                    for path in built.section_paths()
                    if getattr(built.section(path), "tools_listed_at_render", False)
                )
                if listed:
                    raise UnsupportedPromptError(name, listed)
                self._built[name] = built
        return built

    def tools(self, name: str) -> Mapping[str, Tool[Any, Any]]:
        """Every tool the prompt declares (enabled or not) and the builtin ``open_sections``,
        by name: what a result or a pending call can be decoded against."""
        found = self._tools.get(name)
        if found is None:
            prompt = self.prompt(name)
            found = {tool.name: tool for tool in prompt.tools()}
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
