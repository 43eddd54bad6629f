"""A request's tool choice in a wire format's words.

The loop hands each request its tool choice already resolved for the turn
(``ModelRequest.tool_choice``): ``"auto"``, ``"none"`` or ``"required"``, a tool's name, or a
mapping — the caller's own wire value, sent as it is. Wire formats differ only in how they spell
the keywords and how they name a tool, so :func:`wire_tool_choice` is the one rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from affordance.runtime.model.turn import TOOL_CHOICE_KEYWORDS, ToolChoice

__all__ = ["wire_tool_choice"]


def wire_tool_choice(
    choice: ToolChoice | None,
    named: Callable[[str], Any],
    keywords: Mapping[str, Any] | None = None,
) -> Any:
    """``choice`` as a wire format says it: None when none was set; a mapping as it is; a
    keyword as ``keywords`` spells it (as it is, without ``keywords``); any other string a
    tool's name, as ``named`` makes it."""
    if choice is None or not isinstance(choice, str):
        return choice
    if keywords is None:
        return choice if choice in TOOL_CHOICE_KEYWORDS else named(choice)
    return keywords[choice] if choice in keywords else named(choice)
