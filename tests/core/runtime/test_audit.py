"""Seed 004's audit question, answered: every tool call's metadata-only record, as JSON lines in
a file the application names — never an argument value, a result or prompt text."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from affordance import MarkdownSection, PromptTemplate, Tool, ToolCallAudit, ToolResult
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

SECRET = "4111-1111-1111-1111"


@dataclass(frozen=True)
class Card:
    number: str


def charge(params: Card) -> ToolResult[str]:
    if params.number.endswith("0"):
        raise RuntimeError(f"declined {params.number}")
    return ToolResult.ok(f"charged {params.number}")


def test_every_call_lands_in_the_audit_file_with_metadata_only(tmp_path: Path) -> None:
    tool = Tool[Card, str](name="charge", description="Charge a card.", handler=charge)
    prompt = PromptTemplate(
        name="pay",
        sections=[MarkdownSection(title="Task", template=f"Pay {SECRET}.", tools=[tool])],
    )
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("charge", {"number": SECRET}, call_id="c1"),
                tool_call("charge", {"number": "5555-9999-7777-0"}, call_id="c2"),
            ),
            text("Paid."),
        ]
    )
    logger = logging.getLogger("affordance.tools")
    before = logger.level
    audit = ToolCallAudit(tmp_path / "audit.jsonl")
    try:
        response = adapter.evaluate(prompt)
    finally:
        audit.close()
    assert logger.level == before  # restored
    lines = (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["call_id"], r["tool"], r["outcome"]) for r in records] == [
        ("c1", "charge", "success"),
        ("c2", "charge", "failure"),
    ]
    assert {r["run_id"] for r in records} == {response.run_id}
    assert records[0]["arg_keys"] == ["number"]
    assert records[1]["level"] == "WARNING"
    assert SECRET not in "\n".join(lines)
    assert "5555-9999" not in "\n".join(lines)


def test_a_closed_audit_keeps_nothing_more(tmp_path: Path) -> None:
    tool = Tool[Card, str](name="charge", description="Charge a card.", handler=charge)
    prompt = PromptTemplate(
        name="pay", sections=[MarkdownSection(title="Task", template="Pay.", tools=[tool])]
    )
    script = [tool_calls(tool_call("charge", {"number": "1"})), text("Paid.")]
    ToolCallAudit(tmp_path / "audit.jsonl").close()
    ScriptedAdapter(script).evaluate(prompt)
    assert (tmp_path / "audit.jsonl").read_text(encoding="utf-8") == ""
