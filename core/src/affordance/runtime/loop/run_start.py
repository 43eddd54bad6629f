"""``begin_run``: one run started for a runner — a new evaluation, or the one a call resumes.

Every entry point of the evaluate API (``evaluate``, ``aevaluate``, ``stream``, ``astream``)
starts here. A new run gets the runner's loop options (``max_turns`` unless the call gives its
own, ``max_expansions`` when the runner applies ``open_sections``, ``tool_choice``,
``parallel_tool_calls``, ``prices``) and the call's, a new session and bus unless given, and a
conversation's messages before the caller's. A run resumed — with ``confirmations``, or with
``resume=`` the id of a run a usage limit stopped — is found in its session (``resumption``)
and goes on with this runner: what is given now replaces what it had. A float ``deadline`` is
seconds from now on the executor's clock; a cost limit without ``prices`` takes them from
``genai-prices``, kept on the runner from then on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from affordance.clock import Deadline
from affordance.prompt.paths import SectionPath
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.loop.actions import Action
from affordance.runtime.loop.evaluation import Evaluation
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.loop.resumption import stopped_evaluation, suspended_evaluation
from affordance.runtime.model.compaction import HistoryHook
from affordance.runtime.model.limits import UsageLimits
from affordance.runtime.model.messages import Message
from affordance.runtime.model.prices import Prices, prices_for_cost_limit
from affordance.runtime.model.turn import ToolChoice
from affordance.runtime.record.bus import EventBus
from affordance.runtime.record.confirmation import Confirmation
from affordance.runtime.record.conversation import ConversationHandle
from affordance.runtime.record.session import Session

if TYPE_CHECKING:
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import OverridesStore

__all__ = ["StartingRunner", "begin_run"]

OutputT = TypeVar("OutputT")


class StartingRunner(EvaluationRunner, Protocol):
    """A runner as a run's start sees it (an ``Evaluator``): its loop options, beside what
    every evaluation needs of it."""

    executor: ToolExecutor
    max_turns: int
    open_sections: Literal["apply", "return"]
    max_expansions: int
    tool_choice: ToolChoice | None
    parallel_tool_calls: bool | None
    prices: Prices | None


def begin_run(
    runner: StartingRunner,
    prompt: PromptTemplate[OutputT],
    params: Sequence[Any],
    session: Session | None,
    bus: EventBus | None,
    messages: Sequence[Message],
    visibility_overrides: Mapping[SectionPath, SectionVisibility] | None,
    confirmations: Mapping[str, Confirmation] | None,
    deadline: Deadline | float | None,
    max_turns: int | None,
    limits: UsageLimits | None,
    resume: str | None,
    history: HistoryHook | None,
    conversation: ConversationHandle | None,
    observer: Callable[[object], None] | None = None,
    *,
    asynchronous: bool = False,
    overrides: OverridesStore | PromptOverrides | None = None,
    overrides_tag: str = "latest",
) -> tuple[Evaluation[OutputT], Action]:
    """A new evaluation and its first action, or a suspended one and its resumption.

    ``observer`` receives every event the run publishes from its first action on (the
    streaming drivers turn them into stream events)."""
    if deadline is not None and isinstance(deadline, (int, float)):
        deadline = Deadline.after(float(deadline), runner.executor.clock)
    prices = runner.prices
    if limits is not None and limits.cost is not None:
        prices = runner.prices = prices_for_cost_limit(prices, runner.connection, prompt.name)
    if resume is not None or confirmations is not None:
        if resume is not None:
            run = stopped_evaluation(prompt, session, resume, confirmations)
        else:
            assert confirmations is not None
            run = suspended_evaluation(prompt, session, confirmations)
        run.adapter = runner  # the runner resuming it sends, and its calls reach it
        run.asynchronous = asynchronous
        run.observer = observer
        for name, value in (
            ("bus", bus),
            ("deadline", deadline),
            ("history", history),
            ("prices", prices),
            ("conversation", conversation),  # another handle on the same conversation
        ):
            if value is not None:  # given now: it replaces what the run had
                setattr(run, name, value)
        if resume is not None:
            return run, run.resume_stopped(limits)
        if limits is not None:
            run.set_limits(limits)
        assert confirmations is not None
        return run, run.resume(confirmations)
    loaded: tuple[Message, ...] = ()
    if conversation is not None:
        loaded = conversation.load()
        messages = (*loaded, *messages)
    # __init__ is called on a new instance rather than through the class: a class called with
    # keywords passes them through a dict built per call (about 1 µs for these, a thirtieth of
    # an offline run). So does any call whose arguments fill more than thirty stack slots (a
    # keyword takes two), so past fourteen keywords what the evaluation only keeps is set once
    # it is made.
    evaluation: Evaluation[OutputT] = Evaluation.__new__(Evaluation)
    Evaluation.__init__(
        evaluation,
        prompt=prompt,
        params=params,
        adapter=runner,
        session=session if session is not None else Session(),
        bus=bus if bus is not None else EventBus(),
        executor=runner.executor,
        messages=messages,
        visibility_overrides=visibility_overrides,
        overrides=overrides,
        overrides_tag=overrides_tag,
        max_turns=max_turns if max_turns is not None else runner.max_turns,
        max_expansions=runner.max_expansions if runner.open_sections == "apply" else 0,
        deadline=deadline,
        limits=limits,
    )
    evaluation.prices = prices
    evaluation.tool_choice = runner.tool_choice
    evaluation.parallel_tool_calls = runner.parallel_tool_calls
    evaluation.history = history
    evaluation.observer = observer
    if asynchronous:
        evaluation.asynchronous = True
    if conversation is not None:
        evaluation.keep_in(conversation, len(loaded))
    return evaluation, evaluation.start()
