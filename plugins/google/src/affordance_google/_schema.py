"""Gemini's JSON-Schema dialect as data for core's rule kit (``specs/PLUGINS.md``, "Tool
schemas"); the rules: ``specs/adapters/google.md``, "Gemini's JSON-Schema dialect"."""

from __future__ import annotations

from affordance.adapters import CONSTRAINT_PHRASES, SchemaDialect, is_string_or_number

__all__ = ["GEMINI", "SUPPORTED_KEYWORDS"]

SUPPORTED_KEYWORDS = frozenset(
    {
        *("type", "format", "title", "description", "enum", "items", "prefixItems"),
        *("minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties"),
        *("additionalProperties", "required", "propertyOrdering"),
    }
)
"""What the API documents beside the ``$``-keywords."""

GEMINI = SchemaDialect(
    name="Gemini",
    strict=False,
    kept=SUPPORTED_KEYWORDS,
    kept_prefix="$",
    unlisted="drop",
    described=frozenset(CONSTRAINT_PHRASES) - SUPPORTED_KEYWORDS,  # what core can phrase
    renamed={"const": "enum"},
    all_of="any_of",
    ref_siblings="any_of",
    definitions="in_place",
    literal=is_string_or_number,  # an enum of anything else is stated instead
    inclusive_bounds=True,
    description="phrases",
)
