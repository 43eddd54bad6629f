"""A real uvicorn on loopback: many concurrent chats all succeed, plain or streamed (timings are
in bench/)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest

Events = Callable[[str], list[tuple[str, dict[str, Any]]]]


async def _post(
    client: httpx.AsyncClient, path: str, n: int, read_events: Events
) -> tuple[httpx.Response, dict[str, Any]]:
    """One chat request and its answer (for a stream: the final event, read as it arrives)."""
    body = {"message": f"add a task to item {n}"}
    headers = {"X-Request-ID": f"burst-{n}"}
    if not path.endswith("/stream"):
        response = await client.post(path, json=body, headers=headers)
        return response, response.json()
    async with client.stream("POST", path, json=body, headers=headers) as response:
        text = "".join([chunk async for chunk in response.aiter_text()])
    name, final = read_events(text)[-1]
    assert name == "reply", final
    return response, final


@pytest.mark.parametrize("path", ["/api/v1/chat", "/api/v1/chat/stream"])
def test_a_hundred_concurrent_chat_requests_all_succeed(
    live_server: Callable[..., Any], sse_events: Events, path: str
) -> None:
    server = live_server()

    async def burst() -> list[tuple[httpx.Response, dict[str, Any]]]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=server.url, limits=limits, timeout=60) as client:
            return await asyncio.gather(*(_post(client, path, n, sse_events) for n in range(100)))

    answers = asyncio.run(burst())

    assert [r.status_code for r, _ in answers] == [200] * 100
    assert all(body["reply"].startswith("Created task #") for _, body in answers)
    assert [r.headers["x-request-id"] for r, _ in answers] == [f"burst-{n}" for n in range(100)]
    assert len({body["conversation_id"] for _, body in answers}) == 100
    tasks = httpx.get(f"{server.url}/api/v1/tasks", params={"limit": 500}).json()
    assert sorted(t["title"] for t in tasks["tasks"]) == sorted(f"Item {n}" for n in range(100))
