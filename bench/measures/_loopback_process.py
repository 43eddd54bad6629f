"""The fake OpenAI server (``tests/fixtures/loopback``) in a process of its own.

Measures that talk to it start it with :func:`loopback_server`: the server's threads then use
the second core instead of competing for the measured process's GIL, and its memory is not
counted in the measured process's peak.

The responder is stateless, so any number of runs (sequential or concurrent) share it: a
request whose transcript already holds a tool result gets the final answer; any other gets a
call to ``get_weather`` with ``{"city": "Paris"}``. Chat Completions and Responses both; a
request with ``"stream": true`` gets the same answer as a stream.

    python bench/measures/_loopback_process.py   # prints the base URL; stops at end of stdin
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["loopback_server", "serving"]

ANSWER = "It is sunny in Paris."
CALL = ("call_1", "get_weather", {"city": "Paris"})


@contextmanager
def loopback_server() -> Iterator[str]:
    """Start the OpenAI server process; yield its base URL (ending in ``/v1``); stop it on exit."""
    with serving([sys.executable, __file__]) as base_url:
        yield base_url


@contextmanager
def serving(command: list[str]) -> Iterator[str]:
    """Run ``command`` (a loopback server that prints its base URL, then serves until its stdin
    closes) in a process of its own; yield the base URL; stop it on exit."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http://"):
            raise RuntimeError(f"the loopback server did not start (said {base_url!r})")
        yield base_url
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _has_tool_result(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    for message in body.get("messages") or ():  # Chat Completions
        if isinstance(message, dict) and message.get("role") == "tool":
            return True
    items = body.get("input")
    if isinstance(items, list):  # Responses
        for item in items:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                return True
    return False


def _serve() -> None:
    from _harness import fixtures_on_path

    fixtures_on_path()
    from loopback import (
        CHAT_COMPLETIONS_PATH,
        RESPONSES_PATH,
        RecordedRequest,
        Reply,
        chat_stream,
        chat_text,
        chat_tool_calls,
        openai_server,
        response_function_calls,
        response_text,
        responses_stream,
    )

    chat_call, chat_answer = chat_tool_calls([CALL]), chat_text(ANSWER)
    responses_call, responses_answer = response_function_calls([CALL]), response_text(ANSWER)

    streams = {
        id(reply): stream(reply)
        for reply, stream in (
            (chat_call, chat_stream),
            (chat_answer, chat_stream),
            (responses_call, responses_stream),
            (responses_answer, responses_stream),
        )
    }

    def answer(request: RecordedRequest, plain: Reply) -> Reply:
        streamed = isinstance(request.body, dict) and request.body.get("stream") is True
        return streams[id(plain)] if streamed else plain

    def chat(request: RecordedRequest) -> Reply:
        return answer(request, chat_answer if _has_tool_result(request.body) else chat_call)

    def responses(request: RecordedRequest) -> Reply:
        plain = responses_answer if _has_tool_result(request.body) else responses_call
        return answer(request, plain)

    with openai_server() as server:
        server.set_responder(chat, path=CHAT_COMPLETIONS_PATH)
        server.set_responder(responses, path=RESPONSES_PATH)
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the measuring process closes our stdin
        failures = server.failures
    if failures:
        sys.stderr.write(f"loopback: {len(failures)} failure(s), first: {failures[0]}\n")


if __name__ == "__main__":
    _serve()
