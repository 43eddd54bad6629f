"""OpenAI's strict JSON Schema subset, as a dialect of core's rule kit (``specs/PLUGINS.md``,
"Tool schemas"): a schema is made strict when that keeps its meaning, else sent as it is with
``strict: false`` and the reason (``specs/adapters/openai.md``, "The strict-schema rule").
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
