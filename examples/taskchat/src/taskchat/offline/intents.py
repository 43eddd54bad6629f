"""The intents: one class per thing the user can ask. Each decides the model's next move from
the steps taken so far — the tool call still to make, or the reply once the calls are done."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from affordance.adapters import ProviderTurn
from taskchat.offline.replies import call, calls, failure, quoted, say
from taskchat.offline.steps import Step, Steps
from taskchat.offline.task_refs import Resolved, TaskRef, resolve

__all__ = [
    "HELP",
    "Attach",
    "CreateTask",
    "DeleteAttachment",
    "DeleteTask",
    "Help",
    "Intent",
    "ListTasks",
    "RefreshAttachment",
    "RefreshTask",
    "UpdateTask",
]


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
        return say(("I didn't understand that. " if self.confused else "") + HELP)


@dataclass(frozen=True, slots=True)
class CreateTask(Intent):
    arguments: dict[str, Any]

    def next_turn(self, steps: Steps) -> ProviderTurn:
        created = steps.last("create_task")
        if created is None:
            return call("create_task", self.arguments)
        if not created.ok or not isinstance(created.data, dict):
            return say(failure("create that task", created))
        task = created.data
        details = [f"priority {task.get('priority')}"]
        if task.get("eta"):
            details.append(f"due {str(task['eta'])[:10]}")
        if task.get("tags"):
            details.append("tagged " + ", ".join(task["tags"]))
        return say(
            f"Created task #{task.get('id')} {quoted(task.get('title'))} ({'; '.join(details)})."
        )


@dataclass(frozen=True, slots=True)
class ListTasks(Intent):
    arguments: dict[str, Any]
    qualifier: str = ""

    def next_turn(self, steps: Steps) -> ProviderTurn:
        found = steps.last("query_tasks")
        if found is None:
            return call("query_tasks", self.arguments)
        if not found.ok or not isinstance(found.data, dict):
            return say(failure("list your tasks", found))
        tasks = [t for t in found.data.get("tasks", []) if isinstance(t, dict)]
        total = int(found.data.get("total", len(tasks)))
        kind = f"{self.qualifier} " if self.qualifier else ""
        if total == 0:
            return say(f"You have no {kind}tasks.")
        noun = "task" if total == 1 else "tasks"
        head = f"You have {total} {kind}{noun}"
        if found.data.get("response_format") == "concise":
            ids = ", ".join(f"#{t['id']} ({t['status']})" for t in tasks)
            return say(f"{head}: {ids}.")
        lines = [f"{head}:"] + [_task_line(t) for t in tasks]
        if len(tasks) < total:
            lines.append(f"(showing the first {len(tasks)})")
        return say("\n".join(lines))


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
        target = resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        updated = steps.last("update_task")
        if updated is None:
            return call("update_task", {"task_id": target.task_id, **self.changes})
        if not updated.ok or not isinstance(updated.data, dict):
            return say(failure(f"update {target.label()}", updated))
        task = updated.data
        described = ", ".join(_change(name, task.get(name)) for name in self.changes)
        return say(f"Updated task #{task.get('id')} {quoted(task.get('title'))}: {described}.")


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
        target = resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        deleted = steps.last("delete_task")
        if deleted is None:
            return call(
                "delete_task",
                {"task_id": target.task_id},
                say=f"I'll delete {target.label()} once you confirm.",
            )
        if deleted.declined():
            return say(f"OK, I kept {target.label()}.")
        if not deleted.ok:
            return say(failure(f"delete {target.label()}", deleted))
        title = deleted.data.get("title") if isinstance(deleted.data, dict) else None
        label = Resolved(target.task_id, title or target.title).label()
        extra = " and its attachments" if "attachment" in deleted.message else ""
        return say(f"Deleted {label}{extra}.")


@dataclass(frozen=True, slots=True)
class Attach(Intent):
    url: str
    ref: TaskRef

    def next_turn(self, steps: Steps) -> ProviderTurn:
        target = resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        created = steps.last("create_attachment")
        if created is None:
            return call("create_attachment", {"task_id": target.task_id, "url": self.url})
        if not created.ok or not isinstance(created.data, dict):
            return say(failure(f"attach that to {target.label()}", created))
        kind = str(created.data.get("kind", "link")).replace("github_", "GitHub ").replace("_", " ")
        return say(
            f"Attached the {kind} to {target.label()} as attachment #{created.data.get('id')}. "
            f"Say “refresh task {target.task_id}” to fetch its details."
        )


@dataclass(frozen=True, slots=True)
class RefreshAttachment(Intent):
    attachment_id: int

    def next_turn(self, steps: Steps) -> ProviderTurn:
        refreshed = steps.last("refresh_attachment")
        if refreshed is None:
            return call("refresh_attachment", {"attachment_id": self.attachment_id})
        return say(_refresh_line(self.attachment_id, refreshed))


@dataclass(frozen=True, slots=True)
class RefreshTask(Intent):
    ref: TaskRef

    def next_turn(self, steps: Steps) -> ProviderTurn:
        target = resolve(self.ref, steps)
        if isinstance(target, ProviderTurn):
            return target
        listed = steps.last("list_attachments")
        if listed is None:
            return call("list_attachments", {"task_id": target.task_id})
        if not listed.ok or not isinstance(listed.data, dict):
            return say(failure(f"list the attachments of {target.label()}", listed))
        github = [
            a
            for a in listed.data.get("attachments", [])
            if isinstance(a, dict) and str(a.get("kind", "")).startswith("github_")
        ]
        if not github:
            return say(f"{target.label().capitalize()} has no GitHub attachments to refresh.")
        refreshed = steps.all("refresh_attachment")
        if not refreshed:
            return calls(*(("refresh_attachment", {"attachment_id": a["id"]}) for a in github))
        lines = [f"Refreshed the GitHub attachments of {target.label()}:"]
        lines += [
            "- " + _refresh_line(int(step.arguments.get("attachment_id", 0)), step)
            for step in refreshed
        ]
        return say("\n".join(lines))


def _refresh_line(attachment_id: int, step: Step) -> str:
    if not step.ok or not isinstance(step.data, dict):
        return failure(f"refresh attachment #{attachment_id}", step)
    first_line = str(step.data.get("content") or "").split("\n", 1)[0]
    return f"attachment #{attachment_id}: {first_line or step.data.get('title')}"


@dataclass(frozen=True, slots=True)
class DeleteAttachment(Intent):
    attachment_id: int

    def next_turn(self, steps: Steps) -> ProviderTurn:
        deleted = steps.last("delete_attachment")
        if deleted is None:
            return call(
                "delete_attachment",
                {"attachment_id": self.attachment_id},
                say=f"I'll remove attachment #{self.attachment_id} once you confirm.",
            )
        if deleted.declined():
            return say(f"OK, I kept attachment #{self.attachment_id}.")
        if not deleted.ok:
            return say(failure(f"remove attachment #{self.attachment_id}", deleted))
        return say(deleted.message)
