"""``JSONSchemaType``: a type given as a JSON Schema rather than a class.

Tools whose parameters come from elsewhere — an MCP server's ``inputSchema``, an OpenAPI
operation — have no dataclass to parse into. Their params type is a ``JSONSchemaType``: the schema
the provider is shown, a validator that checks arguments against it, and the plain ``dict`` the
handler receives. serde stays free of a schema validator of its own; whoever builds the type
brings one (``affordance-mcp`` uses the ``jsonschema`` package its SDK depends on).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from affordance.serde._depth import MAX_DEPTH, exceeds_depth, too_deep_message
from affordance.serde._errors import FieldError, ParseError, describe_value, short_repr

__all__ = ["JSONSchemaType", "Validator"]

Validator = Callable[[Mapping[str, Any]], Sequence[FieldError]]
"""Checks one arguments object against the schema: every problem found, ``()`` when it fits."""


def _any_object(_arguments: Mapping[str, Any]) -> Sequence[FieldError]:
    return ()


class JSONSchemaType:
    """A JSON object described by ``schema`` and checked by ``validate``.

    ``parse(JSONSchemaType(...), data)`` answers a new ``dict`` of ``data`` when ``validate``
    finds nothing and raises ``ParseError`` listing what it found otherwise; ``schema(...)``
    answers ``schema`` itself (read-only, as every schema serde hands out). Without a
    ``validate``, any object is accepted: say so to whoever reads the declaration. ``name``
    appears in validation messages.

    Equal schemas are not the same type: the type is its identity, like a class.
    """

    __slots__ = ("name", "schema", "validate")

    def __init__(
        self,
        schema: Mapping[str, Any],
        validate: Validator | None = None,
        *,
        name: str = "arguments",
    ) -> None:
        if schema.get("type", "object") != "object":
            raise ValueError(f"a JSONSchemaType describes an object, got type {schema['type']!r}")
        self.schema: dict[str, Any] = dict(schema)
        self.validate: Validator = _any_object if validate is None else validate
        self.name = name

    def __repr__(self) -> str:
        return f"JSONSchemaType(name={self.name!r})"

    def parse(self, data: object) -> dict[str, Any]:
        """``data`` as a new ``dict`` if it is an object the validator accepts, else
        ``ParseError`` with every problem. The validator is someone else's code: should it
        raise, the call fails with what it said rather than the run."""
        if exceeds_depth(data, MAX_DEPTH):
            raise ParseError([FieldError((), too_deep_message(MAX_DEPTH))], type_name=self.name)
        if not isinstance(data, Mapping):
            problem = FieldError((), f"expected an object, got {describe_value(data)}")
            raise ParseError([problem], type_name=self.name)
        bad_keys = [key for key in data if not isinstance(key, str)]
        if bad_keys:
            problem = FieldError((), f"object keys must be strings, got {short_repr(bad_keys[0])}")
            raise ParseError([problem], type_name=self.name)
        try:
            errors = tuple(self.validate(data))
        except Exception as error:  # noqa: BLE001 - a broken validator fails the call, not the run
            said = f"{type(error).__name__}: {error}"
            problem = FieldError((), f"the schema's validator raised {said}")
            raise ParseError([problem], type_name=self.name) from None
        if errors:
            raise ParseError(errors, type_name=self.name)
        return dict(data)

    @property
    def descriptions(self) -> dict[str, str]:
        """Each top-level property's ``description``, for the tool's parameter descriptions."""
        properties = self.schema.get("properties")
        if not isinstance(properties, Mapping):
            return {}
        return {
            str(key): value["description"]
            for key, value in properties.items()
            if isinstance(value, Mapping) and isinstance(value.get("description"), str)
        }
