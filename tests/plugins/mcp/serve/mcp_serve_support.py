"""Helpers of the ``affordance_mcp.serving`` tests: a runner that bounds every async test,
an elicitation callback that answers as a user would, and the text of a result.

The tests talk to the server with the official ``mcp`` client in both of its protocol eras:
``"auto"`` negotiates 2026-07-28 (a confirmation travels as an ``InputRequiredResult``), and
``"legacy"`` the 2025-11-25 handshake (the server sends ``elicitation/create`` mid-call).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import types

HERE = Path(__file__).resolve().parent
MODES = ("auto", "legacy")
"""``mcp.Client(mode=...)``: the 2026-07-28 protocol, and the 2025-11-25 handshake."""

PROTOCOL_OF_MODE = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def run(test: Callable[[], Awaitable[None]], timeout: float = 10.0) -> None:
    """Run an async test body on a fresh event loop, failing it after ``timeout`` seconds."""

    async def bounded() -> None:
        with anyio.fail_after(timeout):
            await test()

    anyio.run(bounded)


class User:
    """An elicitation callback answering every question the same way, keeping the questions."""

    def __init__(self, action: str = "accept", confirm: bool | None = True) -> None:
        self.action = action
        self.confirm = confirm
        self.questions: list[types.ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.questions.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        content = {} if self.confirm is None else {"confirm": self.confirm}
        return types.ElicitResult(action="accept", content=content)


def text_of(result: types.CallToolResult) -> str:
    """The one text block of a served call's result."""
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text
