"""Anthropic's strict JSON Schema, as data for core's rule kit: the subset strict tool use and
JSON outputs compile into a grammar. A constraint the grammar lacks moves into ``description``
(the tool still validates it); what would change a schema's meaning is refused, and the schema
goes unchanged and not strict, with the reason. Each rule and why it is safe:
``specs/adapters/anthropic.md``, "The strict subset"; the kit: ``specs/PLUGINS.md``, "Tool
schemas".
"""

from __future__ import annotations

from affordance.adapters import (
    JSON_TYPES,
    SCHEMA_ORDER,
    TYPED_KEYWORDS,
    SchemaDialect,
    is_primitive,
    property_path,
)

__all__ = ["STRICT"]

STRICT = SchemaDialect(
    name="Anthropic",
    strict=True,
    kept=frozenset(
        {
            *("type", "properties", "required", "additionalProperties", "items", "minItems"),
            *("anyOf", "allOf", "enum", "const", "format", "description", "title"),
        }
    ),
    unlisted="describe",
    dropped=frozenset({"$schema", "$comment"}),
    refused=frozenset(  # they shape the value itself: without them it means something else
        {
            *("not", "if", "then", "else", "prefixItems", "patternProperties", "propertyNames"),
            *("dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "contentSchema"),
        }
    ),
    renamed={"oneOf": "anyOf"},
    restricted={
        "format": frozenset(
            {
                *("date-time", "time", "date", "duration", "email"),
                *("hostname", "uri", "ipv4", "ipv6", "uuid"),
            }
        ),
        "minItems": (0, 1),
    },
    typed={**TYPED_KEYWORDS, "minItems": "array", "format": "string"},
    types=JSON_TYPES,
    literal=is_primitive,
    recursive=False,  # the grammar cannot recurse
    order=SCHEMA_ORDER,
    where=property_path,
)
"""Anthropic's strict subset (what a schema spends of a request's budget is core's
``schema_cost``)."""
