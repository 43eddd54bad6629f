"""The table of specs/ATTACHMENTS.md — which provider carries which attachment where — is
generated from each provider model's ``attachment_support`` declaration, so it cannot drift from
the code. ``AFFORDANCE_REGENERATE_DOCS=1`` rewrites it; otherwise a difference fails."""

from __future__ import annotations

import os
from pathlib import Path

from affordance.adapters import AttachmentSupport
from affordance.runtime.model.attachment_rules import support_of
from affordance_anthropic import AnthropicAdapter
from affordance_google import GoogleAdapter
from affordance_openai import OpenAIAdapter

SPEC = Path(__file__).resolve().parents[2] / "specs" / "ATTACHMENTS.md"
START, END = "<!-- attachments-table:start -->", "<!-- attachments-table:end -->"
SHORT = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
    "application/pdf": "PDF",
    "text/plain": "text",
}


def providers() -> list[tuple[str, AttachmentSupport]]:
    return [
        ("OpenAI Responses", support_of(OpenAIAdapter("m").connection)),
        ("OpenAI Chat Completions", support_of(OpenAIAdapter("m", api="chat").connection)),
        ("Anthropic Messages", support_of(AnthropicAdapter("m").connection)),
        ("Google Gemini", support_of(GoogleAdapter("m").connection)),
    ]


def cell(types: frozenset[str]) -> str:
    return ", ".join(SHORT[t] for t in SHORT if t in types) or "—"


def table() -> str:
    rows = [
        "| provider (API) | in a user message | in a tool result | by URL |",
        "|---|---|---|---|",
    ]
    for name, support in providers():
        by_url = ", ".join(
            [kind + "s" for kind in ("image", "document") if kind in support.by_url]
            + [SHORT[t] for t in SHORT if t in support.by_url]
        )
        rows.append(
            f"| {name} | {cell(support.user)} | {cell(support.tool_result)} | {by_url or '—'} |"
        )
    return "\n".join(rows)


def test_the_specs_table_is_the_one_the_declarations_make() -> None:
    text = SPEC.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    generated = f"{head}{START}\n{table()}\n{END}{tail}"
    if os.environ.get("AFFORDANCE_REGENERATE_DOCS") == "1":
        SPEC.write_text(generated, encoding="utf-8")
        return
    assert text == generated, f"regenerate with AFFORDANCE_REGENERATE_DOCS=1:\n{table()}"


def test_every_provider_carries_images_and_pdfs_in_user_messages() -> None:
    for name, support in providers():
        assert {"image/png", "image/jpeg", "application/pdf"} <= support.user, name
