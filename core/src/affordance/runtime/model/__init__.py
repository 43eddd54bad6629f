"""The model's side of a run: what the loop sends a model and what comes back.

The runtime's lowest room; it knows nothing of tools running, events or the loop.

- ``connection``: :class:`Model`, the protocol a model connection implements;
- ``turn``: :class:`ModelRequest` (one request), :class:`ProviderTurn` (the normalized answer),
  :class:`Usage` and the per-turn ``tool_choice`` rule;
- ``messages``: the provider-neutral transcript (:class:`ToolCall` and the three messages);
- ``deltas``: the pieces of a streamed turn and the :class:`TurnAssembler` joining them;
- ``serializers``: the serializer roles of the provider contract (tools, results, output);
- ``compaction``: the ``history=`` hook — what a request carries of a long conversation,
  checked to keep every call with its result;
- ``output``: structured output — the schema a model is asked to follow, parsing the answer;
- ``limits``: :class:`UsageLimits`, how much one run may spend (requests, calls, tokens, cost);
- ``prices``: :class:`Prices`, what a turn's usage cost (:class:`GenaiPrices`: genai-prices);
- ``hosted_outputs``: reading a response's hosted-tool outputs through their codecs, checked
  against the output types their kinds are registered with;
- ``hosted_approvals``: reading the approvals a response's hosted tools wait for, and writing
  the caller's answers, through their codecs;
- ``fallback``: :class:`FallbackModel`, a model made of models — a request one fails goes to
  the next;
- ``attachment_rules``: :class:`AttachmentSupport`, the images and documents a model carries,
  and what a run does with the ones it cannot (refuse the caller's, leave a tool's out).
"""

from affordance._lazy import lazy_exports

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "DROPPED_RESULT": "affordance.runtime.model.compaction",
    "NO_USAGE": "affordance.runtime.model.turn",
    "PAUSED": "affordance.runtime.model.turn",
    "TOOL_CHOICE_KEYWORDS": "affordance.runtime.model.turn",
    "Arguments": "affordance.runtime.model.serializers",
    "AssistantMessage": "affordance.runtime.model.messages",
    "Delta": "affordance.runtime.model.deltas",
    "DeltaError": "affordance.runtime.model.deltas",
    "FallbackModel": "affordance.runtime.model.fallback",
    "GenaiPrices": "affordance.runtime.model.prices",
    "HistoryHook": "affordance.runtime.model.compaction",
    "HostedActivity": "affordance.runtime.model.deltas",
    "Message": "affordance.runtime.model.messages",
    "Model": "affordance.runtime.model.connection",
    "ModelRequest": "affordance.runtime.model.turn",
    "ModelSwitch": "affordance.runtime.model.turn",
    "OutputFormat": "affordance.runtime.model.serializers",
    "OutputSerializer": "affordance.runtime.model.serializers",
    "Prices": "affordance.runtime.model.prices",
    "PricesUnavailableError": "affordance.runtime.model.prices",
    "ProviderItem": "affordance.runtime.model.deltas",
    "ProviderTurn": "affordance.runtime.model.turn",
    "RefusalPiece": "affordance.runtime.model.deltas",
    "TextPiece": "affordance.runtime.model.deltas",
    "ToolCall": "affordance.runtime.model.messages",
    "ToolCallArguments": "affordance.runtime.model.deltas",
    "ToolCallBegun": "affordance.runtime.model.deltas",
    "ToolCallReady": "affordance.runtime.model.deltas",
    "ToolChoice": "affordance.runtime.model.turn",
    "ToolDeclaration": "affordance.runtime.model.serializers",
    "ToolResultMessage": "affordance.runtime.model.messages",
    "ToolResultSerializer": "affordance.runtime.model.serializers",
    "ToolSerializer": "affordance.runtime.model.serializers",
    "TurnAssembler": "affordance.runtime.model.deltas",
    "TurnEnd": "affordance.runtime.model.deltas",
    "Usage": "affordance.runtime.model.turn",
    "UsageLimits": "affordance.runtime.model.limits",
    "UserMessage": "affordance.runtime.model.messages",
    "asent_whole": "affordance.runtime.model.deltas",
    "compacted": "affordance.runtime.model.compaction",
    "deltas_of": "affordance.runtime.model.deltas",
    "drop_tool_results_older_than": "affordance.runtime.model.compaction",
    "keep_last_turns": "affordance.runtime.model.compaction",
    "model_name_of": "affordance.runtime.model.connection",
    "output_name": "affordance.runtime.model.output",
    "output_schema": "affordance.runtime.model.output",
    "parse_output": "affordance.runtime.model.output",
    "read_hosted_outputs": "affordance.runtime.model.hosted_outputs",
    "sent_whole": "affordance.runtime.model.deltas",
    "tool_choice_for_turn": "affordance.runtime.model.turn",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
