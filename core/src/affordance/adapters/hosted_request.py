"""What a request's hosted tools add to its body: each tool's declaration (its codec's
``serialize``) and the request fields the codecs ask for (``request_extras``), combined by one
rule for every provider.

The rule: codecs are asked in the request's hosted-tool order. A field one codec asks for is
taken as given. A field several ask for must come out as one value: when every value is a list,
their lists concatenated in tool order with duplicates dropped; otherwise one value they all
give. Two values that differ are a :class:`~affordance.errors.RequestExtrasConflictError` naming
both tools. Where the fields go in the body is the adapter's to say
(:meth:`HostedRequest.merge_into`): a codec adds fields, it never rewrites one the adapter
builds. All of it happens while the request is built, so a conflict sends nothing.

HTTP headers the codecs ask for (``request_headers``) are lists by rule (RFC 9110, section
5.3: ``anthropic-beta: a, b``): a header several codecs ask for gets every entry they give,
each once, in tool order (:func:`join_header_values`); the adapter sends them with the request.
What one codec asks for is read by :func:`codec_extras` and :func:`codec_headers`, which check
its answer (it is plugin code).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from affordance._frozen import frozen
from affordance.errors import RequestExtrasConflictError

if TYPE_CHECKING:
    from affordance.tools.hosted import HostedTool, HostedToolCodec

__all__ = ["HostedRequest", "codec_extras", "codec_headers", "join_header_values"]


@frozen
class HostedRequest:
    """The hosted tools of one request as its provider declares them.

    ``declarations``: each tool's declaration, in the request's order. ``extras``: the request
    fields their codecs ask for, combined, in the order first asked for. ``asked_by``: for each
    of those fields, the hosted tools whose codecs asked for it. ``headers``: the HTTP headers
    the codecs ask for, names in lower case, each value joined by the list rule. ``provider``
    (the codec provider) and ``prompt_name`` are what its errors name.
    """

    declarations: tuple[dict[str, Any], ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)
    asked_by: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    provider: str = ""
    prompt_name: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def combine(
        cls,
        declared: Sequence[tuple[str, dict[str, Any], Mapping[str, Any]]],
        *,
        provider: str,
        prompt_name: str | None = None,
        headers: Sequence[Mapping[str, str]] = (),
    ) -> HostedRequest:
        """The request of ``declared`` — ``(tool name, declaration, extras)`` per hosted tool,
        in the request's order — with the extras combined by the module's rule, and the
        ``headers`` the codecs ask for (one mapping per tool) joined as lists."""
        extras: dict[str, Any] = {}
        asked_by: dict[str, tuple[str, ...]] = {}
        for tool_name, _, asked in declared:
            for key, value in asked.items():
                if key not in extras:
                    extras[key] = _unique(value, []) if _is_list(value) else value
                    asked_by[key] = (tool_name,)
                    continue
                ours = extras[key]
                if isinstance(ours, list) and _is_list(value):
                    _unique(value, ours)
                elif type(ours) is not type(value) or ours != value:
                    first = asked_by[key][0]
                    raise RequestExtrasConflictError(
                        f"hosted tools {first!r} and {tool_name!r} ask for different values of "
                        f"request field {key!r} ({ours!r} and {value!r}): their codecs for "
                        f"provider {provider!r} cannot serve one request; declare them in "
                        "separate requests",
                        field=key,
                        tool_names=(first, tool_name),
                        provider=provider,
                        prompt_name=prompt_name,
                    )
                if tool_name not in asked_by[key]:
                    asked_by[key] += (tool_name,)
        joined: dict[str, str] = {}
        for asked_headers in headers:
            for name, value in asked_headers.items():
                key = name.lower()
                joined[key] = join_header_values(joined.get(key, ""), value)
        return cls(
            declarations=tuple(declaration for _, declaration, _ in declared),
            extras=MappingProxyType(extras),
            asked_by=MappingProxyType(asked_by),
            provider=provider,
            prompt_name=prompt_name,
            headers=MappingProxyType(joined),
        )

    def merge_into(self, body: dict[str, Any], *, built: Iterable[str] = ()) -> None:
        """Add the extras to ``body``, where the adapter calls this (before the caller's
        ``extra_body``, which may still replace them). A field the adapter builds itself
        (``built``, whether or not this request sets it) or that ``body`` already holds is a
        :class:`~affordance.errors.RequestExtrasConflictError` naming the tools that asked."""
        if not self.extras:
            return
        reserved = frozenset(built)
        for key, value in self.extras.items():
            if key in reserved or key in body:
                tools = self.asked_by[key]
                named = " and ".join(repr(name) for name in tools)
                raise RequestExtrasConflictError(
                    f"hosted tool{'s' if len(tools) > 1 else ''} {named} ask"
                    f"{'' if len(tools) > 1 else 's'} for request field {key!r}, which the "
                    f"adapter for provider {self.provider!r} builds itself: a codec may add "
                    "fields to a request, not replace one",
                    field=key,
                    tool_names=tools,
                    provider=self.provider,
                    prompt_name=self.prompt_name,
                )
            body[key] = copy.deepcopy(value)


def codec_extras(codec: HostedToolCodec[Any, Any], tool: HostedTool[Any]) -> Mapping[str, Any]:
    """The request fields ``codec`` asks for on behalf of ``tool`` — a copy, so the body never
    shares the codec's objects — or none when it does not define ``request_extras``."""
    declare = getattr(codec, "request_extras", None)
    if declare is None:
        return {}
    extras = declare(tool)
    if not isinstance(extras, Mapping) or not all(isinstance(key, str) for key in extras):
        raise TypeError(
            f"request_extras returned {type(extras).__qualname__}, not a mapping of request "
            "field names to values"
        )
    return copy.deepcopy(dict(extras))


def codec_headers(codec: HostedToolCodec[Any, Any], tool: HostedTool[Any]) -> Mapping[str, str]:
    """The HTTP headers ``codec`` asks for on behalf of ``tool`` (none when it does not define
    ``request_headers``), checked: header names and one-line values, all strings."""
    declare = getattr(codec, "request_headers", None)
    if declare is None:
        return {}
    headers = declare(tool)
    if not isinstance(headers, Mapping) or not all(
        isinstance(name, str)
        and name.strip()
        and isinstance(value, str)
        and not any(c in name + value for c in "\r\n")
        for name, value in headers.items()
    ):
        raise TypeError("request_headers must return a mapping of header names to one-line values")
    return dict(headers)


def join_header_values(*values: str) -> str:
    """One value of a list-valued HTTP header holding every entry of ``values`` once, in
    order: ``join_header_values("a, b", "b,c") == "a, b, c"`` (empty entries dropped)."""
    entries: list[str] = []
    for value in values:
        for piece in value.split(","):
            entry = piece.strip()
            if entry and entry not in entries:
                entries.append(entry)
    return ", ".join(entries)


def _is_list(value: object) -> bool:
    return isinstance(value, (list, tuple))


def _unique(entries: Iterable[Any], into: list[Any]) -> list[Any]:
    """``into`` with each of ``entries`` it does not hold yet appended, in order (entries may be
    unhashable: JSON objects)."""
    for entry in entries:
        if entry not in into:
            into.append(entry)
    return into
