"""A server of the 2025-11-25 era, speaking JSON-RPC over stdio by hand.

The SDK's own servers serve a 2026-07-28 connection to any client that asks for one, and there
tool-list changes travel on ``subscriptions/listen``. This one does not know ``server/discover``,
so the client falls back to the ``initialize`` handshake, and when ``add_tool`` adds a tool it
sends ``notifications/tools/list_changed`` before its answer, as an older server does.
"""

from __future__ import annotations

import json
import sys
from typing import Any

tools: list[dict[str, Any]] = [
    {
        "name": "add_tool",
        "description": "Adds a tool called name and says the tool list changed.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    }
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "legacy", "version": "1.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": tools}
    if method == "tools/call" and params.get("name") == "add_tool":
        name = params["arguments"]["name"]
        tools.append(
            {
                "name": name,
                "description": f"The tool {name}, added at run time.",
                "inputSchema": {"type": "object", "properties": {}},
            }
        )
        send({"method": "notifications/tools/list_changed"})
        return text_result(f"added {name}")
    if method == "tools/call":
        return text_result(f"{params.get('name')} ran")
    raise LookupError(method)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or an answer to a request we never make
        try:
            send(
                {
                    "id": message["id"],
                    "result": answer(message["method"], message.get("params") or {}),
                }
            )
        except LookupError:
            send(
                {
                    "id": message["id"],
                    "error": {"code": -32601, "message": f"Method not found: {message['method']}"},
                }
            )


if __name__ == "__main__":
    main()
