"""The offline "model": a small rule-based responder behind affordance's ``ScriptedAdapter``.

It reads what a real model would read from the ``ModelRequest`` — the last user message, the
tool calls it already made since then and their results, and today's date from the
instructions — and answers with the next tool calls or with the reply. It keeps no state of
its own, so one adapter serves every conversation and survives restarts.

It understands: "add/create a task ...", "list/show my tasks ...", "mark ... done", "start ...",
"set the priority of ... to ...", "rename ... to ...", "move ... to <date>", "update ...: ...",
"delete ...", "attach <url> to ...", "refresh ...", "delete attachment N", "help".

The modules, each importing only those above it: ``steps`` (the run since the user spoke),
``replies`` (the turns it answers with), ``task_refs`` (which task the user means), ``intents``
(one class per thing the user can ask), ``parsing`` (a message to its intent), ``model`` (the
adapter and :func:`respond`).
"""

from __future__ import annotations

from taskchat.offline.intents import HELP, Intent
from taskchat.offline.model import offline_adapter, respond
from taskchat.offline.parsing import parse_intent, parse_when
from taskchat.offline.steps import Step, Steps
from taskchat.offline.task_refs import TaskRef

__all__ = [
    "HELP",
    "Intent",
    "Step",
    "Steps",
    "TaskRef",
    "offline_adapter",
    "parse_intent",
    "parse_when",
    "respond",
]
