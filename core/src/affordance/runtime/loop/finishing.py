"""``Finishing``: how a run ends — its final answer read, and the response it returns.

A run returns one :class:`PromptResponse`, published as ``PromptExecuted``: with the final
answer, with a terminal tool's result (and the sections it asked to open, when the loop does
not open them), or with the confirmations it waits for. A turn that asks for no call is the
final answer: the text of the turns the provider paused comes first; a refusal ends a run that
wants structured output with ``PromptEvaluationError`` (phase ``output``); otherwise the answer
is read (``answers``: parsed into the prompt's output type, passed by its validators) and either
accepted or sent back with its problems as a user message, until the prompt's
``output_retries`` are spent (then ``OutputValidationError`` lists every attempt).

A mixin of :class:`~affordance.runtime.loop.Evaluation`, which holds every attribute in its
own slots; ``_FinishingRun`` names what these methods read and write of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from affordance.errors import OutputAttempt, OutputValidationError, PromptEvaluationError
from affordance.prompt.paths import SectionPath
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.loop.actions import Action, Finished
from affordance.runtime.loop.answers import NotAcceptedError, accepted_output, retry_message
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.model.limits import UsageLimits
from affordance.runtime.model.messages import Message, UserMessage
from affordance.runtime.model.turn import ProviderTurn, Usage
from affordance.runtime.record.confirmation import PendingConfirmation
from affordance.runtime.record.events import OutputRetried, PromptExecuted
from affordance.runtime.record.response import PromptResponse, ToolCallResult
from affordance.runtime.record.session import Session
from affordance.tools.hosted import HostedToolOutput

__all__ = ["Finishing"]

OutputT = TypeVar("OutputT")


class _FinishingRun(Protocol[OutputT]):
    """The evaluation as its ending sees it."""

    adapter: EvaluationRunner
    prompt: PromptTemplate[OutputT]
    session: Session
    run_id: str
    turn: int
    usage: Usage
    tool_results: list[ToolCallResult]
    hosted_outputs: dict[str, HostedToolOutput]
    opened: list[SectionPath]
    limits: UsageLimits | None
    _paused_text: list[str]
    _rejected: tuple[OutputAttempt, ...]
    _transcript: list[Message]

    @property
    def usage_by_provider(self) -> dict[str, Usage]: ...

    def _emit(self, event: object) -> None: ...

    def _next_request(self) -> Action: ...

    def _respond(self, *, text: str | None, finish_reason: str, output: Any = None) -> Action: ...

    def _ask_again(self, text: str | None, problems: tuple[str, ...]) -> Action: ...

    def _rewatch(self) -> None: ...


class Finishing:
    """An evaluation's end: its response, and its final answer accepted or asked again."""

    __slots__ = ()

    # what these methods set (the evaluation's slots)
    _paused_text: list[str]
    _rejected: tuple[OutputAttempt, ...]

    def _finish(self: _FinishingRun[Any], turn: ProviderTurn) -> Action:
        text = turn.text
        if self._paused_text:
            text = "".join([*self._paused_text, text or ""])
            self._paused_text = []
        prompt = self.prompt
        output = None
        if prompt.output_type is not None or prompt.output_validators:
            if turn.refusal is not None and prompt.output_type is not None:
                raise PromptEvaluationError(
                    f"the model refused: {turn.refusal}",
                    prompt_name=prompt.name,
                    phase="output",
                    raw_text=turn.refusal,
                )
            try:
                output = accepted_output(prompt, text)
            except NotAcceptedError as rejected:
                return self._ask_again(text, rejected.problems)
        return self._respond(
            text=text if text is not None else turn.refusal,
            output=output,
            finish_reason=turn.finish_reason,
        )

    def _ask_again(self: _FinishingRun[Any], text: str | None, problems: tuple[str, ...]) -> Action:
        """Send the model's rejected answer back with its problems, or give up when the
        prompt's ``output_retries`` are spent."""
        self._rejected = (*self._rejected, OutputAttempt(text, problems))
        attempts = len(self._rejected)
        if attempts > self.prompt.output_retries:
            raise OutputValidationError(
                f"the final answer was not accepted after {attempts} attempt(s): "
                f"{'; '.join(problems)}",
                attempts=self._rejected,
                prompt_name=self.prompt.name,
                provider=self.adapter.connection.name,
            )
        self._emit(OutputRetried(self.prompt.name, self.run_id, self.turn, attempts, problems))
        self._transcript.append(UserMessage(retry_message(self.prompt, problems)))
        if self.limits is not None:  # the answer's usage counted: is the run near a limit?
            self._rewatch()
        return self._next_request()

    def _respond(
        self: _FinishingRun[OutputT],
        *,
        text: str | None,
        finish_reason: str,
        output: Any = None,
        pending: tuple[PendingConfirmation, ...] = (),
        expansion: Mapping[SectionPath, SectionVisibility] | None = None,
    ) -> Finished[OutputT]:
        # every field in order, none by keyword: a class called with keywords passes them
        # through a dict built per call
        response: PromptResponse[OutputT] = PromptResponse(
            self.prompt.name,
            self.run_id,
            self.session,
            output,
            text,
            tuple(self.tool_results),
            dict(self.hosted_outputs),
            self.usage,
            pending,  # pending_confirmations
            expansion,
            finish_reason,
            self.turn,  # turns
            tuple(self._transcript),  # messages
            self.usage_by_provider,
        )
        self._emit(PromptExecuted(self.prompt.name, self.run_id, response, tuple(self.opened)))
        return Finished(response)
