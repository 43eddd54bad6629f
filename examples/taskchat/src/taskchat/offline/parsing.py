"""A user message to its intent: one rule per phrasing, tried in order, and the words inside
them — dates ("friday", "in 3 days"), priorities, list filters, a new task's details."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from taskchat.offline.intents import (
    Attach,
    CreateTask,
    DeleteAttachment,
    DeleteTask,
    Help,
    Intent,
    ListTasks,
    RefreshAttachment,
    RefreshTask,
    UpdateTask,
)
from taskchat.offline.task_refs import QUOTES, TaskRef

__all__ = ["parse_intent", "parse_when"]


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


@_rule(r"what(?:'s|\u2019s|\s+is)\s+on\s+my\s+(?:list|plate|agenda|to-?do\s+list)")
def _on_my_list(match: re.Match[str], today: date) -> Intent:
    return _list("", today)


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
    if due is None:  # "buy milk tomorrow": a plain day at the end is the due date too
        due = re.search(
            rf",?\s+(?P<when>today|tonight|tomorrow|next\s+week|on\s+(?:{'|'.join(_WEEKDAYS)}))$",
            rest,
            re.I,
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
    return phrase.strip().strip(QUOTES).strip()


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
