"""One durable run end to end with the real OpenAI adapter and SDK, over the loopback fake
server: the model activity sends real HTTP, normalizes the turn, and the reasoning item the
provider needs echoed crosses the workflow boundary and comes back on the next request."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from durable_app import PROMPT, Ledger, Task, make_registry
from temporalio.client import Client

from affordance_temporal import durable_worker, start_run
from affordance_temporal.testing import DevServer

openai = pytest.importorskip("openai")
loopback = pytest.importorskip("loopback")
affordance_openai = pytest.importorskip("affordance_openai")


def test_a_durable_run_with_the_openai_adapter_echoes_provider_items_across_the_boundary(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    with loopback.openai_server() as server:
        server.script(
            loopback.RESPONSES_PATH,
            loopback.response_function_calls(
                [("call_1", "add_note", {"text": "milk"})], reasoning="save it first"
            ),
            loopback.response_text("Saved milk."),
        )

        async def scenario() -> Any:
            client = await Client.connect(temporal_server.address)
            registry = make_registry(ledger)
            async with openai.AsyncOpenAI(
                base_url=server.base_url,
                api_key="test",
                max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(verify=False),
            ) as sdk:
                adapter = affordance_openai.OpenAIAdapter("gpt-test", client=sdk)
                async with durable_worker(client, registry, task_queue=task_queue, adapter=adapter):
                    handle = await start_run(
                        client,
                        registry,
                        PROMPT,
                        Task("save"),
                        task_queue=task_queue,
                        workflow_id=f"run-{uuid.uuid4().hex[:12]}",
                    )
                    return await handle.result()

        response = asyncio.run(scenario())
        server.assert_script_consumed()
        second = server.requests[1].body["input"]

    assert response.text == "Saved milk."
    assert ledger.executions() == [("add_note", "call_1")]
    assert response.tool_results[0].result.value.text == "milk"
    kinds = [item.get("type") for item in second]
    assert "reasoning" in kinds
    outputs = [item for item in second if item.get("type") == "function_call_output"]
    assert outputs == [
        {"type": "function_call_output", "call_id": "call_1", "output": "note #1: milk"}
    ]
