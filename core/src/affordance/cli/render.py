"""``affordance render MODULE:PROMPT``: the rendered text and the tool declarations of a prompt.

``PROMPT`` names a ``PromptTemplate`` (rendered with its default params), a ``RenderedPrompt``,
or a function taking no arguments that returns either. Without ``--provider`` the tools are
shown in the provider-neutral form (name, description, JSON Schema). ``--provider NAME`` shows
exactly what that provider's adapter would send first: the whole request body, with the
declarations its resolved serializers make and the hosted tools its codecs make. Anything that
would stop an evaluation (an unresolved plugin conflict, an unsupported hosted tool) stops the
command with that error and exit code 1.
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
        document = _document(rendered, args.provider, args.target)
    except (
        AffordanceError,
        LookupError,
        TypeError,
        ValueError,
        ImportError,
        NotImplementedError,
    ) as error:
        sys.stderr.write(f"affordance render: {error}\n")
        return 1
    if args.json:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    sys.stdout.write(rendered.text + "\n")
    if "request" in document:
        sys.stdout.write(f"\n--- request body ({args.provider}) ---\n")
        sys.stdout.write(json.dumps(document["request"], indent=2) + "\n")
        return 0
    sys.stdout.write(f"\n--- tools ({len(document['tools'])}) ---\n")
    for declaration in document["tools"]:
        sys.stdout.write(json.dumps(declaration, indent=2) + "\n")
    if document["hosted_tools"]:
        sys.stdout.write(f"\n--- hosted tools ({len(document['hosted_tools'])}) ---\n")
        for item in document["hosted_tools"]:
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
        try:
            value = getattr(value, part)
        except AttributeError:
            raise LookupError(f"{module_name} has no attribute {attribute!r}") from None
    return value


def _rendered(value: Any) -> RenderedPrompt[Any]:
    if callable(value) and not isinstance(value, (PromptTemplate, RenderedPrompt)):
        value = value()
    if isinstance(value, PromptTemplate):
        return value.render()
    if isinstance(value, RenderedPrompt):
        return value
    raise TypeError(f"expected a PromptTemplate or RenderedPrompt, got {type(value).__qualname__}")


def _document(rendered: RenderedPrompt[Any], provider: str | None, name: str) -> dict[str, Any]:
    if provider is None:
        tools = [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.parameters_schema()),
            }
            for tool in rendered.tools
        ]
        hosted = [
            {"kind": tool.kind, "name": tool.name, "description": tool.description}
            for tool in rendered.hosted_tools
        ]
        return {"text": rendered.text, "tools": tools, "hosted_tools": hosted}
    from affordance.adapters import ProviderAdapter
    from affordance.plugins import load_adapter

    adapter = load_adapter(provider, model="render")
    if not isinstance(adapter, ProviderAdapter):
        raise TypeError(f"provider {provider!r} has no wire format to show")
    request = adapter.preview_request(rendered, prompt_name=name)
    return {"text": rendered.text, "request": adapter.wire_request(request)}
