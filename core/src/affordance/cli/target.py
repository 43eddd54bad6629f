"""The prompt a ``MODULE:PROMPT`` target names, or one line saying why there is none.

The module and the function a target names are the user's code, so whatever they raise is
reported as its type, its message and the line of the user's code it came from — one line, no
traceback (``python -c "import MODULE"`` shows the whole traceback).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from pathlib import Path
from typing import Any

from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.template import PromptTemplate

__all__ = ["TargetError", "prompt_of"]

_EXPECTED = "a PromptTemplate, a RenderedPrompt, or a function of no arguments returning one"


class TargetError(Exception):
    """The target names no prompt; the message says what was found and what was expected."""


def prompt_of(target: str) -> PromptTemplate[Any] | RenderedPrompt[Any]:
    """The prompt ``target`` names: the object itself, or what the function named returns."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(f"expected MODULE:PROMPT, got {target!r}")
    value: Any = _imported(module_name)
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise TargetError(f"{module_name} has no attribute {attribute!r}") from None
    if isinstance(value, (PromptTemplate, RenderedPrompt)):
        return value
    if not _callable_without_arguments(value):
        raise TargetError(f"{target} is {_described(value)}; expected {_EXPECTED}")
    try:
        made = value()
    except Exception as error:  # the user's function: any error is reported, none swallowed
        raise TargetError(f"calling {target} raised {_located(error, module_name)}") from error
    if isinstance(made, (PromptTemplate, RenderedPrompt)):
        return made
    raise TargetError(f"{target}() returned {_described(made)}; expected {_EXPECTED}")


def _imported(module_name: str) -> Any:
    cwd = str(Path.cwd())
    if "" not in sys.path and cwd not in sys.path:
        sys.path.insert(0, cwd)  # like ``python -m``: modules of the current directory
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and f"{module_name}.".startswith(f"{error.name}."):
            raise TargetError(f"cannot import {module_name}: {error}") from None
        raise TargetError(
            f"importing {module_name} raised {_located(error, module_name)}"
        ) from error
    except Exception as error:  # the user's module: any error is reported, none swallowed
        raise TargetError(
            f"importing {module_name} raised {_located(error, module_name)}"
        ) from error


def _callable_without_arguments(value: Any) -> bool:
    """A function (not a class: calling one builds its instance, never a prompt) that can be
    called with no arguments."""
    if not callable(value) or isinstance(value, type):
        return False
    try:
        inspect.signature(value).bind()
    except TypeError:
        return False
    except ValueError:  # no signature to read (some builtins): calling it will tell
        return True
    return True


def _described(value: Any) -> str:
    if isinstance(value, type):
        return f"the class {value.__qualname__}"
    if inspect.ismodule(value):
        return f"the module {value.__name__}"
    if callable(value):
        name = getattr(value, "__qualname__", type(value).__qualname__)
        return f"the function {name}{_signature(value)}, which takes arguments"
    if value is None:
        return "None"
    return f"an instance of {type(value).__qualname__}"


def _signature(value: Any) -> str:
    try:
        return str(inspect.signature(value))
    except (TypeError, ValueError):
        return "(...)"


def _located(error: BaseException, module_name: str) -> str:
    """``ValueError: boom (line 3 of myprompt)``: the error, and the last line of the user's
    package (the target module's top-level package) it passed through, if any."""
    lines = str(error).splitlines()
    described = type(error).__qualname__ + (f": {lines[0]}" if lines else "")
    package = module_name.partition(".")[0]
    place = None
    for frame, line in traceback.walk_tb(error.__traceback__):
        name = frame.f_globals.get("__name__", "")
        if name == package or name.startswith(f"{package}."):
            place = f"line {line} of {name}"
    return described if place is None else f"{described} ({place})"
