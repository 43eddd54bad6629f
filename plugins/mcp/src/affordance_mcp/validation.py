"""Checking a model's arguments against an MCP tool's ``inputSchema``, with ``jsonschema``.

The SDK depends on ``jsonschema``, so no new dependency comes with it. Each problem becomes a
:class:`~affordance.serde.FieldError` at its path, the same shape as a dataclass tool's
validation errors, so the model reads one kind of message whatever the tool is made of.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affordance.serde import FieldError, JSONSchemaType

__all__ = ["MAX_ERRORS", "MAX_MESSAGE", "arguments_type"]

MAX_ERRORS = 10
"""The most problems reported for one call: enough to fix them, short enough to read."""

MAX_MESSAGE = 300
"""The longest one problem's message may be."""


def arguments_type(schema: Mapping[str, Any], *, name: str) -> JSONSchemaType:
    """The params type of an MCP tool: its ``inputSchema``, checked with the validator class
    the schema's ``$schema`` names (Draft 2020-12 when it names none, as MCP specifies)."""
    from jsonschema import exceptions, validators

    declared = dict(schema)
    declared.setdefault("type", "object")
    try:
        validator_class = validators.validator_for(
            declared, default=validators.Draft202012Validator
        )
        validator_class.check_schema(declared)
        validator = validator_class(declared)
    except exceptions.SchemaError as error:
        message = f"the server's inputSchema is not valid JSON Schema: {error.message}"

        def refuse(_arguments: Mapping[str, Any]) -> Sequence[FieldError]:
            return (FieldError((), message),)

        return JSONSchemaType(declared, refuse, name=name)

    def validate(arguments: Mapping[str, Any]) -> Sequence[FieldError]:
        problems: list[FieldError] = []
        for error in validator.iter_errors(arguments):
            path = tuple(error.absolute_path)
            text = error.message  # quotes the value, which may be huge: keep the head
            if len(text) > MAX_MESSAGE:
                text = text[: MAX_MESSAGE - 3] + "..."
            problems.append(FieldError(path, text))
            if len(problems) == MAX_ERRORS:
                break
        return problems

    return JSONSchemaType(declared, validate, name=name)
