"""A request goes out byte for byte as the client's own ``post`` sends it, though the transport
copies ``post``'s options rather than building them afresh (``affordance.adapters.stainless``):
method, path, query, headers and body, plain and streamed, with the hosted tools' headers,
once, and under a deadline; sync and async. And ``AzureOpenAI``, whose request builder puts
the deployment named by each request's body in its path, still sends each to its own."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from loopback import JsonReply, LoopbackServer
from stainless_requests import SENDS, sent_as_post_sends

from affordance.adapters import StainlessSdk

BODY = {"model": "gpt-test", "messages": [{"role": "user", "content": "Grüße, Paris?"}]}


@pytest.mark.parametrize("send", SENDS.values(), ids=SENDS.keys())
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_request_goes_out_as_post_sends_it(
    server: LoopbackServer, clients: Any, kind: str, send: dict[str, Any]
) -> None:
    client = clients.sync() if kind == "sync" else clients.async_()

    ours = sent_as_post_sends(openai, client, server, "/chat/completions", BODY, send)

    assert ours.path == "/v1/chat/completions"


def test_each_azure_request_is_sent_to_its_own_deployment(server: LoopbackServer) -> None:
    client = openai.AzureOpenAI(
        azure_endpoint=server.origin,
        api_key="test",
        api_version="2024-10-21",
        max_retries=0,
        http_client=openai.DefaultHttpxClient(verify=False),
    )
    sdk = StainlessSdk(openai, openai.OpenAI, openai.AsyncOpenAI, openai.OpenAIError, "x")
    _, transport = sdk.connect(client, None, provider="openai", path="/chat/completions")
    sent_to: list[str] = []

    def answer(request: Any) -> JsonReply:
        sent_to.append(request.path)
        return JsonReply({"ok": True})

    server.set_responder(answer)

    with client:
        for deployment in ("east", "west", "east"):
            transport.post.send(client, {**BODY, "model": deployment}).close()

    assert sent_to == [
        "/openai/deployments/east/chat/completions",
        "/openai/deployments/west/chat/completions",
        "/openai/deployments/east/chat/completions",
    ]
