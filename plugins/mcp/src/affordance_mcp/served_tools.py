"""``ServedTools``: a prompt's tools declared as MCP tools and called through core's executor.

What is served is every tool of the prompt's enabled sections, whatever their disclosure: the
prompt is rendered with every summarized section opened (``open_sections`` is for a model
reading the prompt; an MCP client lists the tools itself), and ``open_sections`` and hosted
tools (the provider runs those) are left out. Each tool is declared as:

- ``inputSchema``: ``tool.parameters_schema()``;
- ``outputSchema``: ``affordance.serde.schema(tool.result_type)`` when that is an object schema
  (MCP asks for one), else none (so none for a type serde cannot describe);
- annotations: ``destructiveHint`` = ``tool.destructive``; ``readOnlyHint`` and
  ``idempotentHint`` = ``tool.cache_ttl is not None`` (a tool whose results may be cached is one
  whose call changes nothing, so a second call is the same as the first); ``title`` from the
  name (``delete_task`` → "Delete task").

A call's result is ``model_text()`` (what a model would read) as text, ``isError`` when it
failed, and ``structuredContent`` = ``dump(value)`` when an output schema was declared and it
succeeded. Each call answered is a ``ToolInvoked`` on the server's bus, as in a run (it ends
the call's ``execute_tool`` span when a tracer watches); the session is not sent it, so a
server's session does not keep every call of its life.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from mcp import types

from affordance import (
    Document,
    EventBus,
    Image,
    PromptTemplate,
    RenderedPrompt,
    SectionPath,
    SectionVisibility,
    Session,
    Tool,
    ToolContext,
    ToolExecutor,
    ToolInvoked,
    ToolResult,
    open_sections_tool,
)
from affordance.runtime import CallOutcome, PreparedCall, Runner, ToolCall
from affordance.serde import dump, schema
from affordance_mcp.no_model import NoModelRunner

__all__ = ["ServedTools", "declaration", "fully_opened"]


class ServedTools:
    """The tools one server offers, and the executor, session and runner their calls share.

    ``params`` render the prompt (its defaults when none). Every call gets a fresh
    ``ToolContext`` with the prompt, its render, ``adapter`` (a :class:`NoModelRunner` when
    none is given), ``session`` and ``bus`` (one each for the server's life, new ones when none
    are given); the calls of one server share its ``run_id`` and each is its own ``turn``.
    """

    def __init__(
        self,
        prompt: PromptTemplate[Any],
        *params: Any,
        executor: ToolExecutor | None = None,
        adapter: Runner | None = None,
        session: Session | None = None,
        bus: EventBus | None = None,
    ) -> None:
        self.prompt = prompt
        self.rendered = fully_opened(prompt, params)
        skipped = open_sections_tool().name
        self.tools: dict[str, Tool[Any, Any]] = {
            tool.name: tool for tool in self.rendered.tools if tool.name != skipped
        }
        self.declarations = tuple(declaration(tool) for tool in self.tools.values())
        self._structured = {d.name for d in self.declarations if d.output_schema is not None}
        self.executor = executor if executor is not None else ToolExecutor()
        self.adapter: Runner = adapter if adapter is not None else NoModelRunner()
        self.session = session if session is not None else Session()
        self.bus = bus if bus is not None else EventBus()
        self.run_id = f"mcp-{uuid.uuid4().hex[:16]}"
        self._turns = itertools.count(1)

    def prepare(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        call_id: str,
        confirmed: bool = False,
    ) -> PreparedCall:
        """The executor's decision on a call, without running it (unknown tool, invalid
        arguments, needs confirmation, cached result...)."""
        call = ToolCall(call_id, name, dict(arguments or {}))
        return self.executor.prepare(call, self.tools, confirmed=confirmed)

    async def run(self, prepared: PreparedCall) -> types.CallToolResult:
        """Run a prepared call through the executor (a failure it reports is ``isError``)."""
        context = ToolContext(
            prompt=self.prompt,
            rendered_prompt=self.rendered,
            adapter=self.adapter,
            session=self.session,
            event_bus=self.bus,
            run_id=self.run_id,
            turn=next(self._turns),
            call_id=prepared.call.id,
        )
        outcome = await self.executor.arun(prepared, context)
        self._finish(outcome, context.turn)
        return self._answer(outcome)

    def refuse(self, prepared: PreparedCall, result: ToolResult[Any]) -> types.CallToolResult:
        """Answer a call that will not run (declined, or unconfirmable) with ``result``."""
        outcome = CallOutcome(prepared, result)
        self._finish(outcome, next(self._turns))
        return self._answer(outcome)

    def _finish(self, outcome: CallOutcome, turn: int) -> None:
        """The executor's bookkeeping, then the call's ``ToolInvoked`` for whoever watches."""
        self.executor.finish(outcome, run_id=self.run_id, turn=turn)
        if not self.bus.wants(ToolInvoked):
            return
        self.bus.publish(outcome.invoked(self.prompt.name, self.run_id, turn))

    def _answer(self, outcome: CallOutcome) -> types.CallToolResult:
        result = outcome.result
        content: list[types.ContentBlock] = [
            types.TextContent(type="text", text=result.model_text(outcome.rendered)),
            *_attachment_blocks(result.attachments),
        ]
        structured = result.success and outcome.prepared.call.name in self._structured
        if structured and result.value is not None:
            return types.CallToolResult(content=content, structured_content=dump(result.value))
        return types.CallToolResult(content=content, is_error=not result.success)


def _attachment_blocks(attachments: object) -> list[types.ContentBlock]:
    """A result's images as image blocks and its documents as embedded resources (``uri``
    ``attachment:///<name>``); one given by URL as a link to it. A handler's attachments are
    anything at all: what is neither an ``Image`` nor a ``Document`` is left out."""
    if not isinstance(attachments, (tuple, list)):
        return []
    blocks: list[types.ContentBlock] = []
    for attachment in attachments:
        if isinstance(attachment, Image):
            if attachment.data is not None and attachment.media_type is not None:
                blocks.append(
                    types.ImageContent(
                        type="image", data=attachment.base64(), mime_type=attachment.media_type
                    )
                )
            elif attachment.url is not None:
                blocks.append(
                    types.ResourceLink(type="resource_link", uri=attachment.url, name="image")
                )
        elif isinstance(attachment, Document):
            if attachment.data is not None:
                resource = types.BlobResourceContents(
                    uri=f"attachment:///{attachment.filename}",
                    mime_type=attachment.media_type,
                    blob=attachment.base64(),
                )
                blocks.append(types.EmbeddedResource(type="resource", resource=resource))
            elif attachment.url is not None:
                blocks.append(
                    types.ResourceLink(
                        type="resource_link", uri=attachment.url, name=attachment.filename
                    )
                )
    return blocks


def fully_opened(prompt: PromptTemplate[Any], params: Sequence[Any]) -> RenderedPrompt[Any]:
    """``prompt`` rendered with ``params`` and every summarized section opened, down to the
    innermost (opening a section may reveal summarized children)."""
    rendered = prompt.render(*params)
    opened: dict[SectionPath, SectionVisibility] = {}
    while rendered.summarized and not set(rendered.summarized) <= opened.keys():
        opened.update(dict.fromkeys(rendered.summarized, SectionVisibility.FULL))
        rendered = prompt.render(*params, visibility_overrides=opened)
    return rendered


def declaration(tool: Tool[Any, Any]) -> types.Tool:
    """``tool`` as an MCP tool declaration (the rules are in the module docstring)."""
    title = tool.name.replace("_", " ").replace("-", " ").strip().capitalize()
    cached = tool.cache_ttl is not None
    return types.Tool(
        name=tool.name,
        title=title,
        description=tool.description,
        input_schema=_plain(tool.parameters_schema()),
        output_schema=_object_schema(tool.result_type),
        annotations=types.ToolAnnotations(
            title=title,
            read_only_hint=cached,
            destructive_hint=tool.destructive,
            idempotent_hint=cached,
        ),
    )


def _object_schema(result_type: Any) -> dict[str, Any] | None:
    """The result type's JSON Schema when it describes an object, else ``None`` (also for a
    type serde cannot describe, such as a plain class with its own ``render()``)."""
    if result_type is None:
        return None
    try:
        described = _plain(schema(result_type))
    except TypeError:
        return None
    return described if described.get("type") == "object" else None


def _plain(value: Any) -> Any:
    """A copy made of plain dicts and lists, safe to hand to the SDK (the tool's schema is a
    cached, read-only mapping)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
