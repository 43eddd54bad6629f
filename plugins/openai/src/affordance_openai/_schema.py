"""OpenAI's strict JSON Schema: make a schema strict when that keeps its meaning, else say why not.

Strict mode (function ``strict: true``, ``json_schema`` ``strict: true``) constrains decoding to
the schema but accepts only a subset of JSON Schema. The dialect below mirrors the rules of the
SDK's ``to_strict_json_schema``: every object is closed; ``required`` lists every property and an
optional property becomes a union with ``null`` (a ``NullPlan`` says where that ``null`` means
"absent"); ``default`` is dropped; a one-item ``allOf`` is merged; a ``$ref`` with sibling
keywords is inlined. A schema using anything outside the subset (open objects and mappings,
tuples, ``uniqueItems``, string lengths, unknown keywords or formats, more than 10 levels or
5000 properties) is sent as it is with ``strict: false`` and the reason.

Core's rule kit applies the dialect (``specs/PLUGINS.md``, "Tool schemas"; the rule in
``specs/adapters/openai.md``); the input schema is never modified.
"""

from __future__ import annotations

from affordance.adapters import TYPED_KEYWORDS, SchemaDialect

__all__ = ["STRICT"]

STRICT = SchemaDialect(
    name="OpenAI",
    strict=True,
    kept=frozenset(
        {
            *("type", "properties", "required", "additionalProperties", "items"),
            *("anyOf", "allOf", "$ref", "enum", "const", "description", "title"),
            *("pattern", "format", "minimum", "maximum", "exclusiveMinimum"),
            *("exclusiveMaximum", "multipleOf", "minItems", "maxItems"),
        }
    ),
    unlisted="refuse",
    dropped=frozenset({"default", "$schema"}),
    restricted={
        "format": frozenset(
            {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
        )
    },
    typed=TYPED_KEYWORDS,
    all_of="merge",
    definitions="last",
    closes_listed=True,  # pydantic models ignore extra keys; the SDK closes them the same way
    optional="nullable",
    any_of_alone=True,
    root_object=True,
    max_depth=10,
    max_properties=5000,
    max_enum_values=1000,
    reasons={
        "not_schema": "{at} accepts any value",
        "empty": "{at} accepts any value",
        "bad_ref": "{at} refers to {ref!r}",
        "missing_ref": "no definition {name!r}",
        "ref_not_schema": "no definition {name!r}",
        "combinator": "{at}/{key} is not a non-empty list",
        "untyped": "{at} has no type",
        "open": "{at} is an open object (a mapping)",
        "properties": "{at}/properties is not an object",
        "any_array": "{at} is an array of any value",
        "any_items": "{at}/items accepts any value",
    },
)
"""OpenAI's strict subset, as core's rule kit reads it."""
