"""Reading a response's hosted-tool outputs: each tool's codec parses the items, and what it
returns must be the output type its kind is registered with.

Codecs and the kinds' types are plugin code reading the provider's data, so whatever goes wrong
there costs that tool's output for this response and nothing else: a codec that raises, an
output of another type than the registered one, a registered type that cannot be loaded or
checked. Each is one WARNING on ``affordance.hosted`` holding metadata only — tool, kind, type
names, an exception's class — never the output or the items. ``KeyboardInterrupt`` propagates.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from affordance.tools.hosted import HostedTool, HostedToolCodec, HostedToolOutput

__all__ = ["read_hosted_outputs"]

_log = logging.getLogger("affordance.hosted")


def read_hosted_outputs(
    items: Sequence[Mapping[str, Any]],
    hosted_tools: Sequence[HostedTool[Any]],
    *,
    codec_of: Callable[[str], HostedToolCodec[Any, Any] | None],
    output_type_of: Callable[[str], type[Any] | None],
) -> dict[str, HostedToolOutput]:
    """The outputs of the ``hosted_tools`` invoked in ``items``, by tool name: read by
    ``codec_of(kind)`` (no codec, no output) and kept when ``output_type_of(kind)`` is None or
    the output is an instance of it."""
    outputs: dict[str, HostedToolOutput] = {}
    for tool in hosted_tools:
        codec = codec_of(tool.kind)
        if codec is None:
            continue
        try:
            output = codec.parse_output(items, tool)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 - a codec is plugin code
            _log.warning(
                "hosted tool %s: its %s codec failed to read the response (%s)",
                tool.name,
                tool.kind,
                type(error).__name__,
                extra=_fields(tool, affordance_error_code=type(error).__name__),
            )
            continue
        if output is not None and _registered_type_holds(tool, output, output_type_of):
            outputs[tool.name] = output
    return outputs


def _registered_type_holds(
    tool: HostedTool[Any], output: object, output_type_of: Callable[[str], type[Any] | None]
) -> bool:
    """Whether ``output`` is of the type ``tool``'s kind is registered with (or none is);
    warns when it is not, or when that type cannot be loaded or checked."""
    try:
        expected = output_type_of(tool.kind)
        if expected is None or isinstance(output, expected):
            return True
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - the kind's type is plugin code too
        _log.warning(
            "hosted tool %s: the output type of kind %s could not be checked (%s); its output "
            "is dropped",
            tool.name,
            tool.kind,
            type(error).__name__,
            extra=_fields(
                tool,
                affordance_error_code=type(error).__name__,
                affordance_problem="output type not checked",
            ),
        )
        return False
    _log.warning(
        "hosted tool %s: its %s codec returned %s, but kind %s is registered with output %s; "
        "the output is dropped",
        tool.name,
        tool.kind,
        _name(type(output)),
        tool.kind,
        _name(expected),
        extra=_fields(
            tool,
            affordance_problem="wrong output type",
            affordance_output_type=_name(type(output)),
            affordance_expected_type=_name(expected),
        ),
    )
    return False


def _fields(tool: HostedTool[Any], **more: str) -> dict[str, str]:
    return {"affordance_hosted_tool": tool.name, "affordance_kind": tool.kind, **more}


def _name(cls: type[Any]) -> str:
    """A class's dotted name (``builtins.str``, ``affordance_acme_search.AcmeSearchResult``)."""
    return f"{cls.__module__}.{cls.__qualname__}"
