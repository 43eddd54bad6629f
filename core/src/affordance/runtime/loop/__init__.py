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

from affordance.runtime.loop.actions import Action, Finished, RunCalls, SendRequest
from affordance.runtime.loop.drivers import drive, drive_async
from affordance.runtime.loop.evaluation import Evaluation
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.loop.evaluator import Evaluator
from affordance.runtime.loop.fallback_adapter import FallbackAdapter
from affordance.runtime.loop.request_events import RequestEvents
from affordance.runtime.loop.streaming import stream_async, stream_sync

__all__ = [
    "Action",
    "Evaluation",
    "EvaluationRunner",
    "Evaluator",
    "FallbackAdapter",
    "Finished",
    "RequestEvents",
    "RunCalls",
    "SendRequest",
    "drive",
    "drive_async",
    "stream_async",
    "stream_sync",
]
