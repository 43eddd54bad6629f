"""One walk over a JSON Schema, for the provider plugins that rewrite tool and output schemas.

The traversal lives here once: which keywords hold subschemas, the local definitions a ``$ref``
names, ``$ref`` cycles, the path of each subschema. What a provider's dialect needs is a
:class:`SchemaRules` object, usually core's rule kit (:mod:`.schema_rules`) reading the
provider's ``SchemaDialect``: the walk hands it every subschema (``rewrite``), and the rules
rebuild the node, asking the walk for its subschemas. Rules that cannot express a schema raise
:class:`SchemaRefusedError` with the reason. The input schema is never modified.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

from affordance._frozen import frozen

__all__ = [
    "SCHEMA_KEYWORDS",
    "SchemaCost",
    "SchemaPath",
    "SchemaRefusedError",
    "SchemaRules",
    "SchemaWalk",
    "copy_json",
    "local_refs",
    "recursive_ref",
    "schema_cost",
    "schema_pointer",
    "schema_types",
]

SchemaPath = tuple[str | int, ...]
"""Where a subschema sits: keywords, property and definition names, branch indexes; a path
starting with ``"#"`` is a copy inlined at the root (a ``$ref`` beside other keywords there)."""

_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_VALUES = frozenset(
    {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"}
)
SCHEMA_KEYWORDS = _MAPS | _LISTS | _VALUES
"""Keywords whose value is a subschema, a list of them, or a map of names to them."""
_DEFINITIONS = ("$defs", "definitions")


class SchemaRefusedError(Exception):
    """A provider's rules cannot express the schema; ``reason`` says why, for the user."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class SchemaRules(Protocol):
    """A provider's dialect: how one subschema is rebuilt (its children through ``walk``)."""

    def rewrite(self, walk: SchemaWalk, node: Any, path: SchemaPath) -> Any: ...


class SchemaWalk:
    """A walk of ``root`` with ``rules``: ``run()`` gives the rewritten schema."""

    __slots__ = ("_inlining", "definitions", "root", "rules")

    def __init__(self, root: Any, rules: SchemaRules) -> None:
        self.root = root
        self.rules = rules
        self.definitions: dict[str, Any] = {}
        """Each local definition by the ``$ref`` naming it (``#/$defs/N``, ``#/definitions/N``)."""
        self._inlining: set[str] = set()
        for key in _DEFINITIONS:
            found = root.get(key) if isinstance(root, Mapping) else None
            if isinstance(found, Mapping):
                self.definitions.update((f"#/{key}/{name}", value) for name, value in found.items())

    def run(self) -> Any:
        return self.rewrite(self.root, ())

    def rewrite(self, node: Any, path: SchemaPath) -> Any:
        """``node`` (at ``path``) as the rules rebuild it."""
        return self.rules.rewrite(self, node, path)

    def subschemas(
        self, node: Mapping[str, Any], path: SchemaPath, keywords: Iterable[str] = SCHEMA_KEYWORDS
    ) -> dict[str, Any]:
        """Each subschema slot of ``node`` under ``keywords``, rewritten, keys in order.

        A map or list keyword whose value is not a map or list is no slot, and left out.
        """
        walked = frozenset(keywords)
        return {
            key: self.keyword(key, value, path)
            for key, value in node.items()
            if key in walked and _is_slot(key, value)
        }

    def keyword(self, key: str, value: Any, path: SchemaPath) -> Any:
        """``value`` of keyword ``key`` in the node at ``path``, its subschemas rewritten."""
        if key in _MAPS and isinstance(value, Mapping):
            return {n: self.rewrite(sub, (*path, key, n)) for n, sub in value.items()}
        if key in _LISTS and isinstance(value, list):
            return [self.rewrite(sub, (*path, key, i)) for i, sub in enumerate(value)]
        return self.rewrite(value, (*path, key)) if key in _VALUES else value

    def definition(self, ref: Any) -> Any:
        """The local definition ``ref`` names, or None."""
        return self.definitions.get(ref) if isinstance(ref, str) else None

    def is_inlining(self, ref: str) -> bool:
        """Whether ``ref`` is being inlined further up (inlining it again would not end)."""
        return ref in self._inlining

    @contextmanager
    def inlining(self, ref: str) -> Iterator[None]:
        """Marks ``ref`` as being inlined while the rules rewrite its copy."""
        self._inlining.add(ref)
        try:
            yield
        finally:
            self._inlining.discard(ref)


def _is_slot(key: str, value: Any) -> bool:
    if key in _MAPS:
        return isinstance(value, Mapping)
    return isinstance(value, list) if key in _LISTS else key in _VALUES


def schema_types(node: Mapping[str, Any]) -> tuple[str, ...]:
    """The names in ``node``'s ``type`` (none when absent); refused when not names."""
    declared = node.get("type")
    if declared is None:
        return ()
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list) and all(isinstance(name, str) for name in declared):
        return tuple(declared)
    raise SchemaRefusedError(f"type {declared!r} is not a type name or list of names")


def schema_pointer(path: SchemaPath) -> str:
    """``path`` as a JSON pointer fragment: ``#/properties/a/items``."""
    return "/".join(("#", *map(str, path[1:] if path[:1] == ("#",) else path)))


def local_refs(node: Any) -> set[str]:
    """Every ``$ref`` string under ``node``, definitions excluded."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(v for k, v in item.items() if k not in (*_DEFINITIONS, "$ref"))
        elif isinstance(item, list):
            stack.extend(item)
    return found


def recursive_ref(walk: SchemaWalk) -> str | None:
    """A ``$ref`` on a cycle reachable from the root (a recursive schema), or None."""
    edges = {ref: local_refs(definition) for ref, definition in walk.definitions.items()}
    done: set[str] = set()

    def cycle(ref: str, path: tuple[str, ...]) -> str | None:
        if ref in path:
            return ref
        if ref in done or ref not in edges:
            return None
        for target in edges[ref]:
            found = cycle(target, (*path, ref))
            if found is not None:
                return found
        done.add(ref)
        return None

    for ref in local_refs(walk.root):
        found = cycle(ref, ())
        if found is not None:
            return found
    return None


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value, so a rewritten schema shares no list or dict with its input."""
    if isinstance(value, Mapping):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


@frozen
class SchemaCost:
    """What a schema spends of a provider's strict budget: its optional properties and its
    properties that are unions (``anyOf`` or a type array)."""

    optional: int = 0
    unions: int = 0


def schema_cost(schema: Mapping[str, Any]) -> SchemaCost:
    """Optional and union properties of ``schema``, at every depth (definitions counted once)."""
    optional = unions = 0
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            required = node.get("required")
            required_names = set(required) if isinstance(required, list) else set()
            optional += sum(1 for name in properties if name not in required_names)
            unions += sum(
                1
                for value in properties.values()
                if isinstance(value, Mapping)
                and ("anyOf" in value or isinstance(value.get("type"), list))
            )
        stack.extend(value for value in node.values() if isinstance(value, (Mapping, list)))
    return SchemaCost(optional, unions)
