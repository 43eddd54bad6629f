# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

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
