"""``affordance overrides``: write, list, check and compare a prompt's overrides files.

- ``seed MODULE:PROMPT [--tag T]`` writes the prompt's current texts as a starting file (edit
  its texts, keep its hashes); it refuses to replace an existing file without ``--force``.
- ``list`` prints every file of the store: prompt, tag, how many entries, which target.
- ``check [MODULE:PROMPT] [--tag T]`` resolves files against their prompts and prints each
  override that would be skipped (stale, unknown, refused, invalid); it exits 1 if there is
  one, or if a file cannot be read. Without a target it checks every file that records the
  target it was seeded from.
- ``diff MODULE:PROMPT [--tag T]`` shows, per override, the prompt's current text against the
  override's, and marks the stale ones.

The store is ``FileOverridesStore(--dir)``; ``--dir`` defaults to ``$AFFORDANCE_OVERRIDES_DIR``,
else ``overrides`` in the current directory. Exit codes: 0 fine, 1 a problem found, 2 a usage
error or a target that names no prompt.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any

from affordance.cli.target import TargetError, prompt_of
from affordance.errors import OverridesError
from affordance.prompt.overrides.applied import (
    AppliedOverrides,
    OverrideWarning,
    SkippedOverride,
    overridable,
    resolve,
)
from affordance.prompt.overrides.document import PromptOverrides
from affordance.prompt.overrides.originals import example_json, section_original
from affordance.prompt.overrides.seed import seed_overrides
from affordance.prompt.overrides.store import FileOverridesStore
from affordance.prompt.template import PromptTemplate

__all__ = ["DEFAULT_DIRECTORY", "add_arguments", "run"]

DEFAULT_DIRECTORY = "overrides"
_ENV = "AFFORDANCE_OVERRIDES_DIR"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    seed = commands.add_parser("seed", help="write a prompt's current texts as overrides")
    seed.add_argument("target", metavar="MODULE:PROMPT")
    seed.add_argument("--tag", default="latest", help="the tag to write (default: latest)")
    seed.add_argument("--force", action="store_true", help="replace an existing file")
    listing = commands.add_parser("list", help="list the overrides files")
    check = commands.add_parser("check", help="report overrides that would not apply")
    check.add_argument("target", metavar="MODULE:PROMPT", nargs="?")
    check.add_argument("--tag", help="check this tag only (default: every tag)")
    diff = commands.add_parser("diff", help="show each override against the current text")
    diff.add_argument("target", metavar="MODULE:PROMPT")
    diff.add_argument("--tag", default="latest", help="the tag to compare (default: latest)")
    for command in (seed, listing, check, diff):
        command.add_argument(
            "--dir",
            default=None,
            help=f"the overrides directory (default: ${_ENV}, else ./{DEFAULT_DIRECTORY})",
        )


def run(args: argparse.Namespace) -> int:
    store = FileOverridesStore(args.dir or os.environ.get(_ENV) or DEFAULT_DIRECTORY)
    try:
        if args.action == "list":
            return _list(store)
        if args.action == "check" and args.target is None:
            return _check_all(store, args.tag)
        prompt = _template(args.target)
        if args.action == "seed":
            return _seed(store, prompt, args.target, args.tag, force=args.force)
        if args.action == "check":
            return _check_prompt(store, prompt, args.tag)
        return _diff(store, prompt, args.tag)
    except TargetError as error:
        _say(f"{error}")
        return 2
    except OverridesError as error:
        _say(f"{error}")
        return 1


def _say(line: str) -> None:
    sys.stderr.write(f"affordance overrides: {line}\n")


def _template(target: str) -> PromptTemplate[Any]:
    prompt = prompt_of(target)
    if not isinstance(prompt, PromptTemplate):
        raise TargetError(
            f"{target} is a RenderedPrompt; overrides belong to a PromptTemplate (name the "
            "template, or a function returning it)"
        )
    return prompt


def _label(ns: str, prompt: str, tag: str) -> str:
    return f"{ns}/{prompt}@{tag}" if ns else f"{prompt}@{tag}"


def _seed(
    store: FileOverridesStore, prompt: PromptTemplate[Any], target: str, tag: str, *, force: bool
) -> int:
    path = store.path(prompt.ns, prompt.key, tag)
    if path.exists() and not force:
        _say(f"{path} exists; pass --force to replace it (its edits would be lost)")
        return 1
    seeded = seed_overrides(prompt, tag=tag, target=target)
    store.save(seeded)
    sys.stdout.write(f"wrote {path}: {len(seeded.sections)} sections, {len(seeded.tools)} tools\n")
    return 0


def _list(store: FileOverridesStore) -> int:
    entries = store.entries()
    if not entries:
        sys.stdout.write(f"no overrides under {store.directory}\n")
        return 0
    for ns, prompt, tag in entries:
        label = _label(ns, prompt, tag)
        try:
            document = store.load(ns, prompt, tag)
        except OverridesError as error:
            sys.stdout.write(f"{label}  unreadable: {error.reason}\n")
            continue
        assert document is not None
        target = document.target or "no target recorded"
        sys.stdout.write(
            f"{label}  {len(document.sections)} sections, {len(document.tools)} tools  ({target})\n"
        )
    return 0


def _check_all(store: FileOverridesStore, tag: str | None) -> int:
    problems = 0
    checked = 0
    for ns, prompt_key, entry_tag in store.entries():
        if tag is not None and entry_tag != tag:
            continue
        label = _label(ns, prompt_key, entry_tag)
        try:
            document = store.load(ns, prompt_key, entry_tag)
            assert document is not None
            if document.target is None:
                sys.stdout.write(f"{label}: not checked, the file records no target\n")
                continue
            prompt = _template(document.target)
            checked += 1
            problems += _report(label, prompt, document)
        except (OverridesError, TargetError) as error:
            sys.stdout.write(f"{label}: {error}\n")
            problems += 1
    if checked == 0 and problems == 0:
        sys.stdout.write(f"no overrides to check under {store.directory}\n")
    return 1 if problems else 0


def _check_prompt(store: FileOverridesStore, prompt: PromptTemplate[Any], tag: str | None) -> int:
    tags = [tag] if tag is not None else _tags(store, prompt)
    if not tags:
        sys.stdout.write(f"prompt {prompt.key!r} has no overrides under {store.directory}\n")
        return 0
    problems = 0
    for each in tags:
        label = _label(prompt.ns, prompt.key, each)
        document = store.load(prompt.ns, prompt.key, each)
        if document is None:
            sys.stdout.write(f"{label}: no such file ({store.path(prompt.ns, prompt.key, each)})\n")
            problems += 1
            continue
        problems += _report(label, prompt, document)
    return 1 if problems else 0


def _tags(store: FileOverridesStore, prompt: PromptTemplate[Any]) -> list[str]:
    return [tag for ns, key, tag in store.entries() if (ns, key) == (prompt.ns, prompt.key)]


def _report(label: str, prompt: PromptTemplate[Any], document: PromptOverrides) -> int:
    """Print what the document does to the prompt; the number of overrides it skips."""
    applied = _resolved(prompt, document)
    applies = len(applied.bodies.keys() | applied.summaries.keys()) + len(applied.tools)
    if not applied.skipped:
        sys.stdout.write(f"{label}: ok, {applies} overrides apply\n")
        return 0
    sys.stdout.write(f"{label}: {len(applied.skipped)} skipped, {applies} apply\n")
    for skipped in applied.skipped:
        sys.stdout.write(f"  {skipped}\n")
    return len(applied.skipped)


def _resolved(prompt: PromptTemplate[Any], document: PromptOverrides) -> AppliedOverrides:
    """``document`` resolved against ``prompt`` without its warnings: the command reports
    what it skips itself, once."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OverrideWarning)
        return resolve(prompt, document)


