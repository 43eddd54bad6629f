"""``FallbackModel``: one request, several models — when one fails, the next one answers.

A :class:`~affordance.runtime.model.Model` made of other models, tried in order. A request goes
to the first; when it raises a :class:`~affordance.errors.PromptEvaluationError` that ``on``
accepts (by default: ``error.transient`` — rate limited, overloaded, a 5xx, a lost connection,
a timeout), the same request goes to the next, on the same provider-neutral transcript, so the
tool calls and results of earlier turns are kept. Every model but the last is asked to send
once (``retries=False``): its SDK's retries would only delay the switch. The last keeps the
caller's setting.

What one provider wrote for itself never reaches another: before a request goes to a model,
each assistant turn recorded by another provider (``AssistantMessage.provider``) loses its
``provider_items`` (reasoning, signatures, hosted-tool blocks); its text and tool calls stay,
and the model's own serializer writes them in its wire format.

The answer says who gave it: ``ProviderTurn.provider`` and ``model``, and ``switches``, one
:class:`~affordance.runtime.model.ModelSwitch` per model that failed first (metadata only);
each switch is also one WARNING on the logger ``affordance.fallback``. The loop reads them
into ``PromptResponse.usage_by_provider`` and ``ModelSwitched`` events.

A stream switches only while nothing of the answer has arrived: a failure before the first
delta goes to the next model, a failure after it propagates (what was shown cannot be taken
back). Its ``TurnEnd`` says who answered (``provider``, ``model``, ``switches``), as a plain
answer's turn does.

Nothing about a request is kept on the instance: one ``FallbackModel`` serves concurrent runs.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from affordance._frozen import frozen
from affordance.errors import PromptEvaluationError
from affordance.runtime.model.connection import Model, model_name_of
from affordance.runtime.model.deltas import Delta, TurnEnd
from affordance.runtime.model.messages import AssistantMessage, Message
from affordance.runtime.model.turn import ModelRequest, ModelSwitch, ProviderTurn

if TYPE_CHECKING:
    from affordance.tools.hosted import HostedTool, HostedToolOutput

__all__ = ["FallbackModel", "SwitchOn"]

SwitchOn = Callable[[PromptEvaluationError], bool]
"""Whether a model's failure sends the request to the next model."""

_log = logging.getLogger("affordance.fallback")

_MODEL_METHODS = (
    "send",
    "asend",
    "send_stream",
    "asend_stream",
    "normalize_turn",
    "parse_hosted_outputs",
)


def _transient(error: PromptEvaluationError) -> bool:
    return error.transient


