"""A provider's dialect of JSON Schema, described as data: what :mod:`.schema_rules` applies.

Providers differ less in what they do than in which keywords they do it to: a keyword is kept,
stated in ``description``, dropped (noted, or silently), refused, or renamed; objects are closed
or not; an optional property stays optional or becomes nullable; depth and counts have limits.
A :class:`SchemaDialect` lists those choices; the contract is in ``specs/PLUGINS.md`` ("Tool
schemas"). The result of applying one is a :class:`ConvertedSchema`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from affordance._frozen import frozen
from affordance.adapters.schema_nulls import NullPlan, drop_nulls_in_json
from affordance.adapters.schema_walk import SchemaPath, schema_pointer

__all__ = [
    "CONSTRAINT_PHRASES",
    "JSON_TYPES",
    "SCHEMA_ORDER",
    "SCHEMA_REASONS",
    "TYPED_KEYWORDS",
    "ConvertedSchema",
    "SchemaDialect",
    "is_primitive",
    "is_string_or_number",
    "property_path",
    "schema_prompt",
]

SCHEMA_REASONS: Mapping[str, str] = {
    "not_schema": "{at} is not a schema object",
    "empty": "{at} allows a value of any type",
    "unlisted": "{at} uses {key!r}",
    "refused": "{at} uses {keys}",
    "value": "{at} uses {key} {value!r}",
    "root": "the root is not a plain object",
    "definitions": "{key} is not an object",
    "recursive": "the schema is recursive (through {name!r})",
    "bad_ref": "{at} refers to {ref!r}, not a local definition",
    "missing_ref": "{at} refers to {ref!r}, not a local definition",
    "ref_not_schema": "{at} refers to {ref!r}, which is not a schema object",
    "ref_cycle": "{at} refers to {name!r} with siblings, recursively",
    "all_of": "{at} uses allOf with several schemas",
    "combinator": "{at} has an empty or invalid {key}",
    "mixed": "{at} mixes anyOf with other keywords",
    "combined": "{at} combines anyOf and oneOf",
    "enum": "{at} has an enum of non-primitive values",
    "const": "{at} has a non-primitive const",
    "type": "{at} has an unknown type {type!r}",
    "untyped": "{at} allows a value of any type",
    "open": "{at} is {shape}; strict objects are closed",
    "properties": "{at} has invalid properties",
    "without": "{at} uses {key} without type {kind}",
    "without_object": "{at} has object keywords without type object",
    "without_array": "{at} has items without type array",
    "any_array": "{at} is an array of any values",
    "any_items": "{at} is an array of any values",
    "depth": "objects nest deeper than {limit} levels",
    "property_count": "more than {limit} properties",
    "enum_count": "more than {limit} enum values",
}
"""Why a strict dialect refuses a schema, by check; ``SchemaDialect.reasons`` overrides any.
Fields: ``at`` (the place, as ``where`` renders it), ``key``, ``keys``, ``value``, ``ref``,
``name`` (a definition's), ``type``, ``kind``, ``shape``, ``limit``."""

CONSTRAINT_PHRASES: Mapping[str, str] = {
    "pattern": "pattern {}",
    "format": "format {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minimum": "at least {}",
    "maximum": "at most {}",
    "multipleOf": "a multiple of {}",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "uniqueItems": "items unique",
    "minProperties": "at least {} properties",
    "maxProperties": "at most {} properties",
    "default": "default {}",
}
"""How a keyword moved into ``description`` reads in a phrase (``{}``: its value as JSON)."""

JSON_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
"""The type names of JSON Schema."""

SCHEMA_ORDER = (
    *("$defs", "definitions", "$ref", "enum", "const", "anyOf", "allOf", "type"),
    *("description", "title", "properties", "additionalProperties", "required"),
    *("items", "minItems", "format"),
)
"""The order strict rules build a node in: definitions, reference, literals, combinators, type,
annotations, then the keywords of objects, arrays and strings (``SchemaDialect.order``)."""

TYPED_KEYWORDS: Mapping[str, str] = {
    "properties": "object",
    "additionalProperties": "object",
    "required": "object",
    "items": "array",
}
"""Keywords that mean something on a node of one type only (``SchemaDialect.typed``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SchemaDialect:
    """One provider's JSON Schema: keyword tables and switches (``specs/PLUGINS.md``)."""

    name: str
    """How notes name the dialect: ``rewritten for Gemini's JSON Schema subset``."""
    strict: bool
    """Strict mode: refuse what cannot be expressed (with a reason); else never refuse."""
    kept: frozenset[str]
    """Keywords sent as they are (the subschemas under them rewritten in turn)."""
    unlisted: Literal["refuse", "describe", "drop"]
    """What any keyword in no table gets: the schema refused, stated in ``description`` as
    JSON, or dropped and named in the note."""
    kept_prefix: str | None = None
    """Keywords starting with this are kept too (``$`` for ``$id``, ``$anchor``, ...)."""
    dropped: frozenset[str] = frozenset()
    """Keywords left out without a word (annotations such as ``$schema``)."""
    described: frozenset[str] = frozenset()
    """Keywords stated in ``description`` (the phrases of :data:`CONSTRAINT_PHRASES`)."""
    refused: frozenset[str] = frozenset()
    """Keywords that change what a value means: a strict dialect refuses the schema."""
    renamed: Mapping[str, str] = field(default_factory=dict)
    """Keywords sent under another name (``oneOf`` as ``anyOf``; ``const`` becomes ``enum``
    of its one value)."""
    restricted: Mapping[str, Collection[Any]] = field(default_factory=dict)
    """Kept keywords kept only with one of these values (``format``), else treated as unlisted."""
    typed: Mapping[str, str] = field(default_factory=dict)
    """Kept keywords that apply to one type only (``items``: ``array``; :data:`TYPED_KEYWORDS`);
    on a node without that type they are treated as unlisted. Empty: kept wherever they are."""
    all_of: Literal["merge", "any_of", "inline_refs"] = "inline_refs"
    """``allOf``, strict: its one schema merged into the node (``merge``), or kept with each
    ``$ref`` branch replaced by the definition (``inline_refs``); lenient: a one-schema
    ``allOf`` sent as an ``anyOf`` branch (``any_of``), any other as an unlisted keyword."""
    ref_siblings: Literal["inline", "any_of"] = "inline"
    """A ``$ref`` beside other keywords, strict: the definition inlined, the siblings winning
    (``inline``); lenient: ``anyOf: [{"$ref": ...}]`` beside them (``any_of``), or left so."""
    definitions: Literal["first", "last", "in_place"] = "first"
    """Where a strict dialect puts the root's definitions (rewritten before the rest): first;
    or last and only when not empty, one table (``$defs``, else ``definitions``). A lenient
    dialect rewrites every table in place, wherever it stands (``in_place``)."""
    closes_listed: bool = False
    """An object listing its properties with no ``additionalProperties`` is closed (it ignores
    other keys anyway); otherwise only an object already closed is strict."""
    optional: Literal["kept", "nullable"] = "kept"
    """``nullable``: every property required, an optional one made nullable (with a
    :class:`NullPlan` to drop the model's ``null`` again)."""
    any_of_alone: bool = False
    """``anyOf`` may stand beside ``description`` and ``title`` only."""
    types: Collection[str] | None = None
    """The type names a strict dialect knows; None: any name."""
    literal: Callable[[Any], bool] | None = None
    """What an ``enum`` or ``const`` value may be: otherwise refused (strict) or stated."""
    inclusive_bounds: bool = False
    """``exclusiveMinimum`` / ``exclusiveMaximum`` as ``minimum`` / ``maximum`` (the next
    integer for ``integer``; for numbers the same value, the bound stated)."""
    recursive: bool = True
    """Whether a recursive schema may be sent (else refused, before anything is rewritten)."""
    root_object: bool = False
    """The root must be a plain object: ``type: object``, no ``anyOf``, no ``$ref``."""
    max_depth: int | None = None
    """Limits over the whole schema (strict): objects nested, properties, ``enum`` values."""
    max_properties: int | None = None
    max_enum_values: int | None = None
    description: Literal["json", "phrases"] = "json"
    """How moved keywords are stated: one JSON object after a blank line, or phrases in
    parentheses after a space."""
    order: tuple[str, ...] = ()
    """Keywords first in this order in each rewritten node (:data:`SCHEMA_ORDER`), the rest
    after them; empty: the input's order."""
    where: Callable[[SchemaPath], str] = schema_pointer
    """How a reason names a place: ``#/properties/a``, or :func:`property_path`."""
    reasons: Mapping[str, str] = field(default_factory=dict)
    """Templates replacing the default :data:`SCHEMA_REASONS`."""


@frozen
class ConvertedSchema:
    """A schema in a dialect: ``strict`` when a strict dialect could express it (else the input
    and the ``reason``); ``nulls`` where its ``null`` means absent; what was ``changed`` (moved
    or renamed) and ``dropped`` (keyword names, sorted), and the ``note`` saying so."""

    schema: Mapping[str, Any]
    strict: bool
    reason: str | None = None
    nulls: NullPlan | None = None
    changed: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    note: str | None = None

    @property
    def normalize_arguments(
        self,
    ) -> Callable[[str | Mapping[str, Any]], str | dict[str, Any]] | None:
        """A tool declaration's ``normalize_arguments``: the model's arguments without the nulls
        that mean absent (``nulls``); None when the schema has none."""
        return None if self.nulls is None else self.nulls.normalize

    @property
    def normalize_text(self) -> Callable[[str], str] | None:
        """An output format's ``normalize_text``: the answer's JSON without the nulls that mean
        absent; None when the schema has none."""
        return None if self.nulls is None else partial(drop_nulls_in_json, plan=self.nulls)


def change_note(name: str, changed: Collection[str], dropped: Collection[str]) -> str | None:
    """What ``affordance render`` should say about a rewritten declaration, or None."""
    parts = []
    if changed:
        parts.append(f"rewritten for {name}'s JSON Schema subset: {', '.join(changed)}")
    if dropped:
        parts.append(
            f"not expressible for {name} and dropped (still validated): {', '.join(dropped)}"
        )
    return "; ".join(parts) or None


def phrase(key: str, value: Any) -> str:
    """``key: value`` as a phrase of a description: ``at most 8 characters``."""
    template = CONSTRAINT_PHRASES.get(key)
    return template.format(literal_text(value)) if template else f"{key} {literal_text(value)}"


def schema_prompt(schema: Mapping[str, Any], name: str) -> str:
    """The instructions asking for ``name`` as JSON matching ``schema``: what a provider adds to
    the prompt when its dialect cannot carry the schema as a native output format."""
    text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    return (
        f"Give your final answer ({name}) as a single JSON value matching this JSON Schema, "
        f"with no other text before or after it:\n{text}"
    )


def literal_text(value: Any) -> str:
    """``value`` as JSON in a phrase: ``"a"``, ``[1, 2]``."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def is_string_or_number(value: Any) -> bool:
    return isinstance(value, str) or is_number(value)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_primitive(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def property_path(path: SchemaPath) -> str:
    """``path`` as a user names it: ``property 'a/b[]'``, ``property '$defs/N/x'``."""
    where, rest = "", list(path)
    while rest:
        key = rest.pop(0)
        if key in ("#", "items"):
            where = "#" if key == "#" else f"{where}[]"
        elif key in ("$defs", "definitions"):
            where = f"{key}/{rest.pop(0)}"
        else:
            name = rest.pop(0)
            where += f"/{name}" if key == "properties" else f"/{key}/{name}"
    return f"property {where.lstrip('/')!r}" if where else "the schema"
