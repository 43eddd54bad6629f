"""Tool chaining (seed 004): a list of steps run as a model would call them, one by one.

``adapter.run_chain(prompt, steps)`` runs ``[{"tool": name, "args": {...}}, ...]`` against the
tools ``prompt`` exposes. A string argument ``"$name"`` (or ``"$name.field.sub"``) is replaced
by that value from the chain's context: the ``context=`` the caller gives, updated after each
step with the fields of its output when the output renders as a JSON object (a dataclass or a
mapping without a ``render()`` of its own); ``"$$..."`` is a literal string starting with
``"$"``. The chain stops at the first step that fails.

The steps are not run beside the loop but by it: :class:`ChainModel` is a model that answers
each request with the next step as a tool call (and, after the last step or a failed one, a
final answer), so every step goes through the same executor as a model's call — validation,
policies and the allowlist, confirmation of destructive tools, caching, timeouts and retries,
metadata-only logs, events — and a destructive step suspends the chain, which resumes by call id
like any run (``run_chain(prompt, steps, session=..., confirmations=...)``). No provider is
called.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from affordance.errors import PromptEvaluationError
from affordance.runtime.model.deltas import Delta, asent_whole, sent_whole
from affordance.runtime.model.messages import ToolCall, ToolResultMessage
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.tools.hosted import HostedTool, HostedToolOutput

__all__ = ["CHAIN_COMPLETE", "CHAIN_STOPPED", "ChainModel"]

CHAIN_COMPLETE = "chain_complete"
"""The finish reason of a chain whose every step succeeded."""
CHAIN_STOPPED = "chain_stopped"
"""The finish reason of a chain stopped by a step that failed."""


class ChainModel:
    """A :class:`~affordance.runtime.model.Model` answering with ``steps``, one per request,
    each step's arguments resolved against ``context`` and the outputs of the steps before it
    (read from the request's tool results). Stateless: the request says how far the chain is."""

    name: ClassVar[str] = "chain"

    def __init__(
        self, steps: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None = None
    ) -> None:
        checked: list[tuple[str, Mapping[str, Any]]] = []
        for index, given in enumerate(steps):
            step: object = given  # callers are not always type-checked
            if not isinstance(step, Mapping) or not isinstance(step.get("tool"), str):
                raise TypeError(f"chain step {index} must be {{'tool': name, 'args': {{...}}}}")
            args = step.get("args", {})
            if not isinstance(args, Mapping):
                raise TypeError(f"chain step {index}'s args must be a mapping, got {args!r}")
            unknown = set(step) - {"tool", "args"}
            if unknown:
                raise TypeError(f"chain step {index} has unknown keys {sorted(unknown)}")
            checked.append((step["tool"], args))
        self.steps = tuple(checked)
        self.context = dict(context or {})

    def send(self, request: ModelRequest) -> ProviderTurn:
        results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        done = len(results)
        if results and results[-1].is_error:
            return ProviderTurn(
                text=f"The chain stopped at step {done}: {results[-1].content}",
                finish_reason=CHAIN_STOPPED,
            )
        if done >= len(self.steps):
            return ProviderTurn(
                text=f"The chain ran its {done} steps.", finish_reason=CHAIN_COMPLETE
            )
        context = dict(self.context)
        for message in request.messages:
            if isinstance(message, ToolResultMessage) and not message.is_error:
                context.update(_fields_of(message.content))
        tool, args = self.steps[done]
        resolved = _resolved(args, context, step=done, prompt_name=request.prompt_name)
        call = ToolCall(f"{request.run_id}-step{done + 1}", tool, json.dumps(resolved))
        return ProviderTurn(tool_calls=(call,), finish_reason="tool_calls")

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        return sent_whole(self.send, request)

    def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        return asent_whole(self.asend, request)

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        return turn

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        return {}


def _fields_of(content: str) -> Mapping[str, Any]:
    """The fields of a step's output as its tool message carries it: the JSON object that is
    its whole text, or the text after its first line (a result with a message of its own)."""
    for text in (content, content.partition("\n")[2]):
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return {}


def _resolved(value: Any, context: Mapping[str, Any], *, step: int, prompt_name: str) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        if value.startswith("$$"):
            return value[1:]
        return _lookup(value[1:], context, step=step, prompt_name=prompt_name)
    if isinstance(value, Mapping):
        return {
            k: _resolved(v, context, step=step, prompt_name=prompt_name) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_resolved(v, context, step=step, prompt_name=prompt_name) for v in value]
    return value


def _lookup(path: str, context: Mapping[str, Any], *, step: int, prompt_name: str) -> Any:
    found: Any = context
    for part in path.split("."):
        if not isinstance(found, Mapping) or part not in found:
            known = ", ".join(sorted(map(str, context))) or "nothing yet"
            raise PromptEvaluationError(
                f"chain step {step + 1} refers to ${path}, which neither the context nor an "
                f"earlier step's output holds (known: {known})",
                prompt_name=prompt_name,
                phase="chain",
            )
        found = found[part]
    return found
