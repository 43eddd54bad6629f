"""``affordance render MODULE:PROMPT``: the rendered text and the tool declarations of a prompt.

``PROMPT`` names a ``PromptTemplate`` (rendered with its default params), a ``RenderedPrompt``,
or a function taking no arguments that returns either. ``--provider NAME`` shows the tools as
that provider's adapter declares them (for OpenAI: whether each one is strict).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from affordance.errors import AffordanceError
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.template import PromptTemplate

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="MODULE:PROMPT", help="where the prompt is defined")
    parser.add_argument("--provider", help="show tool declarations as this provider sends them")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    try:
        rendered = _rendered(_resolve(args.target))
        declarations = _declarations(rendered, args.provider)
    except (AffordanceError, LookupError, TypeError, ValueError, ImportError) as error:
        sys.stderr.write(f"affordance render: {error}\n")
        return 1
    hosted = [
        {"kind": tool.kind, "name": tool.name, "description": tool.description}
        for tool in rendered.hosted_tools
    ]
    if args.json:
        document = {"text": rendered.text, "tools": declarations, "hosted_tools": hosted}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    sys.stdout.write(rendered.text + "\n")
    sys.stdout.write(f"\n--- tools ({len(declarations)}) ---\n")
    for declaration in declarations:
        sys.stdout.write(json.dumps(declaration, indent=2) + "\n")
    if hosted:
        sys.stdout.write(f"\n--- hosted tools ({len(hosted)}) ---\n")
        for item in hosted:
            sys.stdout.write(json.dumps(item) + "\n")
    return 0


def _resolve(target: str) -> Any:
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"expected MODULE:PROMPT, got {target!r}")
    cwd = str(Path.cwd())
    if "" not in sys.path and cwd not in sys.path:
        sys.path.insert(0, cwd)  # like ``python -m``: modules of the current directory
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def _rendered(value: Any) -> RenderedPrompt[Any]:
    if callable(value) and not isinstance(value, (PromptTemplate, RenderedPrompt)):
        value = value()
    if isinstance(value, PromptTemplate):
        return value.render()
    if isinstance(value, RenderedPrompt):
        return value
    raise TypeError(f"expected a PromptTemplate or RenderedPrompt, got {type(value).__qualname__}")


def _declarations(rendered: RenderedPrompt[Any], provider: str | None) -> list[dict[str, Any]]:
    if provider is None:
        from affordance.testing.scripted import ScriptedAdapter

        return ScriptedAdapter().tool_declarations(rendered.tools)
    from affordance.plugins import load_adapter

    adapter = load_adapter(provider, model="render")
    declarations: list[dict[str, Any]] = adapter.tool_declarations(rendered.tools)
    return declarations