def _diff(store: FileOverridesStore, prompt: PromptTemplate[Any], tag: str) -> int:
    document = store.load(prompt.ns, prompt.key, tag)
    if document is None:
        _say(f"no overrides file {store.path(prompt.ns, prompt.key, tag)}")
        return 1
    applied = _resolved(prompt, document)
    stale: dict[tuple[str, str], SkippedOverride] = {
        (item.kind, item.name): item for item in applied.skipped
    }
    shown = 0
    for kind, name, field, current, override in _pairs(prompt, document):
        if current == override:
            continue
        shown += 1
        mark = stale.get((kind, name))
        note = f"  [{mark.reason}: {mark.detail}]" if mark is not None else ""
        sys.stdout.write(f"=== {kind} {name} {field}{note}\n")
        sys.stdout.writelines(
            difflib.unified_diff(
                _lines(current),
                _lines(override),
                fromfile=f"{kind} {name} {field} (current)",
                tofile=f"{kind} {name} {field} (override)",
            )
        )
        sys.stdout.write("\n")
    if shown == 0:
        sys.stdout.write(f"{_label(prompt.ns, prompt.key, tag)}: no override differs\n")
    return 0


def _lines(text: str) -> list[str]:
    """``text`` as the lines a unified diff prints, the last one ended too."""
    return [line if line.endswith("\n") else f"{line}\n" for line in text.splitlines()]


def _pairs(
    prompt: PromptTemplate[Any], document: PromptOverrides
) -> Iterator[tuple[str, str, str, str, str]]:
    """``(kind, name, field, current text, override text)`` for every text the document sets;
    the current text is empty where the prompt has no such section or tool."""
    for dotted, entry in sorted(document.sections.items()):
        section = prompt.section(tuple(dotted.split(".")))
        original = section_original(section) if section is not None else {}
        for field, text in (("template", entry.template), ("summary", entry.summary)):
            if text is not None:
                yield "section", dotted, field, original.get(field) or "", text
    _, tools = overridable(prompt)
    declared = {tool.name: tool for tool in prompt.tools()}
    for name, tool_entry in sorted(document.tools.items()):
        tool = tools.get(name) or declared.get(name)
        if tool_entry.description is not None:
            current = tool.description if tool is not None else ""
            yield "tool", name, "description", current, tool_entry.description
        for param, text in sorted(tool_entry.params.items()):
            current = tool.param_descriptions.get(param, "") if tool is not None else ""
            if text.strip():
                yield "tool", name, f"params.{param}", current, text
        if tool_entry.examples is not None:
            current_examples = [example_json(e) for e in tool.examples] if tool else []
            yield (
                "tool",
                name,
                "examples",
                json.dumps(current_examples, indent=2, sort_keys=True) + "\n",
                json.dumps([dict(e) for e in tool_entry.examples], indent=2, sort_keys=True) + "\n",
            )
