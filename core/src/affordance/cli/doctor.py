"""``affordance doctor [--json] [--prompt MODULE:PROMPT]``: conflicts, unavailable SDKs, broken
plugins, version skew; with ``--prompt``, the servers a prompt's sections list tools from (MCP).

Exit code 0 when healthy (warnings allowed), 1 when any problem was found, 2 when a setting is
malformed. Works when a plugin is broken: that is one of the things it reports.
"""

from __future__ import annotations

import argparse
import json
import sys

from affordance.cli.listed_sections import listed_sections
from affordance.cli.report import Diagnosis, Finding, Severity, diagnose
from affordance.cli.target import TargetError
from affordance.plugins import PluginConfigError, PluginHost

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument(
        "--prompt",
        action="append",
        default=[],
        metavar="MODULE:PROMPT",
        help="also check the servers this prompt's sections list tools from (MCP); repeatable",
    )


def run(args: argparse.Namespace) -> int:
    try:
        diagnosis = diagnose(PluginHost(strict=False))
    except PluginConfigError as exc:
        print(f"affordance doctor: {exc}", file=sys.stderr)
        return 2
    try:
        diagnosis = _with_prompts(diagnosis, args.prompt)
    except TargetError as exc:
        print(f"affordance doctor: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(diagnosis.to_dict(), indent=2))
    else:
        for finding in diagnosis.findings:
            print(f"{finding.severity}: [{finding.kind}] {finding.message}")
        problems, warnings = len(diagnosis.problems), len(diagnosis.warnings)
        verdict = "healthy" if diagnosis.healthy else "problems found"
        print(
            f"affordance {diagnosis.core_version}: {verdict} "
            f"({problems} problem(s), {warnings} warning(s))"
        )
    return 0 if diagnosis.healthy else 1


def _with_prompts(diagnosis: Diagnosis, targets: list[str]) -> Diagnosis:
    """``diagnosis`` and a finding per section listing tools at render in each target: ``info``
    with its tools, or a ``problem`` saying why it cannot list them."""
    findings = list(diagnosis.findings)
    for target in targets:
        for listed in listed_sections(target):
            severity: Severity = "problem" if listed.error is not None else "info"
            findings.append(Finding("prompt-section-tools", listed.line(), severity))
    return Diagnosis(diagnosis.core_version, tuple(findings))
