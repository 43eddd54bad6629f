"""``affordance doctor [--json]``: conflicts, unavailable SDKs, broken plugins, version skew.

Exit code 0 when healthy (warnings allowed), 1 when any problem was found, 2 when a setting is
malformed. Works when a plugin is broken: that is one of the things it reports.
"""

from __future__ import annotations

import argparse
import json
import sys

from affordance.cli.report import diagnose
from affordance.plugins import PluginConfigError, PluginHost

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        diagnosis = diagnose(PluginHost(strict=False))
    except PluginConfigError as exc:
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
