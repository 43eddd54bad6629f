"""One MCP tool call: through an affordance run, and made by hand with the SDK's client.

The server is the real ``mcp-server-time`` from PyPI, started over stdio once per process.
By hand (``mcp-sdk``): ``await client.call_tool("get_current_time", ...)`` on an open
``mcp.Client``, awaited one after another. Through affordance: one whole offline run per
sample — the scripted model asks for the same call, the executor validates the arguments
against the tool's ``inputSchema`` and calls the server, the model answers — with ``evaluate``
(sync, the session on affordance-mcp's own loop) and ``aevaluate`` (awaited on the caller's
loop, which holds the session after ``async with section``). Sync code calling the SDK by hand
goes through an anyio blocking portal, as sync code must. Caching is off, so every run reaches
the server. Two rows each: a whole run (two model turns, the call between them) against the
bare call, and the call's share of a run — the same run with the model calling a local tool of
the same arguments instead, subtracted — against the same bare call.

    python bench/measures/mcp_call.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from typing import Any

from _harness import Sample, Skip, jobs_of, main, time_awaits, time_calls

FRAMEWORKS = ("affordance", "mcp-sdk")
JOBS = jobs_of(FRAMEWORKS)

SERVER = (sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC")
ARGUMENTS = {"timezone": "Europe/Paris"}
SYNC = "one call, sync (by hand: through a blocking portal)"
ASYNC = "one call, async"


def measure(framework: str, args: argparse.Namespace) -> Sample:
    try:
        import mcp_server_time  # noqa: F401 - the server must be installed
    except ImportError as error:
        raise Skip(f"mcp-server-time is not installed ({error})") from None
    target, repeat = (0.2, 3) if args.quick else (0.5, 5)
    sample = Sample()
    if framework == "mcp-sdk":
        _by_hand_sync(sample, target, repeat)
        asyncio.run(_by_hand(sample, target, repeat))
    else:
        _through_a_run(sample, target, repeat)
    return sample


def _by_hand_sync(sample: Sample, target: float, repeat: int) -> None:
    """Sync code calling the async SDK the usual way: through an anyio blocking portal."""
    from anyio.from_thread import start_blocking_portal
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=SERVER[0], args=list(SERVER[1:]))
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params)) as client,
    ):

        def call() -> None:
            result = portal.call(client.call_tool, "get_current_time", ARGUMENTS)
            if result.is_error:
                raise AssertionError(result.content)

        call()
        seconds = time_calls(call, target_s=target, repeat=repeat)
        for key, row in (("sync", "a whole run"), ("sync_share", "its share of a run")):
            sample.add(key, f"{SYNC}: {row}", "µs", seconds * 1e6)


async def _by_hand(sample: Sample, target: float, repeat: int) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=SERVER[0], args=list(SERVER[1:]))
    async with Client(params) as client:

        async def call() -> None:
            result = await client.call_tool("get_current_time", ARGUMENTS)
            if result.is_error:
                raise AssertionError(result.content)

        await call()
        seconds = await time_awaits(call, target_s=target, repeat=repeat)
        for key, row in (("async", "a whole run"), ("async_share", "its share of a run")):
            sample.add(key, f"{ASYNC}: {row}", "µs", seconds * 1e6)


def _through_a_run(sample: Sample, target: float, repeat: int) -> None:
    try:
        from affordance_mcp import MCPSection
    except ImportError as error:
        raise Skip(f"affordance-mcp is not installed ({error})") from None
    from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
    from affordance.adapters import ModelRequest, ProviderTurn, ToolResultMessage
    from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

    @dataclass(frozen=True)
    class Zone:
        timezone: str

    local = Tool[Zone, str](
        name="local_time",
        description="The time in a timezone, without a server.",
        handler=lambda params: ToolResult.ok(f"12:00 in {params.timezone}"),
    )
    section = MCPSection.stdio(SERVER[0], SERVER[1:], title="Time", cache_ttl=None)
    task = MarkdownSection(title="Task", template="What time is it in Paris?", tools=[local])
    prompt = PromptTemplate(ns="bench", key="mcp", sections=[task, section])

    def script(name: str) -> ScriptedAdapter:
        def respond(request: ModelRequest) -> ProviderTurn:
            if request.messages and isinstance(request.messages[-1], ToolResultMessage):
                return text("It is time.")
            return tool_calls(tool_call(name, ARGUMENTS))

        return ScriptedAdapter(responder=respond, record=False)

    def check(response: Any) -> None:
        (call,) = response.tool_results
        if not call.result.success:
            raise AssertionError(call.result.message)

    # The same run twice: the model calls the MCP tool, or a local tool taking the same
    # arguments. Their difference is what the MCP call costs inside a run.
    runs = {"mcp": script("get_current_time"), "local": script("local_time")}
    sync: dict[str, float] = {}
    with section:  # sync code: the session lives on affordance-mcp's own loop
        for kind, adapter in runs.items():

            def run(adapter: ScriptedAdapter = adapter) -> None:
                check(adapter.evaluate(prompt))

            run()
            sync[kind] = time_calls(run, target_s=target, repeat=repeat) * 1e6

    async def timed() -> dict[str, float]:
        found: dict[str, float] = {}
        async with section:  # async code: the session lives on this loop
            for kind, adapter in runs.items():

                async def arun(adapter: ScriptedAdapter = adapter) -> None:
                    check(await adapter.aevaluate(prompt))

                await arun()
                found[kind] = await time_awaits(arun, target_s=target, repeat=repeat) * 1e6
        return found

    awaited = asyncio.run(timed())
    sample.add("sync", f"{SYNC}: a whole run", "µs", sync["mcp"])
    sample.add("async", f"{ASYNC}: a whole run", "µs", awaited["mcp"])
    sample.add("sync_share", f"{SYNC}: its share of a run", "µs", sync["mcp"] - sync["local"])
    share = awaited["mcp"] - awaited["local"]
    sample.add("async_share", f"{ASYNC}: its share of a run", "µs", share)


if __name__ == "__main__":
    main("mcp_call", measure, JOBS)
