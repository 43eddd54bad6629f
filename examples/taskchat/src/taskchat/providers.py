"""Choosing the model: the offline responder by default, or a provider plugin by name."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from affordance import Evaluator, ToolExecutor
from affordance.plugins import PluginError, UnknownProviderError, load_adapter
from taskchat.offline import offline_adapter

__all__ = ["PROVIDERS", "ProviderSetupError", "build_adapter"]


@dataclass(frozen=True, slots=True)
class _Provider:
    plugin: str  # the distribution to install
    key_variables: tuple[str, ...]  # any one of them holds the API key
    default_model: str


PROVIDERS: Mapping[str, _Provider | None] = {
    "scripted": None,  # the offline rule-based model; needs nothing
    "openai": _Provider("affordance-openai", ("OPENAI_API_KEY",), "gpt-4.1-mini"),
    "anthropic": _Provider("affordance-anthropic", ("ANTHROPIC_API_KEY",), "claude-sonnet-4-5"),
    "google": _Provider(
        "affordance-google", ("GOOGLE_API_KEY", "GEMINI_API_KEY"), "gemini-2.5-flash"
    ),
}


class ProviderSetupError(Exception):
    """The chosen provider (or ``--temporal``'s plugin) cannot be used here; the message says
    what to install or set."""


def build_adapter(
    name: str,
    *,
    model: str | None = None,
    executor: ToolExecutor | None = None,
    environ: Mapping[str, str] = os.environ,
    offline_pace: float = 0.0,
) -> Evaluator:
    """The adapter for ``--provider name``, or a :class:`ProviderSetupError` saying why not.

    ``offline_pace`` is the offline model's wait after each streamed piece."""
    if name not in PROVIDERS:
        raise ProviderSetupError(f"unknown provider {name!r}; choose one of {', '.join(PROVIDERS)}")
    provider = PROVIDERS[name]
    if provider is None:
        return offline_adapter(executor, pace=offline_pace)
    try:
        adapter = load_adapter(name, model=model or provider.default_model, executor=executor)
    except UnknownProviderError:
        raise ProviderSetupError(
            f"--provider {name} needs the {provider.plugin} plugin, which is not installed "
            f"(pip install {provider.plugin})"
        ) from None
    except PluginError as error:
        raise ProviderSetupError(
            f"--provider {name}: the {provider.plugin} plugin cannot be used: {error}"
        ) from None
    if not any(environ.get(variable) for variable in provider.key_variables):
        raise ProviderSetupError(
            f"--provider {name} needs an API key: set {' or '.join(provider.key_variables)}"
        )
    return adapter