class FallbackModel:
    """Sends each request to ``models`` in order until one answers; see the module.

    ``on(error)`` says whether a model's ``PromptEvaluationError`` sends the request to the
    next model (default: ``error.transient``). An error it refuses propagates unchanged from
    the first model; after a switch, it ends the request with the same error as when every
    model failed. Any other exception propagates at once.
    """

    name: ClassVar[str] = "fallback"

    def __init__(self, *models: Model, on: SwitchOn | None = None) -> None:
        if not models:
            raise ValueError("FallbackModel needs at least one model")
        for position, model in enumerate(models):
            if isinstance(model, FallbackModel):
                raise TypeError(
                    f"model {position} is a FallbackModel: list its models in this one instead"
                )
            missing = [m for m in ("name", *_MODEL_METHODS) if not hasattr(model, m)]
            if missing:
                raise TypeError(
                    f"model {position} ({type(model).__qualname__}) is not a Model: it has no "
                    f"{', '.join(missing)}"
                )
        if on is not None and not callable(on):
            raise TypeError(f"on must be a callable taking the error, got {on!r}")
        self.models: tuple[Model, ...] = models
        self.on: SwitchOn = on if on is not None else _transient
        self._labels = tuple(model_name_of(model) for model in models)

    # -- the Model protocol -----------------------------------------------------------------

    def send(self, request: ModelRequest) -> ProviderTurn:
        failed: list[_Failure] = []
        for index, model in enumerate(self.models):
            try:
                turn = model.send(self._request_for(index, request))
            except PromptEvaluationError as error:
                self._fail_over(index, error, failed, request)
                continue
            return self._answered(index, turn, failed)
        raise AssertionError("unreachable: the last model answers or raises")  # pragma: no cover

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        failed: list[_Failure] = []
        for index, model in enumerate(self.models):
            try:
                turn = await model.asend(self._request_for(index, request))
            except PromptEvaluationError as error:
                self._fail_over(index, error, failed, request)
                continue
            return self._answered(index, turn, failed)
        raise AssertionError("unreachable: the last model answers or raises")  # pragma: no cover

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        """The deltas of the first model whose stream brings one; a failure before that first
        delta goes to the next model, a failure after it propagates. Closing the iterator
        closes the model's stream."""
        failed: list[_Failure] = []
        for index, model in enumerate(self.models):
            deltas: Iterator[Delta] | None = None
            try:
                deltas = model.send_stream(self._request_for(index, request))
                first = next(deltas, None)
            except PromptEvaluationError as error:
                _close(deltas)
                self._fail_over(index, error, failed, request)
                continue
            except BaseException:
                _close(deltas)
                raise
            try:
                if first is not None:
                    for delta in itertools.chain((first,), deltas):
                        yield self._said(index, delta, failed)
            finally:
                _close(deltas)
            return

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        """The async form of :meth:`send_stream`."""
        failed: list[_Failure] = []
        for index, model in enumerate(self.models):
            deltas: AsyncIterator[Delta] | None = None
            try:
                deltas = model.asend_stream(self._request_for(index, request))
                first = await anext(deltas, None)
            except PromptEvaluationError as error:
                await _aclose(deltas)
                self._fail_over(index, error, failed, request)
                continue
            except BaseException:
                await _aclose(deltas)
                raise
            try:
                if first is not None:
                    yield self._said(index, first, failed)
                    async for delta in deltas:
                        yield self._said(index, delta, failed)
            finally:
                await _aclose(deltas)
            return

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        """The turn as the model that answered reads it, still saying who answered: the model
        its hosted items remember (a plain answer's), else the model ``turn.provider`` and
        ``turn.model`` name (a streamed answer's; the first of them: two with the same
        provider and model differ at most in wire format, as OpenAI's Responses and Chat),
        else the first model."""
        index = self._who_answered(turn)
        normalized = self.models[0 if index is None else index].normalize_turn(turn, request)
        if index is None:
            return normalized
        return self._said_by(index, normalized, turn.switches)

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        """The hosted-tool outputs in ``items``, read by the model that answered: a turn this
        model returned carries who that was on its ``hosted_items``. Items without that record
        (a turn that crossed a serialization boundary, items built by hand) are read by the
        first model, whose codecs may not know another provider's items: their outputs are
        then lost, with the codec's metadata-only warnings."""
        return self.models[self.answered(items)].parse_hosted_outputs(items, hosted_tools)

    # -- who answered --------------------------------------------------------------------------

    def answered(self, hosted_items: Sequence[Mapping[str, Any]]) -> int:
        """The position of the model whose turn ``hosted_items`` came from; 0 (the first model)
        when they carry no record of it."""
        if isinstance(hosted_items, _HostedItems):
            index = self._checked(hosted_items.by)
            if index is not None:
                return index
        return 0

    def _who_answered(self, turn: ProviderTurn) -> int | None:
        """The position of the model that answered ``turn`` (``None``: not knowable)."""
        hosted = turn.hosted_items
        if isinstance(hosted, _HostedItems):
            index = self._checked(hosted.by)
            if index is not None:
                return index
        return self._index_of(turn.provider, turn.model)

    def _checked(self, by: _AnsweredBy) -> int | None:
        """``by``'s position, when it is this model's record; else the first model it names."""
        index = by.index
        if 0 <= index < len(self.models) and by == self._by(index):
            return index
        return self._index_of(by.provider, by.model)

    def _by(self, index: int) -> _AnsweredBy:
        return _AnsweredBy(index, self.models[index].name, self._labels[index])

    def _index_of(self, provider: str | None, model: str | None) -> int | None:
        """The first model named ``provider`` whose model is ``model`` (else the first named
        ``provider``); ``None`` when none is."""
        if provider is None:
            return None
        named = [i for i, m in enumerate(self.models) if m.name == provider]
        exact = [i for i in named if self._labels[i] == model]
        found = exact or named
        return found[0] if found else None

    def _answered(self, index: int, turn: ProviderTurn, failed: list[_Failure]) -> ProviderTurn:
        return self._said_by(index, turn, tuple(f.switch for f in failed))

    def _said_by(
        self, index: int, turn: ProviderTurn, switches: tuple[ModelSwitch, ...]
    ) -> ProviderTurn:
        """``turn`` saying model ``index`` answered after ``switches``, its hosted items
        remembering it too (for :meth:`parse_hosted_outputs`)."""
        by = self._by(index)
        items = turn.hosted_items
        hosted = items
        if items and not (isinstance(items, _HostedItems) and items.by == by):
            hosted = _HostedItems(items, by)
        said = (turn.provider, turn.model, turn.switches)
        if hosted is items and said == (by.provider, by.model, switches):
            return turn
        return dataclasses.replace(
            turn, provider=by.provider, model=by.model, switches=switches, hosted_items=hosted
        )

    def _said(self, index: int, delta: Delta, failed: list[_Failure]) -> Delta:
        """``delta`` as model ``index`` streamed it, its ``TurnEnd`` saying who answered."""
        if not isinstance(delta, TurnEnd):
            return delta
        by = self._by(index)
        switches = tuple(f.switch for f in failed)
        return dataclasses.replace(delta, provider=by.provider, model=by.model, switches=switches)

    # -- failing over ------------------------------------------------------------------------

    def _request_for(self, index: int, request: ModelRequest) -> ModelRequest:
        """``request`` as model ``index`` gets it: without other providers' items, and sent once
        unless it is the last model."""
        messages = _without_foreign_items(request.messages, self.models[index].name)
        retries = request.retries and index == len(self.models) - 1
        if messages is request.messages and retries == request.retries:
            return request
        return dataclasses.replace(request, messages=messages, retries=retries)

    def _fail_over(
        self,
        index: int,
        error: PromptEvaluationError,
        failed: list[_Failure],
        request: ModelRequest,
    ) -> None:
        """After model ``index`` failed with ``error`` (raised in the caller's ``except``):
        return to try the next model (the switch recorded in ``failed`` and logged), or raise
        — ``error`` itself when no switch happened, else the error naming every failure."""
        model = self.models[index]
        failure = _Failure(
            ModelSwitch(model.name, self._labels[index], error.status, error.message), error
        )
        last = index == len(self.models) - 1
        if not last and self.on(error):
            failed.append(failure)
            following = self.models[index + 1].name
            _log.warning(
                "model switched: %s (%s) failed (status %s); the request goes to %s",
                failure.switch.provider,
                failure.switch.model,
                failure.switch.status,
                following,
                extra={
                    "affordance_run_id": request.run_id,
                    "affordance_turn": request.turn,
                    "affordance_provider": failure.switch.provider,
                    "affordance_model": failure.switch.model,
                    "affordance_status": failure.switch.status,
                    "affordance_transient": error.transient,
                    "affordance_next_provider": following,
                },
            )
            return
        if not failed:
            raise error  # no switch happened: the model's own error, as it is
        raise self._every_failure(
            (*failed, failure), untried=self.models[index + 1 :], request=request
        ) from error

    def _every_failure(
        self, failed: Sequence[_Failure], *, untried: Sequence[Model], request: ModelRequest
    ) -> PromptEvaluationError:
        last = failed[-1].error
        named = "; ".join(f"{_who(f.switch)}: {_what(f.switch)}" for f in failed)
        if untried:
            names = ", ".join(model.name for model in untried)
            message = (
                f"the request failed on every model tried: {named} (not tried: {names}; the "
                "last failure is not one to switch on)"
            )
        else:
            message = f"the request failed on every model: {named}"
        return PromptEvaluationError(
            message,
            prompt_name=request.prompt_name,
            phase="request",
            provider=self.name,
            transient=last.transient,
        )


