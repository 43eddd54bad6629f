"""Errors of the plugin system; each names the plugin, its distribution and the fix. The three
the package's lower modules raise live in ``_base_errors``, which imports nothing of the package,
so that this module may name contributions without an import cycle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from affordance.plugins._base_errors import InvalidSpecError, PluginConfigError, PluginError

if TYPE_CHECKING:
    from affordance.plugins._contributions import Contribution, ContributionKey

__all__ = [
    "CodecConflictError",
    "ConflictError",
    "InvalidSpecError",
    "PinError",
    "PluginConfigError",
    "PluginError",
    "PluginLoadError",
    "PluginUnavailableError",
    "ProviderConflictError",
    "SerializerConflictError",
    "UnknownProviderError",
]


for _base in (PluginError, PluginConfigError, InvalidSpecError):
    _base.__module__ = __name__  # tracebacks name the public module


class PluginLoadError(PluginError):
    """A plugin could not be loaded, in strict mode (else it is recorded): ``plugin``,
    ``distribution``, and the ``status`` it got (``failed``, ``duplicate`` or ``incompatible``)."""

    def __init__(
        self,
        message: str,
        *,
        plugin: str | None = None,
        distribution: str | None = None,
        status: str = "failed",
    ) -> None:
        self.message = message
        self.plugin = plugin
        self.distribution = distribution
        self.status = status
        super().__init__(message)


class ConflictError(PluginError):
    """Several plugins contribute the same key with equal standing (the ``candidates``); raised
    when the key is used, never at load, naming their distributions and both ways to fix it."""

    def __init__(self, key: ContributionKey, candidates: Sequence[Contribution]) -> None:
        self.key = key
        self.candidates = tuple(candidates)
        origins = " and ".join(c.origin for c in self.candidates)
        first, last = self.candidates[0], self.candidates[-1]  # a tie has two or more
        message = (
            f"{key} is contributed by {origins}, all with priority {first.priority}. "
            f'Choose one: pin it with AFFORDANCE_PIN="{key.pin_text}={first.pin_name}" '
            f"(or host.pin({key.pin_argument}, dist={first.pin_name!r})), "
            f"or disable the other with AFFORDANCE_DISABLE_PLUGINS={last.pin_name}"
        )
        super().__init__(message)


class CodecConflictError(ConflictError):
    """Two hosted-tool codecs for one ``(provider, kind)`` are tied."""


class ProviderConflictError(ConflictError):
    """Two plugins offer a provider of the same name and are tied."""


class SerializerConflictError(ConflictError):
    """Two serializers for one ``(provider, role)`` are tied."""


class PinError(PluginError):
    """A pin names a distribution that contributes nothing for its key."""

    def __init__(self, message: str, *, key: ContributionKey) -> None:
        self.key = key
        super().__init__(message)


class PluginUnavailableError(PluginError):
    """A contribution exists but cannot be used: its SDK is missing or too old, or it fails to
    import. The message carries the reason (``openai 1.2 < 1.66``)."""


class UnknownProviderError(PluginError, LookupError):
    """No installed plugin offers a provider of that name; the message lists the ones there are."""
