"""Which task the user means: how they named it (:class:`TaskRef`, an id or words of its
title), and finding it — at once for an id, else through ``query_tasks`` (or a question back,
when none or several match)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from affordance.adapters import ProviderTurn
from taskchat.offline.replies import call, failure, quoted, say
from taskchat.offline.steps import Steps

__all__ = ["QUOTES", "Resolved", "TaskRef", "resolve"]

QUOTES = "\"'\u201c\u201d\u2018\u2019"  # straight and typographic quotes


@dataclass(frozen=True, slots=True)
class TaskRef:
    """How the user named a task: by id (``#3``, ``task 3``) or by words of its title."""

    task_id: int | None
    words: str

    @classmethod
    def parse(cls, phrase: str) -> TaskRef:
        cleaned = phrase.strip().strip(QUOTES + " ")
        match = re.fullmatch(r"(?:task\s*)?#?\s*(\d+)", cleaned, re.IGNORECASE)
        if match is not None:
            return cls(int(match[1]), cleaned)
        cleaned = re.sub(r"^(?:the|my)\s+", "", cleaned, flags=re.IGNORECASE)
        cleaned = re.sub(r"\s+task$", "", cleaned, flags=re.IGNORECASE)
        return cls(None, cleaned.strip(QUOTES + " "))

    def label(self) -> str:
        return f"task #{self.task_id}" if self.task_id is not None else f"“{self.words}”"


@dataclass(frozen=True, slots=True)
class Resolved:
    """The task found: its id, and its title when the lookup gave it."""

    task_id: int
    title: str | None

    def label(self) -> str:
        return f"task #{self.task_id}" + (f" {quoted(self.title)}" if self.title else "")


def resolve(ref: TaskRef, steps: Steps) -> Resolved | ProviderTurn:
    """The task the user means, or the next turn that finds out (a query, or a question)."""
    if ref.task_id is not None:
        return Resolved(ref.task_id, None)
    query = steps.last("query_tasks")
    if query is None:
        return call(
            "query_tasks",
            {"filters": {"text": ref.words}, "limit": 10, "response_format": "standard"},
        )
    if not query.ok or not isinstance(query.data, dict):
        return say(failure(f"look up {ref.label()}", query))
    tasks = [t for t in query.data.get("tasks", []) if isinstance(t, dict)]
    exact = [t for t in tasks if str(t.get("title", "")).casefold() == ref.words.casefold()]
    matches = exact or tasks
    if len(matches) == 1:
        return Resolved(int(matches[0]["id"]), matches[0].get("title"))
    if not matches:
        return say(f"I found no task matching {ref.label()}. Say “list my tasks” to see them.")
    listing = ", ".join(f"#{t['id']} {quoted(t.get('title'))}" for t in matches[:5])
    return say(
        f"Several tasks match {ref.label()}: {listing}. Which one? "
        f"Name it by id, like “#{matches[0]['id']}”."
    )
