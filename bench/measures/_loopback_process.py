"""The fake OpenAI server (``tests/fixtures/loopback``) in a process of its own.

Measures that talk to it start it with :func:`loopback_server`: the server's threads then use
the second core instead of competing for the measured process's GIL, and its memory is not
counted in the measured process's peak.

The responder is stateless, so any number of runs (sequential or concurrent) share it: a
request whose transcript holds a tool result after its last user message gets the final answer
(a history's earlier turns do not count); any other gets a call to ``get_weather`` with
``{"city": "Paris"}``. Chat Completions and Responses both; a request with ``"stream": true``
gets the same answer as a stream.

Started with ``deltas=N`` (``--deltas N``), a streamed Chat Completions request without a tool
result is answered instead with a text of N pieces (:func:`delta_text`: N times
:data:`DELTA_PIECE`), one ``chat.completion.chunk`` each, then the finish and usage chunks and
``[DONE]``. That stream goes out as one prebuilt ``text/event-stream`` body rather than one HTTP
chunk per event: the server takes about 20 µs to write a chunk, several times what a fast client
takes to read one, so chunk by chunk the server would set the pace of what is measured. The
client still reads it piece by piece, as it reads any stream.

    python bench/measures/_loopback_process.py [--deltas N]   # prints its URL; ends with stdin
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["DELTA_PIECE", "delta_text", "loopback_server", "serving"]

ANSWER = "It is sunny in Paris."
CALL = ("call_1", "get_weather", {"city": "Paris"})
DELTA_PIECE = "sun "
"""One text delta under ``deltas=N``: four characters, about a token, as the API sends."""


def delta_text(deltas: int) -> str:
    """The text a streamed question gets from ``loopback_server(deltas=deltas)``."""
    return DELTA_PIECE * deltas


@contextmanager
def loopback_server(deltas: int | None = None) -> Iterator[str]:
    """Start the OpenAI server process; yield its base URL (ending in ``/v1``); stop it on exit.

    With ``deltas``, a streamed Chat Completions question is answered with a text of that many
    deltas (the module's docstring)."""
    options = [] if deltas is None else ["--deltas", str(deltas)]
    with serving([sys.executable, __file__, *options]) as base_url:
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
    """Whether the transcript holds a tool result after its last user message: the question
    asked last has had its tool call answered (earlier turns of a history do not count)."""
    if not isinstance(body, dict):
        return False
    items = body.get("messages")  # Chat Completions
    if not isinstance(items, list):
        items = body.get("input")  # Responses
    if not isinstance(items, list):
        return False
    for item in reversed(items):
        if not isinstance(item, dict):
            continue
        if item.get("role") == "tool" or item.get("type") == "function_call_output":
            return True
        if item.get("role") == "user":
            return False
    return False


def _serve(deltas: int | None) -> None:
    from _harness import fixtures_on_path

    fixtures_on_path()
    from loopback import (
        CHAT_COMPLETIONS_PATH,
        RESPONSES_PATH,
        RawReply,
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

    streams: dict[int, Reply] = {
        id(reply): stream(reply)
        for reply, stream in (
            (chat_call, chat_stream),
            (chat_answer, chat_stream),
            (responses_call, responses_stream),
            (responses_answer, responses_stream),
        )
    }
    if deltas is not None:  # a streamed question without a tool result: a text of N deltas
        pieces = chat_stream(chat_text(delta_text(deltas)), text_chunk=len(DELTA_PIECE))
        body = b"".join(pieces.frames())
        streams[id(chat_call)] = RawReply(body, content_type="text/event-stream")

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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deltas", type=int, help="stream a question's answer in N text deltas")
    _serve(parser.parse_args().deltas)
