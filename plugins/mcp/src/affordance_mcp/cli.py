"""``affordance mcp serve MODULE:PROMPT``: a prompt's tools as an MCP server, from the shell.

The ``affordance.commands`` entry point ``mcp`` names this module, so the ``affordance``
command offers ``mcp`` and imports this only when it runs. ``PROMPT`` is a ``PromptTemplate``
(served with its default params) or a function of no arguments returning one. A target that
names no prompt is one line on stderr and exit code 2, never a traceback. Over stdio, stdout
is the protocol's, so nothing else is ever written there.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from affordance import PromptTemplate
from affordance.cli import TargetError, prompt_of

__all__ = ["HELP", "add_arguments", "run"]

HELP = "serve a prompt's tools as a Model Context Protocol server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)
    serve = actions.add_parser(
        "serve", help="serve the tools of MODULE:PROMPT", description=HELP + "."
    )
    serve.add_argument("target", metavar="MODULE:PROMPT", help="the prompt whose tools to serve")
    serve.add_argument(
        "--transport",
        choices=("stdio", "streamable-http"),
        default="stdio",
        help="stdio (the default) or streamable HTTP on http://HOST:PORT/mcp",
    )
    serve.add_argument("--host", default="127.0.0.1", help="streamable-http: address (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="streamable-http: port (8000)")
    serve.add_argument("--name", help="the server's name (the prompt's name)")


def run(args: argparse.Namespace) -> int:
    from affordance_mcp.serving import serve

    try:
        prompt = _template(args.target)
    except TargetError as error:
        print(f"affordance mcp serve: {error}", file=sys.stderr)
        return 2
    if args.transport == "streamable-http":
        print(
            f"Serving the tools of {prompt.name!r} on http://{args.host}:{args.port}/mcp",
            file=sys.stderr,
        )
    try:
        serve(prompt, transport=args.transport, host=args.host, port=args.port, name=args.name)
    except KeyboardInterrupt:
        return 130
    return 0


def _template(target: str) -> PromptTemplate[Any]:
    """The prompt template ``target`` names (core's loading, as ``affordance render`` does it);
    a rendered prompt will not do: the server renders the template itself."""
    prompt = prompt_of(target)
    if not isinstance(prompt, PromptTemplate):
        raise TargetError(f"{target} is a rendered prompt; expected its PromptTemplate")
    return prompt
