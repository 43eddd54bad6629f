"""Conversion between JSON-like data and typed classes, with the standard library only.

`parse` builds dataclasses (or pydantic models) from a model's tool-call arguments, `dump` turns
results back into JSON data, and `schema` describes a type as JSON Schema. A `JSONSchemaType` is
a type given the other way round: a JSON Schema with a validator, parsed into a plain dict. Both
`parse` and `dump` refuse data nested deeper than `MAX_DEPTH`. See specs/SERDE.md.
"""

from affordance.serde._depth import MAX_DEPTH
from affordance.serde._dump import dump
from affordance.serde._errors import FieldError, ParseError
from affordance.serde._parse import parse
from affordance.serde._schema import schema
from affordance.serde.json_schema_type import JSONSchemaType, Validator

__all__ = [
    "MAX_DEPTH",
    "FieldError",
    "JSONSchemaType",
    "ParseError",
    "Validator",
    "dump",
    "parse",
    "schema",
]
