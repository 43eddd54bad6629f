"""How the provider's sandbox should be set up for a code interpreter tool.

Validated at construction (:class:`~affordance.PromptValidationError` naming the field).
Whether a provider can honour a setting is its codec's decision when a request is built: a
setting it cannot honour is an error there, never silently dropped. The defaults ask for
nothing, so a default config works on every provider.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from affordance.errors import PromptValidationError

__all__ = ["CONFIG_FIELDS", "CodeInterpreterConfig", "MemoryLimit"]

MemoryLimit = Literal["1g", "4g", "16g", "64g"]

CONFIG_FIELDS: tuple[str, ...] = ("container_id", "memory_limit", "file_ids")
"""Everything a :class:`CodeInterpreterConfig` can ask of a provider, as codecs name it."""

_MEMORY_LIMITS = ("1g", "4g", "16g", "64g")


def _file_ids(given: Iterable[str]) -> tuple[str, ...]:
    value: object = given
    if isinstance(value, str):
        raise PromptValidationError(
            f"CodeInterpreterConfig.file_ids must be a tuple of ids, not one string: "
            f"write file_ids=({value!r},)"
        )
    ids: tuple[object, ...] = tuple(given)
    for file_id in ids:
        if not isinstance(file_id, str) or not file_id.strip():
            raise PromptValidationError(
                f"CodeInterpreterConfig.file_ids: {file_id!r} is not a file id"
            )
    return tuple(given)


@dataclass(frozen=True, slots=True)
class CodeInterpreterConfig:
    """The configuration of a ``code_interpreter`` hosted tool.

    - ``container_id``: run in this existing sandbox instead of a new one (OpenAI);
    - ``memory_limit``: the new sandbox's memory, ``"1g"``, ``"4g"``, ``"16g"`` or ``"64g"``
      (OpenAI);
    - ``file_ids``: uploaded files to make available in the new sandbox (OpenAI).

    ``container_id`` names a sandbox that exists, so it cannot be combined with the settings
    of a new one.
    """

    container_id: str | None = None
    memory_limit: MemoryLimit | None = None
    file_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        container: object = self.container_id
        if container is not None and (not isinstance(container, str) or not container.strip()):
            raise PromptValidationError(
                f"CodeInterpreterConfig.container_id must be a non-empty string, got {container!r}"
            )
        if self.memory_limit is not None and self.memory_limit not in _MEMORY_LIMITS:
            raise PromptValidationError(
                "CodeInterpreterConfig.memory_limit must be one of "
                f"{', '.join(_MEMORY_LIMITS)}, got {self.memory_limit!r}"
            )
        file_ids = _file_ids(self.file_ids)
        object.__setattr__(self, "file_ids", file_ids)
        if container is not None and (self.memory_limit is not None or file_ids):
            raise PromptValidationError(
                "CodeInterpreterConfig.container_id names an existing sandbox; memory_limit "
                "and file_ids configure a new one: set one or the other"
            )

    def requested(self) -> tuple[str, ...]:
        """The entries of :data:`CONFIG_FIELDS` this config asks for, in that order."""
        asked = {
            "container_id": self.container_id is not None,
            "memory_limit": self.memory_limit is not None,
            "file_ids": bool(self.file_ids),
        }
        return tuple(field for field in CONFIG_FIELDS if asked[field])
