"""``HostedKind``: a hosted tool kind in one declaration.

A hosted-tool plugin declares its kind once — the kind's name, its config and output types, its
codec for each provider (all by dotted path, so declaring imports nothing), the tool's
description and the section's title and guidance — and gets from that one value its ``HostedTool``
factory (:meth:`HostedKind.tool`), its section (``affordance.prompt.HostedKindSection``) and its
hook implementations (``affordance.plugins.hosted_kind_hooks``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Generic, TypeVar

from affordance._frozen import frozen
from affordance.errors import PromptValidationError
from affordance.tools.hosted import HostedTool, HostedToolConfig

__all__ = ["HostedKind"]

ConfigT = TypeVar("ConfigT", bound=HostedToolConfig)

_KIND = re.compile(r"[a-z][a-z0-9_]{0,63}")
_TARGET = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def _check_target(owner: str, field_name: str, value: object) -> None:
    if not isinstance(value, str) or _TARGET.fullmatch(value) is None:
        raise PromptValidationError(
            f"HostedKind {owner!r}: {field_name} must be 'package.module:Attribute', got {value!r}"
        )


@frozen(eq=False)
class HostedKind(Generic[ConfigT]):
    """One hosted tool kind, as its plugin declares it.

    - ``kind``: the kind's name (``"web_search"``), also the default tool name and section key;
    - ``config``, ``output``: the config and output types, ``"package.module:Attribute"``;
    - ``codecs``: codec provider -> the codec class, ``"package.module:Attribute"``;
    - ``description``: the kind's line in ``affordance plugins``;
    - ``tool_description``: the hosted tool's default description;
    - ``title``, ``guidance``: the section's default title and text (no placeholders).
    """

    kind: str
    config: str
    output: str
    codecs: Mapping[str, str]
    tool_description: str
    title: str
    guidance: str
    description: str = ""
    _config_type: list[type[ConfigT]] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        kind: object = self.kind
        if not isinstance(kind, str) or _KIND.fullmatch(kind) is None:
            raise PromptValidationError(
                f"HostedKind kind {self.kind!r} must match ^[a-z][a-z0-9_]{{0,63}}$"
            )
        _check_target(self.kind, "config", self.config)
        _check_target(self.kind, "output", self.output)
        codecs = MappingProxyType(dict(self.codecs))
        for provider, factory in codecs.items():
            _check_target(self.kind, f"codecs[{provider!r}]", factory)
        object.__setattr__(self, "codecs", codecs)

    def config_type(self) -> type[ConfigT]:
        """The config type, imported on first use (declaring the kind imports nothing)."""
        if not self._config_type:
            module, _, attribute = self.config.partition(":")
            self._config_type.append(getattr(importlib.import_module(module), attribute))
        return self._config_type[0]

    def tool(
        self,
        config: ConfigT | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
    ) -> HostedTool[ConfigT]:
        """A hosted tool of this kind, named ``name`` (default: the kind), with ``config``
        (default: the config type's defaults); its output is in
        ``PromptResponse.hosted_outputs[name]``."""
        return HostedTool(
            kind=self.kind,
            name=self.kind if name is None else name,
            description=self.tool_description if description is None else description,
            config=self.config_type()() if config is None else config,
        )
