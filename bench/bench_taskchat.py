"""Latency of the taskchat server under concurrent chat requests (loopback, offline model).

Run: `.venv/bin/python bench/bench_taskchat.py [--requests 100] [--rounds 3]` (the dev venv has
taskchat installed; `python3 dev.py setup` makes it). Prints numbers; asserts nothing.

It starts `taskchat serve` in its own process (so client and server do not share a GIL) on a
free loopback port over a fresh SQLite file, then, per round, fires each scenario as N requests
at once with httpx and reports the latency of every request (p50 / p90 / p99 / max), the wall
time of the burst and the throughput. Scenarios:

- create: N new conversations, each "add a task to ..." (two model turns, one insert);
- list: N new conversations, each "list my tasks" over the tasks created so far;
- delete+confirm: N conversations ask to delete a task and approve it: the first request
  suspends for confirmation (stored), the second finishes the turn from the database; the
  latency is that of the approving request;
- stream: N new conversations, each "add a task to ..." through `POST /api/v1/chat/stream`,
  read as it arrives: the time to the first `text_delta` event (the model's reply beginning,
  after its `create_task` call has run) and to the final `reply` event, each as p50 / p99.

The server's offline model streams without pauses (`--offline-pace 0`), so the figures are the
server's own costs: database, tools, two model turns, the event stream.

Standalone rather than a measure of `bench/run.py`: the suite compares frameworks side by side
in its own venv of peers; this is one application with no peer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

Scenario = Callable[[httpx.AsyncClient, int], Awaitable[float]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(database: Path, port: int) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-c",
        "import sys; from taskchat.cli import main; sys.exit(main(sys.argv[1:]))",
        "serve",
        "--port",
        str(port),
        "--database-url",
        f"sqlite:///{database}",
        "--log-level",
        "warning",
        "--offline-pace",
        "0",
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_ready(url: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):  # at most ~30 s
        if server.poll() is not None:
            error = server.stderr.read().decode() if server.stderr else ""
            raise SystemExit(f"taskchat serve exited with {server.returncode}: {error}")
        try:
            if httpx.get(f"{url}/api/v1/tools", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit("taskchat serve did not come up in 30 s")


async def timed_post(client: httpx.AsyncClient, body: dict[str, object]) -> tuple[float, dict]:
    started = time.perf_counter()
    response = await client.post("/api/v1/chat", json=body)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"{response.status_code}: {response.text[:200]}")
    return elapsed, response.json()


async def create(client: httpx.AsyncClient, n: int) -> float:
    elapsed, _ = await timed_post(client, {"message": f"add a task to bench item {n}"})
    return elapsed


async def listing(client: httpx.AsyncClient, n: int) -> float:
    elapsed, _ = await timed_post(client, {"message": "list my tasks"})
    return elapsed


def delete_and_confirm(first_id: int) -> Scenario:
    async def run(client: httpx.AsyncClient, n: int) -> float:
        _, asked = await timed_post(client, {"message": f"delete task {first_id + n}"})
        answers = {p["call_id"]: "approve" for p in asked["pending_confirmations"]}
        if not answers:
            raise RuntimeError(f"no confirmation asked: {asked['reply']}")
        elapsed, done = await timed_post(
            client, {"conversation_id": asked["conversation_id"], "confirmations": answers}
        )
        if not done["reply"].startswith("Deleted task"):
            raise RuntimeError(done["reply"])
        return elapsed

    return run


async def stream(client: httpx.AsyncClient, n: int) -> tuple[float, float]:
    """One streamed chat: seconds to the first text delta, and to the final reply event."""
    body = {"message": f"add a task to streamed item {n}"}
    started = time.perf_counter()
    first_text: float | None = None
    last_event = ""
    async with client.stream("POST", "/api/v1/chat/stream", json=body) as response:
        if response.status_code != 200:
            raise RuntimeError(f"{response.status_code}: {(await response.aread())[:200]!r}")
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                last_event = line.removeprefix("event: ")
                if last_event == "text_delta" and first_text is None:
                    first_text = time.perf_counter() - started
    total = time.perf_counter() - started
    if last_event != "reply" or first_text is None:
        raise RuntimeError(f"stream ended with {last_event!r}, first text at {first_text}")
    return first_text, total


async def stream_burst(url: str, requests: int) -> tuple[list[float], list[float], float]:
    limits = httpx.Limits(max_connections=requests, max_keepalive_connections=requests)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as client:
        await client.get("/api/v1/tools")
        started = time.perf_counter()
        timings = await asyncio.gather(*(stream(client, n) for n in range(requests)))
        wall = time.perf_counter() - started
    return [first for first, _ in timings], [total for _, total in timings], wall


async def burst(url: str, scenario: Scenario, requests: int) -> tuple[list[float], float]:
    limits = httpx.Limits(max_connections=requests, max_keepalive_connections=requests)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as client:
        await client.get("/api/v1/tools")  # one warm connection before the clock starts
        started = time.perf_counter()
        latencies = await asyncio.gather(*(scenario(client, n) for n in range(requests)))
        wall = time.perf_counter() - started
    return list(latencies), wall


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def row(name: str, latencies: list[float], wall: float) -> str:
    ms = [value * 1000 for value in latencies]
    cells = [
        statistics.median(ms),
        percentile(ms, 0.90),
        percentile(ms, 0.99),
        max(ms),
        wall * 1000,
    ]
    rate = len(latencies) / wall
    return f"| {name} | " + " | ".join(f"{c:.0f}" for c in cells) + f" | {rate:.0f} |"


def stream_row(name: str, first: list[float], total: list[float], wall: float) -> str:
    cells = [
        statistics.median(first) * 1000,
        percentile(first, 0.99) * 1000,
        statistics.median(total) * 1000,
        percentile(total, 0.99) * 1000,
        wall * 1000,
    ]
    rate = len(total) / wall
    return f"| {name} | " + " | ".join(f"{c:.0f}" for c in cells) + f" | {rate:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=100, help="concurrent requests (100)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every scenario (3)")
    args = parser.parse_args()
    n = args.requests
    with tempfile.TemporaryDirectory() as scratch:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_server(Path(scratch) / "bench.db", port)
        try:
            wait_ready(url, server)
            print(
                f"taskchat server: {url}, offline model, SQLite; {n} concurrent requests per "
                f"burst; Python {platform.python_version()}, {os.cpu_count()} CPUs\n"
            )
            print("| burst | p50 ms | p90 ms | p99 ms | max ms | wall ms | req/s |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            created = 0
            for round_number in range(1, args.rounds + 1):
                latencies, wall = asyncio.run(burst(url, create, n))
                print(row(f"create, round {round_number}", latencies, wall))
                latencies, wall = asyncio.run(burst(url, listing, n))
                print(row(f"list, round {round_number}", latencies, wall))
                latencies, wall = asyncio.run(burst(url, delete_and_confirm(created + 1), n))
                print(row(f"delete+confirm, round {round_number}", latencies, wall))
                created += n
            print(
                "\n| streamed burst | first text p50 ms | first text p99 ms "
                "| total p50 ms | total p99 ms | wall ms | req/s |"
            )
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for round_number in range(1, args.rounds + 1):
                first, total, wall = asyncio.run(stream_burst(url, n))
                print(stream_row(f"stream, round {round_number}", first, total, wall))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
