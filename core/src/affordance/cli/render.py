"""``affordance render MODULE:PROMPT``: the rendered text and the tool declarations of a prompt.

``PROMPT`` names a ``PromptTemplate`` (rendered with its default params), a ``RenderedPrompt``,
or a function taking no arguments that returns either. Without ``--provider`` the tools are
shown in the provider-neutral form (name, description, JSON Schema). ``--provider NAME`` shows
exactly what that provider's adapter would send first: the whole request body, with the
declarations its resolved serializers make and the hosted tools its codecs make, for the model
``--model`` names (``"<model>"``, marked as a placeholder, without it). A target that names no
prompt is a one-line error and exit code 2; anything that would stop an evaluation (an unresolved
plugin conflict, an unsupported hosted tool) stops the command with that error and exit code 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from affordance.cli.target import TargetError, prompt_of
from affordance.errors import AffordanceError
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.template import PromptTemplate

__all__ = ["PLACEHOLDER_MODEL", "add_arguments", "run"]

# what the request body names as its model when ``--model`` is not given
PLACEHOLDER_MODEL = "<model>"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="MODULE:PROMPT", help="where the prompt is defined")
    parser.add_argument("--provider", help="show tool declarations as this provider sends them")
    parser.add_argument(
        "--model",
        help=f"the model the --provider request body names (default: {PLACEHOLDER_MODEL})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    if args.model is not None and args.provider is None:
        sys.stderr.write("affordance render: --model names the model of a --provider request\n")
        return 2
    try:
        prompt = prompt_of(args.target)
    except TargetError as error:
        sys.stderr.write(f"affordance render: {error}\n")
        return 2
    try:
        rendered = prompt.render() if isinstance(prompt, PromptTemplate) else prompt
        document = _document(rendered, args.provider, args.model, args.target)
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
        model = args.model or f"{PLACEHOLDER_MODEL}: a placeholder, set it with --model"
        sys.stdout.write(f"\n--- request body ({args.provider}, model {model}) ---\n")
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


def _document(
    rendered: RenderedPrompt[Any], provider: str | None, model: str | None, name: str
) -> dict[str, Any]:
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

    adapter = load_adapter(provider, model=model or PLACEHOLDER_MODEL)
    if not isinstance(adapter, ProviderAdapter):
        raise TypeError(f"provider {provider!r} has no wire format to show")
    request = adapter.preview_request(rendered, prompt_name=name)
    return {"text": rendered.text, "request": adapter.wire_request(request)}
