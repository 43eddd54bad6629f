"""The error a code interpreter configuration raises on a provider that cannot honour it."""

from __future__ import annotations

from collections.abc import Iterable

from affordance.errors import PromptEvaluationError
from affordance.tools.hosted import HostedTool
from affordance_code_interpreter.config import CodeInterpreterConfig

__all__ = ["UnsupportedCodeInterpreterConfigError", "config_of", "refuse_unhonoured"]


class UnsupportedCodeInterpreterConfigError(PromptEvaluationError):
    """A ``code_interpreter`` setting the chosen provider cannot honour (phase ``render``).

    Raised by the provider's codec while the request is built, so before anything is sent.
    ``field`` is the :data:`CONFIG_FIELDS` entry, ``provider`` the codec's provider,
    ``tool_name`` the hosted tool's name.
    """

    def __init__(
        self, message: str, *, field: str, provider: str, tool_name: str | None = None
    ) -> None:
        self.field = field
        self.tool_name = tool_name
        super().__init__(message, phase="render", provider=provider)


def config_of(tool: HostedTool[CodeInterpreterConfig]) -> CodeInterpreterConfig:
    """The tool's config, checked: this plugin's codecs read only CodeInterpreterConfig."""
    config: object = tool.config
    if not isinstance(config, CodeInterpreterConfig):
        raise TypeError(
            f"hosted tool {tool.name!r} has a {type(config).__qualname__} config; the "
            "affordance-code-interpreter codecs read CodeInterpreterConfig"
        )
    return config


def refuse_unhonoured(
    tool: HostedTool[CodeInterpreterConfig], *, provider: str, honours: Iterable[str]
) -> CodeInterpreterConfig:
    """The tool's config, once every setting it asks for is one ``provider`` honours; else
    :class:`UnsupportedCodeInterpreterConfigError` naming the first setting it does not."""
    config = config_of(tool)
    honoured = tuple(honours)
    for field in config.requested():
        if field not in honoured:
            supported = ", ".join(honoured) if honoured else "none of them"
            raise UnsupportedCodeInterpreterConfigError(
                f"code interpreter tool {tool.name!r} sets {field}, which provider "
                f"{provider!r} cannot honour (it honours: {supported}); remove the setting or "
                "choose another provider",
                field=field,
                provider=provider,
                tool_name=tool.name,
            )
    return config
