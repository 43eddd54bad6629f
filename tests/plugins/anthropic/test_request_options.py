"""A request goes out byte for byte as the client's own ``post`` sends it, though the transport
copies ``post``'s options rather than building them afresh (``affordance.adapters.stainless``):
method, path, query, headers and body, plain and streamed, with the hosted tools' headers,
once, and under a deadline; sync and async."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from loopback import MESSAGES_PATH, LoopbackServer
from stainless_requests import SENDS, sent_as_post_sends

BODY = {
    "model": "claude-test",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "Grüße, Paris?"}],
}


@pytest.mark.parametrize("send", SENDS.values(), ids=SENDS.keys())
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_request_goes_out_as_post_sends_it(
    server: LoopbackServer, loopback: Any, kind: str, send: dict[str, Any]
) -> None:
    client = loopback.sync() if kind == "sync" else loopback.async_()

    ours = sent_as_post_sends(anthropic, client, server, MESSAGES_PATH, BODY, send)

    assert ours.path == MESSAGES_PATH
