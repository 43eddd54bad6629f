"""``affordance mcp serve MODULE:PROMPT``: a prompt's tools as an MCP server, from the shell.

The ``affordance.commands`` entry point ``mcp`` names this module, so the ``affordance``
command offers ``mcp`` and imports this only when it runs. ``PROMPT`` is a ``PromptTemplate``
(served with its default params) or a function of no arguments returning one. A target that
names no prompt is one line on stderr and exit code 2, never a traceback. Over stdio, stdout
is the protocol's, so nothing else is ever written there.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from affordance import PromptTemplate

__all__ = ["HELP", "TargetError", "add_arguments", "prompt_of", "run"]

HELP = "serve a prompt's tools as a Model Context Protocol server"


class TargetError(Exception):
    """``MODULE:PROMPT`` names no prompt template; the message says what was found."""


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
        prompt = prompt_of(args.target)
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


def prompt_of(target: str) -> PromptTemplate[Any]:
    """The prompt template ``target`` (``MODULE:ATTRIBUTE``, dotted attributes allowed) names:
    the template itself, or what the function of no arguments named returns."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(f"expected MODULE:PROMPT, got {target!r}")
    value: Any = _imported(module_name)
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise TargetError(f"{module_name} has no attribute {attribute!r}") from None
    made = value
    if not isinstance(value, PromptTemplate) and _callable_without_arguments(value):
        try:
            made = value()
        except Exception as error:  # the user's function: reported on one line, not swallowed
            raise TargetError(f"calling {target} raised {_described(error)}") from error
    if not isinstance(made, PromptTemplate):
        found = f" is {_kind(value)}" if made is value else f"() returned {_kind(made)}"
        raise TargetError(
            f"{target}{found}; expected a PromptTemplate or a function of no arguments "
            "returning one"
        )
    return made


def _imported(module_name: str) -> Any:
    cwd = str(Path.cwd())
    if "" not in sys.path and cwd not in sys.path:
        sys.path.insert(0, cwd)  # like ``python -m``: modules of the current directory
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and f"{module_name}.".startswith(f"{error.name}."):
            raise TargetError(f"cannot import {module_name}: {error}") from None
        raise TargetError(f"importing {module_name} raised {_described(error)}") from error
    except Exception as error:  # the user's module: reported on one line, not swallowed
        raise TargetError(f"importing {module_name} raised {_described(error)}") from error


def _callable_without_arguments(value: Any) -> bool:
    if not callable(value) or isinstance(value, type):
        return False
    try:
        inspect.signature(value).bind()
    except TypeError:
        return False
    except ValueError:  # no signature to read: calling it will tell
        return True
    return True


def _kind(value: Any) -> str:
    if isinstance(value, type):
        return f"the class {value.__qualname__}"
    if inspect.ismodule(value):
        return f"the module {value.__name__}"
    if callable(value):
        return f"the function {getattr(value, '__qualname__', '?')}, which takes arguments"
    return "None" if value is None else f"an instance of {type(value).__qualname__}"


def _described(error: BaseException) -> str:
    lines = str(error).splitlines()
    return type(error).__qualname__ + (f": {lines[0]}" if lines else "")
