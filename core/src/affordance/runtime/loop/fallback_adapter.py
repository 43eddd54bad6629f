"""``FallbackAdapter``: a runner whose requests fall back to other providers mid-run.

``FallbackAdapter(primary, *others)`` runs prompts like any
:class:`~affordance.runtime.loop.Evaluator` — ``evaluate``, ``aevaluate``, ``stream``,
``astream``, the same loop — on a :class:`~affordance.runtime.model.fallback.FallbackModel`
made of the runners' models: each request goes to the primary's model, and to the next
runner's when it fails in a way ``on`` accepts (by default a transient failure). The transcript
is provider-neutral, so a run that switched keeps every earlier tool call and result.

The loop's options (``executor``, ``max_turns``, ``open_sections``, ``max_expansions``,
``tool_choice``, ``parallel_tool_calls``) are the primary's unless given here; the other
runners' loop options are not used, only their models.

Hosted tools: a turn's hosted-tool outputs and the approvals its hosted tools wait for are read
by the codecs of the runner whose model answered (the turn's hosted items record it).
``hosted_codec`` and ``hosted_output_type``, asked with a kind alone, cannot know who answered:
they answer from the first runner, primary first, that has one — so the caller's answer to a
hosted approval is written by the primary's codec when the primary has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from affordance.runtime.loop.evaluator import Evaluator
from affordance.runtime.model.fallback import FallbackModel, SwitchOn
from affordance.runtime.model.hosted_approvals import HostedApproval
from affordance.tools.hosted import HostedTool, HostedToolCodec

__all__ = ["FallbackAdapter"]

_LOOP_OPTIONS = (
    "executor",
    "max_turns",
    "open_sections",
    "max_expansions",
    "tool_choice",
    "parallel_tool_calls",
)

FallbackT = TypeVar("FallbackT", bound="FallbackAdapter")


class FallbackAdapter(Evaluator):
    """Evaluates prompts on ``primary``'s model, falling back to each of ``others``' in turn;
    see the module. ``on(error)`` says which ``PromptEvaluationError`` switches (default:
    ``error.transient``); ``loop_options`` override the primary's loop options."""

    name: ClassVar[str] = "fallback"
    connection: FallbackModel

    def __init__(
        self,
        primary: Evaluator,
        *others: Evaluator,
        on: SwitchOn | None = None,
        **loop_options: Any,
    ) -> None:
        runners = (primary, *others)
        for position, runner in enumerate(runners):
            if not isinstance(runner, Evaluator):
                raise TypeError(
                    f"FallbackAdapter takes runners (provider adapters); argument {position} is "
                    f"a {type(runner).__qualname__}"
                )
        unknown = sorted(set(loop_options) - set(_LOOP_OPTIONS))
        if unknown:
            raise TypeError(
                f"FallbackAdapter got unknown option(s) {', '.join(unknown)}; loop options are "
                f"{', '.join(_LOOP_OPTIONS)}"
            )
        options = {option: getattr(primary, option) for option in _LOOP_OPTIONS}
        options.update(loop_options)
        model = FallbackModel(*(runner.connection for runner in runners), on=on)
        super().__init__(model, **options)
        self.runners: tuple[Evaluator, ...] = runners

    # -- hosted tools: the codecs of the runner that answered -------------------------------

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        """The first runner's codec for ``kind``, primary first (a kind alone does not say who
        answered)."""
        for runner in self.runners:
            codec = runner.hosted_codec(kind)
            if codec is not None:
                return codec
        return None

    def hosted_output_type(self, kind: str) -> type[Any] | None:
        """The output type the first runner that knows ``kind`` has for it, primary first."""
        for runner in self.runners:
            found = runner.hosted_output_type(kind)
            if found is not None:
                return found
        return None

    def hosted_approvals(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> tuple[HostedApproval, ...]:
        """The approvals in ``items``, found by the runner whose model answered."""
        return self.runners[self.connection.answered(items)].hosted_approvals(items, hosted_tools)

    # -- lifecycle: each runner's ------------------------------------------------------------

    def close(self) -> None:
        """Close each runner that can be closed (what its model owns)."""
        for runner in self.runners:
            close = getattr(runner, "close", None)
            if close is not None:
                close()

    async def aclose(self) -> None:
        """Close each runner's async side, on the loop that used it."""
        for runner in self.runners:
            aclose = getattr(runner, "aclose", None)
            if aclose is not None:
                await aclose()

    def __enter__(self: FallbackT) -> FallbackT:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self: FallbackT) -> FallbackT:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
