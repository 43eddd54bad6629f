"""A real uvicorn on loopback: many concurrent chats all succeed (timings are in bench/)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


def test_a_hundred_concurrent_chat_requests_all_succeed(live_server: Any) -> None:
    async def burst() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=live_server.url, limits=limits, timeout=60) as client:
            return await asyncio.gather(
                *(
                    client.post(
                        "/api/v1/chat",
                        json={"message": f"add a task to item {n}"},
                        headers={"X-Request-ID": f"burst-{n}"},
                    )
                    for n in range(100)
                )
            )

    responses = asyncio.run(burst())

    assert [r.status_code for r in responses] == [200] * 100
    assert all(r.json()["reply"].startswith("Created task #") for r in responses)
    assert [r.headers["x-request-id"] for r in responses] == [f"burst-{n}" for n in range(100)]
    assert len({r.json()["conversation_id"] for r in responses}) == 100
    tasks = httpx.get(f"{live_server.url}/api/v1/tasks", params={"limit": 500}).json()
    assert sorted(t["title"] for t in tasks["tasks"]) == sorted(f"Item {n}" for n in range(100))
