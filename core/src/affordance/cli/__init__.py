"""The ``affordance`` command line: one module per subcommand, registered in ``COMMANDS``.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``; it is imported
only when its command runs, so ``affordance --help`` stays fast and works with broken plugins.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

# command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("affordance.cli.demo", "run a small offline agent and print its transcript"),
    "render": ("affordance.cli.render", "print a prompt's rendered text and its tool schemas"),
    "plugins": ("affordance.cli.plugins", "list installed plugins and what they contribute"),
    "doctor": ("affordance.cli.doctor", "report plugin conflicts, missing SDKs, version skew"),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="affordance", description="affordance command line")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    arguments = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in arguments if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(run=module.run)
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        code: int = args.run(args)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code