@frozen
class _Failure:
    switch: ModelSwitch
    error: PromptEvaluationError


def _who(switch: ModelSwitch) -> str:
    return switch.provider if switch.model is None else f"{switch.provider} ({switch.model})"


def _what(switch: ModelSwitch) -> str:
    status = "no answer" if switch.status is None else f"status {switch.status}"
    return f"{status}, {switch.message}"


def _without_foreign_items(messages: tuple[Message, ...], provider: str) -> tuple[Message, ...]:
    """``messages`` with the provider items of every assistant turn another provider recorded
    left out (text and tool calls kept); the same tuple when there are none."""
    kept: list[Message] | None = None
    for position, message in enumerate(messages):
        if (
            isinstance(message, AssistantMessage)
            and message.provider_items
            and message.provider is not None
            and message.provider != provider
        ):
            if kept is None:
                kept = list(messages[:position])
            kept.append(dataclasses.replace(message, provider_items=()))
        elif kept is not None:
            kept.append(message)
    return messages if kept is None else tuple(kept)


@frozen
class _AnsweredBy:
    """The model that answered a request: its position in the fallback, provider and model."""

    index: int
    provider: str
    model: str | None


class _HostedItems(tuple[Mapping[str, Any], ...]):
    """A turn's hosted items, remembering the model that answered: a tuple like any other to
    the codecs reading them."""

    by: _AnsweredBy

    def __new__(cls, items: Sequence[Mapping[str, Any]], by: _AnsweredBy) -> _HostedItems:
        made = super().__new__(cls, items)
        made.by = by
        return made


def _close(deltas: Iterator[Delta] | None) -> None:
    close = getattr(deltas, "close", None)
    if close is not None:
        close()


async def _aclose(deltas: AsyncIterator[Delta] | None) -> None:
    aclose = getattr(deltas, "aclose", None)
    if aclose is not None:
        await aclose()
