"""``affordance plugins [--json] [--prompt MODULE:PROMPT]``: every plugin found, its status and
what it contributes; with ``--prompt``, the servers a prompt's sections list tools from (MCP).

Always exits 0 when it could list (a broken plugin is listed as ``failed`` with the reason);
2 when a setting is malformed. The JSON shape is documented in ``specs/PLUGINS.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from affordance.cli.listed_sections import describe, listed_sections
from affordance.cli.report import report
from affordance.cli.target import TargetError
from affordance.plugins import PluginConfigError, PluginHost

__all__ = ["add_arguments", "format_table", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.add_argument(
        "--prompt",
        action="append",
        default=[],
        metavar="MODULE:PROMPT",
        help="also list the servers this prompt's sections list tools from (MCP); repeatable",
    )


def _contribution_line(item: dict[str, Any]) -> str:
    line = f"  {item['category']} {item['key']} -> {item['target']}"
    marks = []
    if item["priority"]:
        marks.append(f"priority {item['priority']}")
    if item["selected"] is False:
        marks.append("shadowed")
    elif item["selected"] is None:
        marks.append("CONFLICT")
    if not item["available"]:
        marks.append(f"unavailable: {item['unavailable_reason']}")
    return f"{line}  [{'; '.join(marks)}]" if marks else line


def format_table(data: dict[str, Any]) -> str:
    """The human-readable form of :func:`affordance.cli.report.report`."""
    core = data["core"]
    plugins = data["plugins"]
    lines = [
        f"affordance {core['version']} (plugin API {core['plugin_api']}): {len(plugins)} plugin(s)"
    ]
    if not data["settings"]["autoload"]:
        lines.append("entry-point autoload is off (AFFORDANCE_PLUGIN_AUTOLOAD=0)")
    if not plugins:
        return "\n".join(lines + _sections_lines(data))
    rows = [("PLUGIN", "DISTRIBUTION", "VERSION", "STATUS")] + [
        (p["name"], p["distribution"] or "(in code)", p["version"] or "-", p["status"])
        for p in plugins
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]

    def row_text(row: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))

    lines.append("")
    lines.append(row_text(rows[0]).rstrip())
    for plugin, row in zip(plugins, rows[1:], strict=True):
        lines.append(row_text(row).rstrip())
        if plugin["reason"]:
            lines.append(f"  reason: {plugin['reason']}")
        lines.extend(f"  note: {note}" for note in plugin["notes"])
        lines.extend(_contribution_line(item) for item in plugin["contributions"])
    if data["resolutions"]:
        lines.append("")
        lines.append("Who provides each key, and why:")
        lines.extend(
            f"  {r['category']} {r['key']}: {r['winner']} ({r['why']})" for r in data["resolutions"]
        )
    if data["conflicts"]:
        lines.append("")
        lines.append("Conflicts (raised when the key is first used):")
        lines.extend(f"  {conflict['message']}" for conflict in data["conflicts"])
    return "\n".join(lines + _sections_lines(data))


def _sections_lines(data: dict[str, Any]) -> list[str]:
    """The ``--prompt`` part of the table, if asked for."""
    sections = data.get("prompt_sections")
    if not sections:
        return []
    header = ["", "Sections that list their tools at render (MCP servers):"]
    return header + [f"  {describe(item)}" for item in sections]


def run(args: argparse.Namespace) -> int:
    try:
        data = report(PluginHost(strict=False))
    except PluginConfigError as exc:
        print(f"affordance plugins: {exc}", file=sys.stderr)
        return 2
    if args.prompt:
        try:
            sections = [item for target in args.prompt for item in listed_sections(target)]
        except TargetError as exc:
            print(f"affordance plugins: {exc}", file=sys.stderr)
            return 2
        data["prompt_sections"] = [item.to_dict() for item in sections]
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(format_table(data))
    return 0
