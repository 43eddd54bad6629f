"""The loop: one evaluation from its first request to its response, and the runner around it.

The runtime's top room; it uses the other three and nothing uses it.

- ``evaluation``: :class:`Evaluation`, the sans-IO state machine — every decision of a run:
  the path of every turn is here, the rest in the six mixins below;
- ``rendering``: the prompt as requests show it — rendered, opened sections, the hosted tools
  the policy allows, the attachments a request carries;
- ``run_limits``: how far a run may go (``max_turns``, the deadline, usage limits, stopping
  and resuming where it stopped), and the usage they count, split by provider;
- ``finishing``: how a run ends — its response, its final answer accepted or asked again;
- ``suspension``: a run waiting for the caller's answers, and resumed with them;
- ``kept_conversation``: a run's messages appended to its conversation, each once;
- ``publishing``: a run's events, to its session, its bus and its stream;
- ``evaluation_runner``: :class:`EvaluationRunner`, what an evaluation needs of its runner;
- ``turn_calls``: one turn's tool calls in call order — prepared, skipped after a terminal tool,
  waiting for confirmation, published and turned into tool messages;
- ``hosted_waiting``: the calls a turn's hosted tools wait to have approved, and their answers
  added to the turn for the next request;
- ``actions``: what the state machine asks its driver to do (:class:`SendRequest`,
  :class:`RunCalls`, :class:`Finished`);
- ``request_events``: the events of a run's requests to its model, built only when watched;
- ``drivers`` and ``streaming``: the plain (sync, async) and streaming drivers performing them;
- ``usage_split``: a run's usage priced and split by provider, and a fallback's switch events;
- ``answers``: reading a final answer — parsed, validated, or sent back with its problems;
- ``resumption``: finding the suspended evaluation the caller's confirmations answer, or the
  run a usage limit stopped;
- ``evaluator``: :class:`Evaluator`, the runner — the evaluate and stream API over the loop,
  holding one model connection, with ``run_start`` (starting or resuming one run with the
  runner's options) and ``runner_model`` (the runner as the model it holds, or is);
- ``chain``: :class:`ChainModel`, tool chaining — steps run through the loop as a model's calls;
- ``fallback_adapter``: :class:`FallbackAdapter`, a runner whose requests fall back to other
  runners' models when one fails.
"""

from affordance._lazy import lazy_exports

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "Action": "affordance.runtime.loop.actions",
    "Evaluation": "affordance.runtime.loop.evaluation",
    "EvaluationRunner": "affordance.runtime.loop.evaluation_runner",
    "Evaluator": "affordance.runtime.loop.evaluator",
    "FallbackAdapter": "affordance.runtime.loop.fallback_adapter",
    "Finished": "affordance.runtime.loop.actions",
    "RequestEvents": "affordance.runtime.loop.request_events",
    "RunCalls": "affordance.runtime.loop.actions",
    "SendRequest": "affordance.runtime.loop.actions",
    "drive": "affordance.runtime.loop.drivers",
    "drive_async": "affordance.runtime.loop.drivers",
    "stream_async": "affordance.runtime.loop.streaming",
    "stream_sync": "affordance.runtime.loop.streaming",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
