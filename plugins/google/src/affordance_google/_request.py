"""``generateContent`` requests: a ``ModelRequest`` to the REST API's camelCase body, the whole
transcript each time (``specs/adapters/google.md``, "Concept mapping")."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from affordance.adapters import (
    AssistantMessage,
    ModelRequest,
    RunForm,
    ToolResultMessage,
    UserMessage,
    arguments_json,
    merge_extra_body,
    run_entry,
    string_or_none,
    wire_tool_choice,
)
from affordance_google._attachments import attachment_part
from affordance_google.serializers import wire_name

if TYPE_CHECKING:
    from affordance.adapters import ProviderModel, ToolDeclaration, WireForms, WireModel
    from affordance.tools import Tool

__all__ = ["PreparedRequest", "build_body"]

_BUILT_FIELDS = frozenset(
    {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}
)
"""The body fields the adapter builds: a hosted tool's codec may add others, never these."""

_CHOICES = {"auto": {"mode": "AUTO"}, "none": {"mode": "NONE"}, "required": {"mode": "ANY"}}
_PART_KEYS = frozenset(
    {
        *("text", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"),
        *("inlineData", "fileData", "thought", "thoughtSignature", "toolCall", "toolResponse"),
        "videoMetadata",
    }
)
"""The fields of a Gemini part: a provider item with one of them (and no ``type``) is one."""


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request body, and what reading its answer needs: the tool name of each declared name
    that differs, the turn (for synthetic call ids), whether hosted tools were declared."""

    body: dict[str, Any]
    names: Mapping[str, str]
    turn: int
    hosted: bool = False


def build_body(model: WireModel[Any], request: ModelRequest) -> PreparedRequest:
    """The body of ``request``; hosted tools' extras go after our fields, before ``extra_body``."""
    settings, hosted = model.settings, model.hosted_request(request)
    resolved = model.resolution()  # the registry's snapshot, looked up once for the body
    functions = resolved.tool_sets.of(request.tools, _functions, resolved.declaration)
    contents = _contents(model, resolved.wire_forms, request.messages, functions.declared)
    body: dict[str, Any] = {"contents": contents}
    if request.instructions is not None:
        body["systemInstruction"] = {"parts": [{"text": request.instructions}]}
    tools: list[Mapping[str, Any]] = list(hosted.declarations)
    if functions.declarations:
        tools.append({"functionDeclarations": [*functions.declarations]})
    if tools:
        body["tools"] = tools
        config = {
            "functionCallingConfig": _function_calling_config(request, functions.declared),
            "includeServerSideToolInvocations": bool(hosted.declarations) or None,
        }
        tool_config = {key: value for key, value in config.items() if value is not None}
        if functions.declarations and tool_config:
            body["toolConfig"] = tool_config
    generation: dict[str, Any] = {}
    if request.output_schema is not None:
        generation.update(resolved.output_format(request.output_schema, request.output_name).wire)
    options = {"maxOutputTokens": settings.max_tokens, "temperature": settings.temperature}
    generation.update((key, value) for key, value in options.items() if value is not None)
    if generation:
        body["generationConfig"] = generation
    hosted.merge_into(body, built=_BUILT_FIELDS)
    merge_extra_body(body, settings.extra_body)
    return PreparedRequest(body, functions.names, request.turn, hosted=bool(hosted.declarations))


@dataclass(frozen=True, slots=True)
class _Functions:
    """A tool set's declarations, and the names that differ both ways (``names``: declared to
    tool; ``declared``: tool to declared). Kept per tool set, so read-only."""

    declarations: tuple[Mapping[str, Any], ...]
    names: Mapping[str, str]
    declared: Mapping[str, str]


def _functions(
    tools: Sequence[Tool[Any, Any]], declare: Callable[[Tool[Any, Any]], ToolDeclaration]
) -> _Functions:
    declarations = tuple(declare(tool).wire for tool in tools)
    names = {
        str(wire["name"]): tool.name
        for tool, wire in zip(tools, declarations, strict=True)
        if wire.get("name") != tool.name
    }
    return _Functions(declarations, names, {tool: wire for wire, tool in names.items()})


def _function_calling_config(
    request: ModelRequest, declared: Mapping[str, str]
) -> dict[str, Any] | None:
    """``toolConfig.functionCallingConfig``; ``parallel_tool_calls`` has none: Gemini cannot
    turn parallel calls off."""
    wire = wire_tool_choice(
        request.tool_choice,
        lambda name: {"mode": "ANY", "allowedFunctionNames": [declared.get(name, wire_name(name))]},
        _CHOICES,
    )
    return None if wire is None else dict(wire)


def _contents(
    model: ProviderModel, forms: WireForms, messages: Sequence[Any], declared: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The transcript as ``contents``: each message's form built once (``forms``), keyed by what
    else it depends on; only the content joining several results is built per request."""
    contents: list[dict[str, Any]] = []
    pairing: Mapping[str, tuple[str | None, str]] = {}  # the last model turn's calls
    results: list[_Result] = []  # the current turn's results, until another message
    for message in messages:
        if isinstance(message, ToolResultMessage):
            context = pairing if message.call_id in pairing else declared
            results.append(forms.of(message, _result, model, pairing, declared, context=context))
            continue
        if results:
            contents.append(run_entry(results, _content))
            results.clear()
        if isinstance(message, UserMessage):
            contents.append(forms.of(message, _user_content))
        elif isinstance(message, AssistantMessage):
            turn = forms.of(message, _model_turn, declared, context=declared)
            if turn.content is not None:
                contents.append(turn.content)
            pairing = turn.pairing
    if results:
        contents.append(run_entry(results, _content))
    return contents


@dataclass(frozen=True, slots=True)
class _ModelTurn:
    """A model turn's content (``None``: no parts), and each call id's ``(wire id, wire name)``."""

    content: dict[str, Any] | None
    pairing: Mapping[str, tuple[str | None, str]]


_Result: TypeAlias = RunForm[dict[str, Any], dict[str, Any]]
"""A ``functionResponse`` part, and its content when it is its turn's only result."""


def _content(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": role, "parts": parts}


def _user_content(message: UserMessage) -> dict[str, Any]:
    """A user turn: its attachments, then its text (the order Google advises)."""
    parts = [attachment_part(attachment) for attachment in message.attachments]
    if message.text or not parts:  # the API refuses an empty text beside attachments
        parts.append({"text": message.text})
    return {"role": "user", "parts": parts}


FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator"
"""The thought signature Google documents for calls Gemini did not make (a rebuilt turn's)."""


def _model_turn(message: AssistantMessage, declared: Mapping[str, str]) -> _ModelTurn:
    """The model turn: Gemini's own parts, or rebuilt from its text and calls."""
    items = message.provider_items
    parts: list[Any] = [i for i in items if "type" not in i and not _PART_KEYS.isdisjoint(i)]
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    if parts and len(calls) == len(message.tool_calls):
        pairing = {
            call.id: (string_or_none(wire.get("id")) or None, str(wire.get("name", call.name)))
            for call, wire in zip(message.tool_calls, calls, strict=True)
        }
        return _ModelTurn({"role": "model", "parts": parts}, pairing)
    # Rebuilt: no call id on the wire (results pair by order). Gemini 3 refuses a turn whose
    # first call has no thought signature: the first gets Google's stand-in.
    parts = [{"text": message.text}] if message.text else []
    pairing = {}
    for call in message.tool_calls:
        name = declared.get(call.name, wire_name(call.name))
        part: dict[str, Any] = {"functionCall": {"name": name, "args": arguments_json(call)}}
        if not pairing:
            part["thoughtSignature"] = FOREIGN_CALL_SIGNATURE
        parts.append(part)
        pairing[call.id] = (None, name)
    return _ModelTurn({"role": "model", "parts": parts} if parts else None, pairing)


def _result(
    message: ToolResultMessage,
    model: ProviderModel,
    pairing: Mapping[str, tuple[str | None, str]],
    declared: Mapping[str, str],
) -> _Result:
    """A ``functionResponse`` naming the call it answers as the model did (``id`` only if sent)."""
    call_id, name = pairing.get(message.call_id, (None, declared.get(message.name, "")))
    response = model.tool_result(message)
    if not isinstance(response, Mapping):
        response = {"output": response}
    reply: dict[str, Any] = {"name": name or wire_name(message.name), "response": response}
    if call_id is not None:
        reply = {"id": call_id, **reply}
    if message.attachments:  # beside the serializer's response, whatever it wrote
        reply["parts"] = [attachment_part(attachment) for attachment in message.attachments]
    part = {"functionResponse": reply}
    return RunForm("user", (part,), {"role": "user", "parts": [part]})
