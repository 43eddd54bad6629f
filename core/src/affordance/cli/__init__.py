"""The ``affordance`` command line: one module per subcommand, from core or from a plugin.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``; it is imported
only when its command runs, so ``affordance --help`` stays fast and works with broken plugins.
Core's commands are listed in ``COMMANDS``. A distribution adds one by declaring an entry point
in the group ``affordance.commands`` (name = the command, value = its module, which also has
``HELP``, one line); listing those reads metadata only, and a core command of the same name
wins (specs/PLUGINS.md, "Commands"). A plugin's command loads a ``MODULE:PROMPT`` target as core's
do, with :func:`prompt_of` (``TargetError``: one line saying why there is no prompt).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from affordance.cli.target import TargetError, prompt_of

from affordance._frozen import frozen
from affordance._lazy import lazy_exports

__all__ = [
    "COMMANDS",
    "COMMANDS_GROUP",
    "PluginCommand",
    "TargetError",
    "main",
    "plugin_commands",
    "prompt_of",
]

# What a plugin's command needs of core's (``affordance mcp serve MODULE:PROMPT``): the prompt a
# target names, or one line saying why there is none. Loaded on first use: ``--help`` stays fast.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {"TargetError": "affordance.cli.target", "prompt_of": "affordance.cli.target"},
    __all__,
)

# command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("affordance.cli.demo", "run a small offline agent and print its transcript"),
    "render": ("affordance.cli.render", "print a prompt's rendered text and its tool schemas"),
    "plugins": ("affordance.cli.plugins", "list installed plugins and what they contribute"),
    "doctor": ("affordance.cli.doctor", "report plugin conflicts, missing SDKs, version skew"),
    "overrides": ("affordance.cli.overrides", "seed, list, check and diff prompt overrides files"),
}

COMMANDS_GROUP = "affordance.commands"
"""The entry-point group through which a distribution contributes a command."""


@frozen
class PluginCommand:
    """A command a distribution declares: its ``name``, the ``module`` implementing it, the
    ``distribution`` declaring it, and ``refused`` — why it is not offered, or ``None``."""

    name: str
    module: str
    distribution: str
    refused: str | None = None


def plugin_commands() -> list[PluginCommand]:
    """Every command declared in :data:`COMMANDS_GROUP`, sorted by name then distribution,
    read from metadata only (nothing is imported). A name that core uses, or that two
    distributions declare, is ``refused`` with the reason."""
    from importlib.metadata import entry_points

    declared = sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: (e.name, _dist(e)))
    by_name: dict[str, list[EntryPoint]] = {}
    for entry in declared:
        by_name.setdefault(entry.name, []).append(entry)
    found: list[PluginCommand] = []
    for name, entries in by_name.items():
        refused = None
        if name in COMMANDS:
            refused = "a core command has that name"
        elif len(entries) > 1:
            refused = f"declared by {' and '.join(_dist(e) for e in entries)}; uninstall one"
        found.extend(PluginCommand(name, e.value, _dist(e), refused) for e in entries)
    return found


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
    offered: set[str] = set()
    shadowing = []
    for command in plugin_commands():
        if command.name in COMMANDS:
            shadowing.append(f"'{command.name}' from {command.distribution}")
            continue
        if command.name in offered:  # the second distribution declaring a refused name
            continue
        offered.add(command.name)
        if command.refused is None:
            origin = f"(from {command.distribution})"
        else:
            origin = f"(not offered: {command.refused})"
        sub = commands.add_parser(command.name, help=origin, description=origin)
        if command.name == chosen:
            problem = _load(command, sub) if command.refused is None else origin[1:-1]
            if problem is not None:
                print(f"affordance {command.name}: {problem}", file=sys.stderr)
                return 2
    if shadowing:
        names = ", ".join(shadowing)
        parser.epilog = f"Not offered, as core has a command of that name: {names}."
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


def _load(command: PluginCommand, parser: argparse.ArgumentParser) -> str | None:
    """Import the chosen plugin command's module and let it declare its arguments; the
    one-line reason when that fails (the plugin's code: any error is reported, none raised)."""
    try:
        module: Any = importlib.import_module(command.module)
        help_text = f"{module.HELP} (from {command.distribution})"
        run = module.run
        parser.description = help_text
        module.add_arguments(parser)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - a broken plugin is one line
        lines = str(error).splitlines()
        detail = type(error).__qualname__ + (f": {lines[0]}" if lines else "")
        return f"cannot load the command from {command.distribution} ({command.module}): {detail}"
    parser.set_defaults(run=run)
    return None


def _dist(entry: EntryPoint) -> str:
    """The name of the distribution declaring ``entry`` (metadata only)."""
    dist = getattr(entry, "dist", None)
    return str(dist.metadata["Name"]) if dist is not None else "an unknown distribution"
