"""``ProviderAdapter``: what a provider plugin implements, and the evaluate API it inherits.

A plugin subclasses :class:`ProviderAdapter` and implements :meth:`ProviderAdapter.send` and
:meth:`ProviderAdapter.asend`: turn a :class:`ModelRequest` into its wire format, call its SDK,
and turn the answer into a :class:`ProviderTurn`. Everything else — the loop, tool execution,
confirmations, disclosure, events — is inherited from core and shared by all providers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, TypeVar

from affordance.clock import Deadline
from affordance.errors import PromptEvaluationError
from affordance.prompt.paths import SectionPath
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.actions import Action
from affordance.runtime.confirmation import Confirmation
from affordance.runtime.drivers import drive, drive_async
from affordance.runtime.events import EventBus
from affordance.runtime.executor import ToolExecutor
from affordance.runtime.loop import Evaluation
from affordance.runtime.messages import Message
from affordance.runtime.response import PromptResponse
from affordance.runtime.session import Session
from affordance.runtime.turn import ModelRequest, ProviderTurn
from affordance.tools.hosted import HostedTool, HostedToolCodec, HostedToolOutput
from affordance.tools.tool import Tool

__all__ = ["ProviderAdapter"]

OutputT = TypeVar("OutputT")


class ProviderAdapter(ABC):
    """Evaluates prompts against one provider.

    ``open_sections="apply"`` (the default) lets the loop apply what the model opens with
    ``open_sections`` — merge the overrides, re-render, continue — up to ``max_expansions``
    times; ``"return"`` hands the request back in ``PromptResponse.expansion`` instead.
    """

    name: ClassVar[str] = "provider"

    def __init__(
        self,
        *,
        executor: ToolExecutor | None = None,
        max_turns: int = 16,
        open_sections: Literal["apply", "return"] = "apply",
        max_expansions: int = 4,
    ) -> None:
        if open_sections not in ("apply", "return"):
            raise ValueError(f"open_sections must be 'apply' or 'return', got {open_sections!r}")
        self.executor = executor if executor is not None else ToolExecutor()
        self.max_turns = max_turns
        self.open_sections = open_sections
        self.max_expansions = max_expansions

    # -- what a provider implements ---------------------------------------------------------

    @abstractmethod
    def send(self, request: ModelRequest) -> ProviderTurn:
        """Send one request with the provider's sync client and normalize the answer."""

    @abstractmethod
    async def asend(self, request: ModelRequest) -> ProviderTurn:
        """Send one request with the provider's async client and normalize the answer."""

    def tool_declarations(self, tools: Sequence[Tool[Any, Any]]) -> list[dict[str, Any]]:
        """How this provider declares ``tools`` on the wire (``affordance render`` shows it).

        The default is the provider-neutral form: name, description and JSON Schema params.
        """
        return [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.parameters_schema()),
            }
            for tool in tools
        ]

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        """The codec for a hosted tool kind on this provider (None if unsupported).

        Looked up by ``(self.name, kind)`` in the plugin registry, which is built on first use.
        """
        from affordance.plugins import registry  # plugins load on first use

        return registry().codec(self.name, kind)

    def require_hosted_codec(
        self, kind: str, *, prompt_name: str | None = None
    ) -> HostedToolCodec[Any, Any]:
        """The codec for ``kind``, or a :class:`PromptEvaluationError` naming this provider, the
        kind and the providers that do support it. Provider plugins call this when they
        serialize a request's hosted tools."""
        codec = self.hosted_codec(kind)
        if codec is not None:
            return codec
        from affordance.plugins import registry  # plugins load on first use

        others = [p for p in registry().providers_supporting(kind) if p != self.name]
        supported = (
            f"providers that support it: {', '.join(others)}"
            if others
            else "no installed provider supports it (is its hosted-tool plugin installed?)"
        )
        raise PromptEvaluationError(
            f"hosted tool kind {kind!r} is not supported by provider {self.name!r}; {supported}",
            prompt_name=prompt_name,
            phase="render",
            provider=self.name,
        )

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        """Typed outputs of the hosted tools invoked in a response, by tool name."""
        outputs: dict[str, HostedToolOutput] = {}
        for tool in hosted_tools:
            codec = self.hosted_codec(tool.kind)
            if codec is None:
                continue
            output = codec.parse_output(items, tool)
            if output is not None:
                outputs[tool.name] = output
        return outputs

    # -- what every adapter offers -----------------------------------------------------------

    def evaluate(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
    ) -> PromptResponse[OutputT]:
        """Evaluate ``prompt`` to a final answer, running tools as the model calls them.

        Pass ``confirmations`` (with the ``session`` of the suspended run) to resume an
        evaluation that returned pending confirmations.
        """
        evaluation, action = self._begin(
            prompt,
            params,
            session,
            bus,
            messages,
            visibility_overrides,
            confirmations,
            deadline,
            max_turns,
        )
        return drive(evaluation, action, self.send)

    async def aevaluate(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
    ) -> PromptResponse[OutputT]:
        """The async form of :meth:`evaluate`; tool calls of one turn run concurrently."""
        evaluation, action = self._begin(
            prompt,
            params,
            session,
            bus,
            messages,
            visibility_overrides,
            confirmations,
            deadline,
            max_turns,
        )
        return await drive_async(evaluation, action, self.asend)

    def _begin(
        self,
        prompt: PromptTemplate[OutputT],
        params: Sequence[Any],
        session: Session | None,
        bus: EventBus | None,
        messages: Sequence[Message],
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None,
        confirmations: Mapping[str, Confirmation] | None,
        deadline: Deadline | float | None,
        max_turns: int | None,
    ) -> tuple[Evaluation[OutputT], Action]:
        if isinstance(deadline, (int, float)):
            deadline = Deadline.after(float(deadline), self.executor.clock)
        if confirmations is not None:
            if session is None:
                raise PromptEvaluationError(
                    "resuming with confirmations needs the session of the suspended evaluation",
                    prompt_name=prompt.name,
                    phase="confirm",
                )
            suspended = session.suspended_run(set(confirmations))
            if suspended is None:
                raise PromptEvaluationError(
                    "no suspended evaluation in this session waits for calls "
                    f"{', '.join(sorted(confirmations))}",
                    prompt_name=prompt.name,
                    phase="confirm",
                )
            if suspended.prompt is not prompt:
                raise PromptEvaluationError(
                    f"the calls {', '.join(sorted(confirmations))} belong to an evaluation of "
                    f"prompt {suspended.prompt.name!r}; resume it with that prompt",
                    prompt_name=prompt.name,
                    phase="confirm",
                )
            if bus is not None:
                suspended.bus = bus
            if deadline is not None:
                suspended.deadline = deadline
            return suspended, suspended.resume(confirmations)
        evaluation: Evaluation[OutputT] = Evaluation(
            prompt=prompt,
            params=params,
            adapter=self,
            session=session if session is not None else Session(),
            bus=bus if bus is not None else EventBus(),
            executor=self.executor,
            messages=messages,
            visibility_overrides=visibility_overrides,
            max_turns=max_turns if max_turns is not None else self.max_turns,
            max_expansions=self.max_expansions if self.open_sections == "apply" else 0,
            deadline=deadline,
        )
        return evaluation, evaluation.start()
