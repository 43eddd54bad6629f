"""The naming rules shared by local tools and hosted tools."""

from __future__ import annotations

import re

from affordance.errors import PromptValidationError

__all__ = ["check_description", "check_tool_name"]

_NAME = re.compile(r"[a-z0-9_-]{1,64}")
MAX_DESCRIPTION = 200


def check_tool_name(name: object, *, kind: str = "Tool") -> str:
    """Return ``name`` if it matches ``^[a-z0-9_-]{1,64}$``, else raise."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise PromptValidationError(
            f"{kind} name {name!r} must be 1-64 characters of lowercase ASCII letters, digits, "
            "'_' or '-'",
            tool_name=name if isinstance(name, str) else None,
        )
    return name


def check_description(description: object, *, tool_name: str, kind: str = "Tool") -> str:
    """Return the stripped description if it is 1-200 ASCII characters, else raise."""
    if not isinstance(description, str):
        raise PromptValidationError(
            f"{kind} description must be a string, got {type(description).__qualname__}",
            tool_name=tool_name,
        )
    stripped = description.strip()
    if not 1 <= len(stripped) <= MAX_DESCRIPTION:
        raise PromptValidationError(
            f"{kind} description must be 1-{MAX_DESCRIPTION} characters after stripping, "
            f"got {len(stripped)}; put longer guidance in the section text or field descriptions",
            tool_name=tool_name,
        )
    if not stripped.isascii():
        raise PromptValidationError(f"{kind} description must be ASCII", tool_name=tool_name)
    return stripped
