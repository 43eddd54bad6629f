"""``PromptTool``: a prompt the model calls as a tool — a nested run inside a tool call.

The nested run goes through the outer run's runner (its provider) unless the tool names its
own, publishes its events on the outer run's bus, and adds its usage to the outer run's (so
the outer run's usage limits count it). A destructive call inside it pauses the outer run
too: the outer response lists the nested call (``PendingConfirmation.via`` names the outer
call), and answering it by its own id resumes both runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance._frozen import frozen
from affordance.errors import PromptEvaluationError
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.nested import NestedWaiting
from affordance.runtime.calls.runner import Runner
from affordance.runtime.model.messages import UserMessage
from affordance.runtime.model.turn import Usage
from affordance.runtime.record.response import PromptResponse
from affordance.runtime.record.session import Session
from affordance.tools.result import ToolResult
from affordance.tools.tool import Tool

__all__ = ["PromptRequest", "PromptTool"]


@frozen
class PromptRequest:
    """What the model passes to a prompt tool that takes no params type of its own."""

    request: str
    """What to do, in the model's words: the nested run's user message."""


def PromptTool(  # noqa: N802 - used like a class: PromptTool(prompt, name=..., ...) is a Tool
    prompt: PromptTemplate[Any],
    *,
    name: str,
    description: str,
    adapter: Runner | None = None,
    params_type: type[Any] | None = None,
    timeout: float | None = None,
) -> Tool[Any, Any]:
    """A :class:`~affordance.tools.tool.Tool` whose handler evaluates ``prompt``.

    Without ``params_type`` the model passes a :class:`PromptRequest`, sent to the nested run
    as its user message (``prompt`` renders as its instructions); with one (a dataclass the
    prompt's sections render with), the model fills it and it renders the prompt. ``adapter``
    runs the nested prompt (default: the outer run's). The model reads the nested run's
    structured output, or its text. ``timeout`` bounds the nested run like any tool's call.
    """
    handler = _NestedRun(prompt, adapter, takes_params=params_type is not None)
    return Tool(
        name=name,
        description=description,
        handler=handler,
        params_type=params_type if params_type is not None else PromptRequest,
        timeout=timeout,
    )


class _NestedRun:
    """The handler of a :func:`PromptTool`: one nested evaluation per call."""

    __slots__ = ("adapter", "prompt", "takes_params")

    def __init__(
        self, prompt: PromptTemplate[Any], adapter: Runner | None, *, takes_params: bool
    ) -> None:
        self.prompt = prompt
        self.adapter = adapter
        self.takes_params = takes_params

    async def __call__(self, params: Any, *, context: ToolContext) -> ToolResult[Any]:
        """Run the nested prompt with the API the outer run uses: awaited on its loop for
        ``aevaluate``/``astream``; for ``evaluate``/``stream`` (which runs this coroutine on a
        loop of its own), the plain ``evaluate``, so a runner with only a sync client works."""
        runner = self.adapter if self.adapter is not None else context.adapter
        answers = context.nested_answers
        counted: Mapping[str, Usage] | None = None
        options: dict[str, Any] = {"bus": context.event_bus, "deadline": context.deadline}
        args: tuple[Any, ...] = ()
        if answers is not None:
            paused = answers.state
            if not isinstance(paused, _Paused):
                raise TypeError("a prompt tool's nested answers must hold the run it paused")
            options.update(session=paused.session, confirmations=answers.confirmations)
            counted = paused.counted
        else:
            options["session"] = Session()
            if self.takes_params:
                args = (params,)
            else:
                options["messages"] = (UserMessage(params.request),)
        with context.nesting():
            if context.asynchronous:
                response = await runner.aevaluate(self.prompt, *args, **options)
            else:
                response = runner.evaluate(self.prompt, *args, **options)
        return _nested_result(response, context, provider=_provider_of(runner), counted=counted)


@frozen
class _Paused:
    """A nested run waiting for confirmations: its session, and the usage it had spent, by
    provider, which the outer run has counted already."""

    session: Session
    counted: Mapping[str, Usage]


def _nested_result(
    response: PromptResponse[Any],
    context: ToolContext,
    *,
    provider: str,
    counted: Mapping[str, Usage] | None = None,
) -> ToolResult[Any]:
    """The result of a call whose nested run answered ``response``: its usage added to the
    outer run's (less ``counted``, what a nested run resumed had spent before it paused), and
    its output (or text) — or, when it waits for confirmations, the wait."""
    spent = dict(response.usage_by_provider) or {provider: response.usage}
    for name, usage in spent.items():
        before = counted.get(name) if counted else None
        context.add_usage(usage if before is None else _less(usage, before), name)
    if response.pending_confirmations:
        paused = _Paused(response.session, spent)
        return ToolResult.ok(NestedWaiting(response.pending_confirmations, paused))
    if response.output is not None:
        return ToolResult.ok(response.output)
    if response.text is None:
        raise PromptEvaluationError(
            f"the nested prompt {response.prompt_name!r} finished without an answer "
            f"({response.finish_reason})",
            prompt_name=response.prompt_name,
            phase="output",
        )
    return ToolResult.ok(response.text)


def _provider_of(runner: Runner) -> str:
    connection = getattr(runner, "connection", None)
    name = getattr(connection, "name", None) or getattr(runner, "name", None)
    return name if isinstance(name, str) else "provider"


def _less(usage: Usage, before: Usage) -> Usage:
    """What ``usage`` (a run's, summed) adds to ``before`` (the same run's, earlier)."""
    return Usage(
        usage.input_tokens - before.input_tokens,
        usage.output_tokens - before.output_tokens,
        usage.cached_input_tokens - before.cached_input_tokens,
        usage.reasoning_tokens - before.reasoning_tokens,
        None if usage.cost is None or before.cost is None else usage.cost - before.cost,
    )
