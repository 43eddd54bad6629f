"""``affordance demo``: a small offline agent, end to end, with a readable transcript."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from affordance.cli._demo_agent import Owner, TaskBoard, build_adapter, build_prompt
from affordance.runtime.model.messages import UserMessage
from affordance.runtime.record.bus import EventBus
from affordance.runtime.record.confirmation import approve, deny
from affordance.runtime.record.events import (
    ConfirmationRequested,
    PromptRendered,
    ToolInvoked,
)
from affordance.runtime.record.response import PromptResponse
from affordance.runtime.record.session import Session
from affordance.runtime.record.stream_events import TextDelta
from affordance.runtime.record.streams import EventStream

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--interactive",
        action="store_true",
        help="ask on the terminal before the destructive call (default: approve it)",
    )


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    board = TaskBoard()
    prompt = build_prompt(board)
    adapter = build_adapter()
    bus = EventBus()
    bus.subscribe(PromptRendered, lambda e: _show_render(out, e))
    bus.subscribe(ToolInvoked, lambda e: _show_call(out, e))
    bus.subscribe(ConfirmationRequested, lambda e: _show_pending(out, e))
    session = Session()
    request = "Add 'water the plants' and 'renew passport', and clean up duplicates."
    out.write(f"user> {request}\n")
    response = _streamed(
        out,
        adapter.stream(
            prompt, Owner("Ada"), session=session, bus=bus, messages=[UserMessage(request)]
        ),
    )
    while response.pending_confirmations:
        answers = {}
        for pending in response.pending_confirmations:
            question = f"confirm {pending.name}({_args(pending.arguments)})? [y/N] "
            if args.interactive:
                approved = _asked(out, question)
            else:
                out.write(f"{question}y (use --interactive to answer yourself)\n")
                approved = True
            answers[pending.call_id] = approve() if approved else deny("the owner said no")
        response = _streamed(
            out, adapter.stream(prompt, session=session, bus=bus, confirmations=answers)
        )
    out.write(
        f"\n{response.turns} model turns, {len(session.slice(ToolInvoked))} tool calls, "
        f"{response.usage.total_tokens} tokens; tasks now: "
        f"{', '.join(t.title for t in board.tasks.values())}\n"
    )
    adapter.assert_complete()
    return 0


def _asked(out: Any, question: str) -> bool:
    """The person's answer on the terminal; no answer (input closed) is a no."""
    try:
        answer = input(question)
    except EOFError:
        out.write("n (no input to read: declined)\n")
        return False
    if not sys.stdin.isatty():  # a piped answer is not echoed: show it in the transcript
        out.write(f"{answer}\n")
    return answer.strip().lower() in ("y", "yes")


def _streamed(out: Any, stream: EventStream) -> PromptResponse[Any]:
    """Print the answer as it streams in; return the run's response."""
    started = False
    with stream as events:
        for event in events:
            if isinstance(event, TextDelta):
                if not started:
                    out.write("assistant> ")
                    started = True
                out.write(event.text)
                out.flush()
    if started:
        out.write("\n")
    assert stream.response is not None  # a stream always ends with RunFinished
    return stream.response


def _show_render(out: Any, event: PromptRendered) -> None:
    rendered = event.rendered
    tools = ", ".join(tool.name for tool in rendered.tools)
    summarized = ", ".join(".".join(path) for path in rendered.summarized) or "none"
    out.write(f"  [prompt rendered: tools {tools}; summarized sections: {summarized}]\n")


def _show_pending(out: Any, event: ConfirmationRequested) -> None:
    out.write(f"  ? {event.name} needs confirmation\n")


def _show_call(out: Any, event: ToolInvoked) -> None:
    mark = "ok" if event.result.success else "FAILED"
    first, *rest = event.result.message.splitlines() or [""]
    out.write(f"  -> {event.name}: {mark} - {first}\n")
    for line in rest:
        out.write(f"       {line.strip()}\n")


def _args(arguments: Any) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in arguments.items())
