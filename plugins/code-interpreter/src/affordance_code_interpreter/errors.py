"""The error a code interpreter configuration raises on a provider that cannot honour it."""

from __future__ import annotations

from collections.abc import Iterable

from affordance.errors import UnsupportedHostedConfigError
from affordance.tools import HostedTool, config_as
from affordance.tools import refuse_unhonoured as refuse_any_unhonoured
from affordance_code_interpreter.config import CodeInterpreterConfig

__all__ = ["UnsupportedCodeInterpreterConfigError", "config_of", "refuse_unhonoured"]


class UnsupportedCodeInterpreterConfigError(UnsupportedHostedConfigError):
    """A ``code_interpreter`` setting the chosen provider cannot honour (phase ``render``).

    Raised by the provider's codec while the request is built, so before anything is sent.
    ``field`` is the :data:`CONFIG_FIELDS` entry, ``provider`` the codec's provider,
    ``tool_name`` the hosted tool's name.
    """


def config_of(tool: HostedTool[CodeInterpreterConfig]) -> CodeInterpreterConfig:
    """The tool's config, checked: this plugin's codecs read only :class:`CodeInterpreterConfig`."""
    return config_as(tool, CodeInterpreterConfig)


def refuse_unhonoured(
    tool: HostedTool[CodeInterpreterConfig], *, provider: str, honours: Iterable[str]
) -> CodeInterpreterConfig:
    """The tool's config, once every setting it asks for is one ``provider`` honours; else
    :class:`UnsupportedCodeInterpreterConfigError` naming the first setting it does not."""
    config = config_of(tool)
    requested = config.requested()
    refuse_any_unhonoured(
        tool,
        requested,
        provider=provider,
        honours=honours,
        error=UnsupportedCodeInterpreterConfigError,
    )
    return config
