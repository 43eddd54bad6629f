"""Rebuilding a JSON Schema document one subschema at a time.

Knowing which keywords hold subschemas matters: a property *named* `title` is data, while the
`title` keyword is an annotation that can be dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["rebuild_schema"]

_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
_SCHEMA_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})
_SCHEMA_VALUES = frozenset(
    {
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
    }
)


def rebuild_schema(schema: Any, keyword: Callable[[str, Any], tuple[str, Any] | None]) -> Any:
    """A copy of `schema` where each keyword of each subschema went through `keyword`.

    `keyword(name, value)` returns the pair to keep (after its subschemas were rebuilt) or
    None to drop it; data keywords such as `default` or `enum` are never entered.
    """
    if not isinstance(schema, dict):
        return schema  # boolean schemas
    rebuilt: dict[str, Any] = {}
    for name, original in schema.items():
        value = original
        if name in _SCHEMA_MAPS and isinstance(original, dict):
            value = {key: rebuild_schema(sub, keyword) for key, sub in original.items()}
        elif name in _SCHEMA_LISTS and isinstance(original, list):
            value = [rebuild_schema(sub, keyword) for sub in original]
        elif name in _SCHEMA_VALUES:
            value = rebuild_schema(original, keyword)
        kept = keyword(name, value)
        if kept is not None:
            rebuilt[kept[0]] = kept[1]
    return rebuilt
