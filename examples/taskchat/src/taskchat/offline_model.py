"""The offline "model": a small rule-based responder behind affordance's ``ScriptedAdapter``.

It reads what a real model would read from the ``ModelRequest`` — the last user message, the
tool calls it already made since then and their results, and today's date from the
instructions — and answers with the next tool calls or with the reply. It keeps no state of
its own, so one adapter serves every conversation and survives restarts.

It understands: "add/create a task ...", "list/show my tasks ...", "mark ... done", "start ...",
"set the priority of ... to ...", "rename ... to ...", "move ... to <date>", "update ...: ...",
"delete ...", "attach <url> to ...", "refresh ...", "delete attachment N", "help".
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

from affordance import ToolExecutor
from affordance.adapters import (
    AssistantMessage,
    Message,
    ModelRequest,
    ProviderTurn,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.testing import ScriptedAdapter, text, tool_calls

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


def offline_adapter(executor: ToolExecutor | None = None, *, pace: float = 0.0) -> ScriptedAdapter:
    """A ``ScriptedAdapter`` answering every request with :func:`respond`; streamed, it waits
    ``pace`` seconds after each piece, as a model typing would (0: no wait)."""
    if pace < 0:
        raise ValueError(f"pace must not be negative, got {pace}")
    adapter = _PacedAdapter(responder=respond, executor=executor, pace=pace)
    adapter.requests = _Unrecorded()  # a server must not keep every request it ever saw
    return adapter


class _PacedAdapter(ScriptedAdapter):
    def __init__(self, *, pace: float, **options: Any) -> None:
        super().__init__(**options)
        self._pace = pace

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        async for delta in super().asend_stream(request):
            yield delta
            if self._pace:
                await asyncio.sleep(self._pace)


class _Unrecorded(list[ModelRequest]):
    def append(self, item: ModelRequest) -> None:
        pass


def respond(request: ModelRequest) -> ProviderTurn:
    user_text, steps = _since_last_user_message(request.messages)
    intent = parse_intent(user_text, _today(request.instructions))
    return intent.next_turn(steps)


# -- what happened since the user spoke --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One tool call of this run and its result: the message line and the JSON payload."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    message: str
    data: Any = None

    def error_code(self) -> str | None:
        code = self.data.get("code") if isinstance(self.data, dict) else None
        return code if isinstance(code, str) else None

    def declined(self) -> bool:
        return not self.ok and "declined" in self.message


@dataclass(frozen=True, slots=True)
class Steps:
    items: tuple[Step, ...] = ()

    def last(self, name: str) -> Step | None:
        for step in reversed(self.items):
            if step.name == name:
                return step
        return None

    def all(self, name: str) -> list[Step]:
        return [step for step in self.items if step.name == name]


def _since_last_user_message(messages: Sequence[Message]) -> tuple[str, Steps]:
    start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    if start < 0:
        return "", Steps()
    user = messages[start]
    assert isinstance(user, UserMessage)
    calls: dict[str, ToolCall] = {}
    steps: list[Step] = []
    for message in messages[start + 1 :]:
        if isinstance(message, AssistantMessage):
            calls.update((call.id, call) for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage) and message.call_id in calls:
            call = calls[message.call_id]
            steps.append(_step(call, message))
    return user.text, Steps(tuple(steps))


def _step(call: ToolCall, result: ToolResultMessage) -> Step:
    arguments: Any = call.arguments
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {}
    first, _, rest = result.content.partition("\n")
    data: Any = None
    message = result.content
    if rest:
        try:
            data = json.loads(rest)
            message = first
        except ValueError:
            data = None
    return Step(
        call.name,
        dict(arguments) if isinstance(arguments, dict) else {},
        not result.is_error,
        message,
        data,
    )


_QUOTES = "\"'\u201c\u201d\u2018\u2019"  # straight and typographic quotes
_TODAY = re.compile(r"Today is (\d{4}-\d{2}-\d{2})")


def _today(instructions: str | None) -> date:
    match = _TODAY.search(instructions or "")
    if match is not None:
        return date.fromisoformat(match[1])
    return datetime.now(timezone.utc).date()


# -- answering ---------------------------------------------------------------------------------


def _call(name: str, arguments: dict[str, Any], say: str | None = None) -> ProviderTurn:
    return tool_calls(
        ToolCall(f"call_{uuid.uuid4().hex[:16]}", name, json.dumps(arguments)), text=say
    )


def _calls(*pairs: tuple[str, dict[str, Any]]) -> ProviderTurn:
    return tool_calls(
        *(ToolCall(f"call_{uuid.uuid4().hex[:16]}", n, json.dumps(a)) for n, a in pairs)
    )


def _say(reply: str) -> ProviderTurn:
    return text(reply)


_INVALID = re.compile(r"^Invalid arguments for '\w+': (?:\d+ validation errors? for \w+:)?\s*")
_RECOVERY_FOR_PEOPLE = {
    "TASK_NOT_FOUND": "Say “list my tasks” to see the ids.",
    "ATTACHMENT_NOT_FOUND": "Say “refresh” with the task to see its attachments.",
}


def _failure(doing: str, step: Step) -> str:
    """A readable sentence for a failed call: what failed, why, and what to do about it."""
    detail = " ".join(line.strip() for line in step.message.splitlines() if line.strip())
    detail = _INVALID.sub("", detail)
    sentence = f"I couldn't {doing}: {detail.rstrip('.')}."
    code = step.error_code()
    advice = _RECOVERY_FOR_PEOPLE.get(code or "")
    if advice is None and isinstance(step.data, dict):
        advice = step.data.get("recover_action")
    return f"{sentence} {advice.rstrip('.')}." if advice else sentence


def _quoted(title: Any) -> str:
    return f"“{title}”" if title else ""


# -- intents -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaskRef:
    """How the user named a task: by id (``#3``, ``task 3``) or by words of its title."""

    task_id: int | None
    words: str

    @classmethod
    def parse(cls, phrase: str) -> TaskRef:
        cleaned = phrase.strip().strip(_QUOTES + " ")
        match = re.fullmatch(r"(?:task\s*)?#?\s*(\d+)", cleaned, re.IGNORECASE)
        if match is not None:
            return cls(int(match[1]), cleaned)
        cleaned = re.sub(r"^(?:the|my)\s+", "", cleaned, flags=re.IGNORECASE)
        cleaned = re.sub(r"\s+task$", "", cleaned, flags=re.IGNORECASE)
        return cls(None, cleaned.strip(_QUOTES + " "))

    def label(self) -> str:
        return f"task #{self.task_id}" if self.task_id is not None else f"“{self.words}”"


@dataclass(frozen=True, slots=True)
class Resolved:
    task_id: int
    title: str | None

    def label(self) -> str:
        return f"task #{self.task_id}" + (f" {_quoted(self.title)}" if self.title else "")


def _resolve(ref: TaskRef, steps: Steps) -> Resolved | ProviderTurn:
    """The task the user means, or the next turn that finds out (a query, or a question)."""
    if ref.task_id is not None:
        return Resolved(ref.task_id, None)
    query = steps.last("query_tasks")
    if query is None:
        return _call(
            "query_tasks",
            {"filters": {"text": ref.words}, "limit": 10, "response_format": "standard"},
        )
    if not query.ok or not isinstance(query.data, dict):
        return _say(_failure(f"look up {ref.label()}", query))
    tasks = [t for t in query.data.get("tasks", []) if isinstance(t, dict)]
    exact = [t for t in tasks if str(t.get("title", "")).casefold() == ref.words.casefold()]
    matches = exact or tasks
    if len(matches) == 1:
        return Resolved(int(matches[0]["id"]), matches[0].get("title"))
    if not matches:
        return _say(f"I found no task matching {ref.label()}. Say “list my tasks” to see them.")
    listing = ", ".join(f"#{t['id']} {_quoted(t.get('title'))}" for t in matches[:5])
    return _say(
        f"Several tasks match {ref.label()}: {listing}. Which one? "
        f"Name it by id, like “#{matches[0]['id']}”."
    )


class Intent:
    """What the user asked for; :meth:`next_turn` decides the model's next move."""

    def next_turn(self, steps: Steps) -> ProviderTurn:
        raise NotImplementedError


HELP = (
    "I can manage your tasks. Try: “add a task to buy milk due tomorrow with high priority”, "
    "“list my tasks”, “mark buy milk done”, “set the priority of buy milk to low”, "
    "“delete buy milk”, “attach https://github.com/owner/repo/pull/1 to buy milk”, "
    "“refresh buy milk”."
)


@dataclass(frozen=True, slots=True)
class Help(Intent):
    confused: bool = False

    def next_turn(self, steps: Steps) -> ProviderTurn:
        return _say(("I didn't understand that. " if self.confused else "") + HELP)


@dataclass(frozen=True, slots=True)
class CreateTask(Intent):
    arguments: dict[str, Any]

    def next_turn(self, steps: Steps) -> ProviderTurn:
        created = steps.last("create_task")
        if created is None:
            return _call("create_task", self.arguments)
        if not created.ok or not isinstance(created.data, dict):
            return _say(_failure("create that task", created))
        task = created.data
        details = [f"priority {task.get('priority')}"]
        if task.get("eta"):
            details.append(f"due {str(task['eta'])[:10]}")
        if task.get("tags"):
            details.append("tagged " + ", ".join(task["tags"]))
        return _say(
            f"Created task #{task.get('id')} {_quoted(task.get('title'))} ({'; '.join(details)})."
        )


@dataclass(frozen=True, slots=True)
class ListTasks(Intent):
    arguments: dict[str, Any]
    qualifier: str = ""

    def next_turn(self, steps: Steps) -> ProviderTurn:
        found = steps.last("query_tasks")
        if found is None:
            return _call("query_tasks", self.arguments)
        if not found.ok or not isinstance(found.data, dict):
            return _say(_failure("list your tasks", found))
        tasks = [t for t in found.data.get("tasks", []) if isinstance(t, dict)]
        total = int(found.data.get("total", len(tasks)))
        kind = f"{self.qualifier} " if self.qualifier else ""
        if total == 0:
            return _say(f"You have no {kind}tasks.")
        noun = "task" if total == 1 else "tasks"
        head = f"You have {total} {kind}{noun}"
        if found.data.get("response_format") == "concise":
            ids = ", ".join(f"#{t['id']} ({t['status']})" for t in tasks)
            return _say(f"{head}: {ids}.")
        lines = [f"{head}:"] + [_task_line(t) for t in tasks]
        if len(tasks) < total:
            lines.append(f"(showing the first {len(tasks)})")
        return _say("\n".join(lines))


def _task_line(task: dict[str, Any]) -> str:
    parts = [str(task.get("status", "")).replace("_", " "), f"{task.get('priority')} priority"]
    if task.get("eta"):
        parts.append(f"due {str(task['eta'])[:10]}")
    line = f"- #{task.get('id')} {task.get('title')} ({', '.join(parts)})"
    if task.get("tags"):
        line += " #" + " #".join(task["tags"])
    if task.get("description"):
        line += f"\n  {task['description']}"
    for attachment in task.get("attachments") or ():
        line += f"\n  attachment #{attachment.get('id')}: {attachment.get('url')}"
    return line


@dataclass(frozen=True, slots=True)
class UpdateTask(Intent):
    ref: TaskRef
    changes: dict[str, Any]

    def next_turn(self, steps: Steps) -> ProviderTurn:
        target = _resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        updated = steps.last("update_task")
        if updated is None:
            return _call("update_task", {"task_id": target.task_id, **self.changes})
        if not updated.ok or not isinstance(updated.data, dict):
            return _say(_failure(f"update {target.label()}", updated))
        task = updated.data
        described = ", ".join(_change(name, task.get(name)) for name in self.changes)
        return _say(f"Updated task #{task.get('id')} {_quoted(task.get('title'))}: {described}.")


def _change(name: str, value: Any) -> str:
    if name == "status":
        return "done" if value == "completed" else f"now {str(value).replace('_', ' ')}"
    if name == "eta":
        return f"due {str(value)[:10]}" if value else "no due date"
    if name == "tags":
        return "tags " + (", ".join(value) if value else "cleared")
    return f"{name} {value}"


@dataclass(frozen=True, slots=True)
class DeleteTask(Intent):
    ref: TaskRef

    def next_turn(self, steps: Steps) -> ProviderTurn:
        target = _resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        deleted = steps.last("delete_task")
        if deleted is None:
            return _call(
                "delete_task",
                {"task_id": target.task_id},
                say=f"I'll delete {target.label()} once you confirm.",
            )
        if deleted.declined():
            return _say(f"OK, I kept {target.label()}.")
        if not deleted.ok:
            return _say(_failure(f"delete {target.label()}", deleted))
        title = deleted.data.get("title") if isinstance(deleted.data, dict) else None
        label = Resolved(target.task_id, title or target.title).label()
        extra = " and its attachments" if "attachment" in deleted.message else ""
        return _say(f"Deleted {label}{extra}.")


@dataclass(frozen=True, slots=True)
class Attach(Intent):
    url: str
    ref: TaskRef

    def next_turn(self, steps: Steps) -> ProviderTurn:
        target = _resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        created = steps.last("create_attachment")
        if created is None:
            return _call("create_attachment", {"task_id": target.task_id, "url": self.url})
        if not created.ok or not isinstance(created.data, dict):
            return _say(_failure(f"attach that to {target.label()}", created))
        kind = str(created.data.get("kind", "link")).replace("github_", "GitHub ").replace("_", " ")
        return _say(
            f"Attached the {kind} to {target.label()} as attachment #{created.data.get('id')}. "
            f"Say “refresh task {target.task_id}” to fetch its details."
        )


@dataclass(frozen=True, slots=True)
class RefreshAttachment(Intent):
    attachment_id: int

    def next_turn(self, steps: Steps) -> ProviderTurn:
        refreshed = steps.last("refresh_attachment")
        if refreshed is None:
            return _call("refresh_attachment", {"attachment_id": self.attachment_id})
        return _say(_refresh_line(self.attachment_id, refreshed))


@dataclass(frozen=True, slots=True)
class RefreshTask(Intent):
    ref: TaskRef

    def next_turn(self, steps: Steps) -> ProviderTurn:
        target = _resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        listed = steps.last("list_attachments")
        if listed is None:
            return _call("list_attachments", {"task_id": target.task_id})
        if not listed.ok or not isinstance(listed.data, dict):
            return _say(_failure(f"list the attachments of {target.label()}", listed))
        github = [
            a
            for a in listed.data.get("attachments", [])
            if isinstance(a, dict) and str(a.get("kind", "")).startswith("github_")
        ]
        if not github:
            return _say(f"{target.label().capitalize()} has no GitHub attachments to refresh.")
        refreshed = steps.all("refresh_attachment")
        if not refreshed:
            return _calls(*(("refresh_attachment", {"attachment_id": a["id"]}) for a in github))
        lines = [f"Refreshed the GitHub attachments of {target.label()}:"]
        lines += [
            "- " + _refresh_line(int(step.arguments.get("attachment_id", 0)), step)
            for step in refreshed
        ]
        return _say("\n".join(lines))


def _refresh_line(attachment_id: int, step: Step) -> str:
    if not step.ok or not isinstance(step.data, dict):
        return _failure(f"refresh attachment #{attachment_id}", step)
    first_line = str(step.data.get("content") or "").split("\n", 1)[0]
    return f"attachment #{attachment_id}: {first_line or step.data.get('title')}"


@dataclass(frozen=True, slots=True)
class DeleteAttachment(Intent):
    attachment_id: int

    def next_turn(self, steps: Steps) -> ProviderTurn:
        deleted = steps.last("delete_attachment")
        if deleted is None:
            return _call(
                "delete_attachment",
                {"attachment_id": self.attachment_id},
                say=f"I'll remove attachment #{self.attachment_id} once you confirm.",
            )
        if deleted.declined():
            return _say(f"OK, I kept attachment #{self.attachment_id}.")
        if not deleted.ok:
            return _say(_failure(f"remove attachment #{self.attachment_id}", deleted))
        return _say(deleted.message)


# -- parsing the user's message ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str], date], Intent]


_RULES: list[_Rule] = []


def _rule(pattern: str) -> Callable[[Callable[[re.Match[str], date], Intent]], None]:
    def register(build: Callable[[re.Match[str], date], Intent]) -> None:
        _RULES.append(_Rule(re.compile(pattern, re.IGNORECASE | re.DOTALL), build))

    return register


def parse_intent(message: str, today: date) -> Intent:
    """The intent of one user message (``Help`` when nothing matches)."""
    cleaned = re.sub(r"^(?:please|can you|could you|would you)\s+", "", message.strip(), flags=re.I)
    cleaned = cleaned.rstrip(" .!?")
    if not cleaned:
        return Help()
    for rule in _RULES:
        match = rule.pattern.fullmatch(cleaned)
        if match is not None:
            return rule.build(match, today)
    if re.search(r"\btasks?\b", cleaned, re.IGNORECASE) and re.search(
        r"\b(?:list|show|what|which|see|display|view|due|how many)\b", cleaned, re.IGNORECASE
    ):
        return _list(cleaned, today)
    return Help(confused=True)


@_rule(r"(?:help|\?|what can you do)")
def _help(match: re.Match[str], today: date) -> Intent:
    return Help()


@_rule(r"(?:attach|link|add)\s+(?P<url>https?://\S+)\s+(?:to|on)\s+(?P<ref>.+)")
def _attach(match: re.Match[str], today: date) -> Intent:
    return Attach(match["url"], TaskRef.parse(match["ref"]))


@_rule(r"(?:refresh|reload|sync)\s+attachment\s*#?(?P<id>\d+)")
def _refresh_attachment(match: re.Match[str], today: date) -> Intent:
    return RefreshAttachment(int(match["id"]))


@_rule(
    r"(?:refresh|reload|sync)\s+(?:the\s+)?(?:(?:github\s+)?(?:attachments?|prs?|issues?)\s+(?:of|on|for)\s+)?(?P<ref>.+)"
)
def _refresh_task(match: re.Match[str], today: date) -> Intent:
    return RefreshTask(TaskRef.parse(match["ref"]))


@_rule(r"(?:delete|remove)\s+attachment\s*#?(?P<id>\d+)")
def _delete_attachment(match: re.Match[str], today: date) -> Intent:
    return DeleteAttachment(int(match["id"]))


@_rule(r"(?:delete|remove|drop)\s+(?P<ref>.+)")
def _delete(match: re.Match[str], today: date) -> Intent:
    return DeleteTask(TaskRef.parse(match["ref"]))


@_rule(r"(?:mark|set)\s+(?P<ref>.+?)\s+(?:as\s+)?(?:done|complete|completed|finished)")
def _mark_done(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"]), {"status": "completed"})


@_rule(r"(?:complete|finish|close)\s+(?P<ref>.+)")
def _complete(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"]), {"status": "completed"})


@_rule(
    r"(?:mark|set)\s+(?P<ref>.+?)\s+(?:as\s+)?in[\s-]progress|start(?:\s+working)?(?:\s+on)?\s+(?P<ref2>.+)"
)
def _start(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"] or match["ref2"]), {"status": "in_progress"})


@_rule(r"reopen\s+(?P<ref>.+)|(?:mark|set)\s+(?P<ref2>.+?)\s+(?:as\s+)?(?:pending|not done|open)")
def _reopen(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"] or match["ref2"]), {"status": "pending"})


@_rule(r"(?:set|change)\s+(?:the\s+)?priority\s+(?:of\s+)?(?P<ref>.+?)\s+to\s+(?P<p>\S+)")
def _priority(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"]), {"priority": _priority_word(match["p"])})


@_rule(r"make\s+(?P<ref>.+?)\s+(?:(?P<p>\S+)\s+priority|(?P<urgent>urgent))")
def _make_priority(match: re.Match[str], today: date) -> Intent:
    word = "critical" if match["urgent"] else _priority_word(match["p"])
    return UpdateTask(TaskRef.parse(match["ref"]), {"priority": word})


@_rule(r"rename\s+(?P<ref>.+?)\s+to\s+(?P<title>.+)")
def _rename(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"]), {"title": _unquoted(match["title"])})


@_rule(
    r"(?:move|reschedule|postpone|(?:set|change)\s+(?:the\s+)?(?:due\s+date|eta|deadline)\s+of)"
    r"\s+(?P<ref>.+?)\s+(?:to|until)\s+(?P<when>.+)"
)
def _reschedule(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"]), {"eta": parse_when(match["when"], today)})


@_rule(r"update\s+(?P<ref>.+?)\s*(?::|,|\s+with\s+|\s+set\s+)\s*(?P<changes>.+)")
def _update(match: re.Match[str], today: date) -> Intent:
    return UpdateTask(TaskRef.parse(match["ref"]), _changes(match["changes"], today))


@_rule(
    r"(?:(?:add|create|new)\s+(?:a\s+)?(?:new\s+)?task(?:\s+(?:to|for|called|named))?\s*:?"
    r"|remind\s+me\s+to|(?:add|create)\s+)\s*(?P<rest>.+)"
)
def _create(match: re.Match[str], today: date) -> Intent:
    return CreateTask(_new_task(match["rest"], today))


@_rule(r"(?:my\s+)?(?:tasks|todos?|to-dos?)")
def _bare_list(match: re.Match[str], today: date) -> Intent:
    return _list(match[0], today)


def _list(message: str, today: date) -> ListTasks:
    low = message.lower()
    filters: dict[str, Any] = {}
    qualifier: list[str] = []
    if re.search(r"\b(?:completed|done|finished)\b", low):
        filters["status"] = ["completed"]
        qualifier.append("completed")
    elif re.search(r"\bin[\s-]progress\b", low):
        filters["status"] = ["in_progress"]
        qualifier.append("in-progress")
    elif re.search(r"\b(?:open|pending|todo|to do|overdue|due)\b", low):
        filters["status"] = ["pending", "in_progress"]
        qualifier.append("open")
    if re.search(r"\bcritical\b", low):
        filters["priority"] = ["critical"]
        qualifier.insert(0, "critical")
    elif re.search(r"\b(?:high[\s-]priority|urgent|important)\b", low):
        filters["priority"] = ["high", "critical"]
        qualifier.insert(0, "high-priority")
    elif re.search(r"\blow[\s-]priority\b", low):
        filters["priority"] = ["low"]
        qualifier.insert(0, "low-priority")
    if re.search(r"\boverdue\b", low):
        filters["due_before"] = today.isoformat()
        qualifier = ["overdue"]
    elif re.search(r"\bdue\s+today\b", low):
        filters["due_before"] = (today + timedelta(days=1)).isoformat()
        qualifier.append("due today:")
    elif re.search(r"\bdue\s+this\s+week\b", low):
        filters["due_before"] = (today + timedelta(days=7)).isoformat()
    tags = re.findall(r"#([\w-]+)", message) or re.findall(r"\btagged\s+([\w-]+)", low)
    if tags:
        filters["tags"] = tags
    about = re.search(r"\b(?:about|matching|containing|mentioning)\s+(?P<text>.+)$", message, re.I)
    if about is not None:
        filters["text"] = _unquoted(about["text"])
    response_format = "standard"
    if re.search(r"\b(?:brief|briefly|ids|how many|count)\b", low):
        response_format = "concise"
    elif re.search(r"\b(?:details?|detailed|everything|full)\b", low):
        response_format = "detailed"
    sort = "priority_desc" if "priority" in filters else "eta_asc"
    if re.search(r"\b(?:newest|recent|latest)\b", low):
        sort = "created_desc"
    arguments = {"filters": filters, "sort": sort, "response_format": response_format}
    return ListTasks(arguments, " ".join(qualifier).rstrip(":"))


def _new_task(rest: str, today: date) -> dict[str, Any]:
    """Title, description, priority, ETA and tags out of "buy milk due friday, high priority"."""
    arguments: dict[str, Any] = {}
    rest = rest.strip()
    described = re.search(r"\s+(?:--|—|-)\s+(?P<d>.+)$|\s*\((?P<p>[^)]+)\)\s*$", rest)
    if described is not None:
        arguments["description"] = (described["d"] or described["p"]).strip()
        rest = rest[: described.start()]
    tagged = re.search(r",?\s+(?:tagged|tags?:?)\s+(?P<tags>[#\w\s,-]+)$", rest, re.I)
    if tagged is not None:
        arguments["tags"] = [
            t.lstrip("#") for t in re.split(r"[,\s]+(?:and\s+)?", tagged["tags"]) if t.strip("# ")
        ]
        rest = rest[: tagged.start()]
    prioritized = re.search(
        r",?\s+(?:with\s+)?(?:(?:a\s+)?priority\s+(?:of\s+)?(?P<a>\S+?)|(?P<b>\S+)\s+priority)(?=,|\s+(?:due|by|tagged)\b|$)",
        rest,
        re.I,
    )
    if prioritized is not None:
        arguments["priority"] = _priority_word(prioritized["a"] or prioritized["b"])
        rest = rest[: prioritized.start()] + rest[prioritized.end() :]
    due = re.search(
        r",?\s+(?:due|by)\s+(?:on\s+)?(?P<when>.+?)(?=,|\s+(?:with|tagged)\b|$)", rest, re.I
    )
    if due is not None:
        arguments["eta"] = parse_when(due["when"], today)
        rest = rest[: due.start()] + rest[due.end() :]
    title = _unquoted(re.sub(r"^(?:to|called|named)\s+", "", rest.strip(" ,"), flags=re.I))
    return {"title": title[:1].upper() + title[1:], **arguments}


def _changes(phrase: str, today: date) -> dict[str, Any]:
    """``priority high, due friday, title X, status done, tags a b`` as update arguments."""
    changes: dict[str, Any] = {}
    for part in re.split(r",\s*|\s+and\s+", phrase):
        match = re.fullmatch(
            r"(?P<key>priority|due|eta|title|status|tags|description)"
            r"(?:\s*[:=]\s*|\s+to\s+|\s+)(?P<value>.+)",
            part.strip(),
            re.I,
        )
        if match is None:
            continue
        key, value = match["key"].lower(), match["value"].strip()
        if key == "priority":
            changes["priority"] = _priority_word(value)
        elif key in ("due", "eta"):
            changes["eta"] = parse_when(value, today)
        elif key == "status":
            changes["status"] = _STATUS_WORDS.get(value.lower(), value)
        elif key == "tags":
            changes["tags"] = [t.lstrip("#") for t in re.split(r"[\s,]+", value) if t]
        else:
            changes[key] = _unquoted(value)
    return changes


_STATUS_WORDS = {
    "done": "completed",
    "complete": "completed",
    "finished": "completed",
    "in progress": "in_progress",
    "started": "in_progress",
    "open": "pending",
    "todo": "pending",
}


def _priority_word(word: str) -> str:
    """The user's word, normalized; unknown words go to the tool as they are (and fail)."""
    low = word.strip().lower().strip("\"'“”")
    return {"normal": "medium", "med": "medium"}.get(low, low)


def _unquoted(phrase: str) -> str:
    return phrase.strip().strip(_QUOTES).strip()


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def parse_when(phrase: str, today: date) -> str:
    """An ISO date for "today", "tomorrow", "friday", "next week", "in 3 days" or an ISO date.

    Anything else is passed on as written, so the tool's validation reports it.
    """
    low = phrase.strip().lower().removeprefix("on ").removeprefix("next ").strip()
    if low in ("today", "tonight"):
        return today.isoformat()
    if low == "tomorrow":
        return (today + timedelta(days=1)).isoformat()
    if low == "week" or low == "a week":
        return (today + timedelta(days=7)).isoformat()
    relative = re.fullmatch(r"in\s+(\d+)\s+(day|week)s?", low)
    if relative is not None:
        days = int(relative[1]) * (7 if relative[2] == "week" else 1)
        return (today + timedelta(days=days)).isoformat()
    if low in _WEEKDAYS:
        ahead = (_WEEKDAYS.index(low) - today.weekday() - 1) % 7 + 1
        return (today + timedelta(days=ahead)).isoformat()
    return phrase.strip()
