"""`schema`: JSON Schema (2020-12) for a type, compact enough to spend on an LLM's context.

No titles, nested dataclasses inlined, `$defs` only where recursion needs them. Each type's
schema is built once; every call returns that same dict, which callers must not mutate.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime
import re
import uuid
from decimal import Decimal
from enum import Enum
from typing import Any

from affordance.serde import _pydantic
from affordance.serde._constraints import Constraints
from affordance.serde._dump import dump
from affordance.serde._shapes import (
    AnyShape,
    ArrayShape,
    ConstrainedShape,
    DataclassShape,
    EnumShape,
    LiteralShape,
    LocalKey,
    MappingShape,
    ModelShape,
    NoneShape,
    ScalarShape,
    Shape,
    TupleShape,
    UnionShape,
    cache_key,
    dataclass_fields,
    shape_of,
    type_name,
)
from affordance.serde._walk import rebuild_schema
from affordance.serde.json_schema_type import JSONSchemaType

__all__ = ["schema"]

_schemas: dict[Any, dict[str, Any]] = {}
"""Built schemas by `cache_key(type)`; filled lazily, never cleared."""

_SCALAR_SCHEMAS: dict[type, dict[str, Any]] = {
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    str: {"type": "string"},
    Decimal: {"anyOf": [{"type": "number"}, {"type": "string"}]},
    datetime.datetime: {"type": "string", "format": "date-time"},
    datetime.date: {"type": "string", "format": "date"},
    datetime.time: {"type": "string", "format": "time"},
    uuid.UUID: {"type": "string", "format": "uuid"},
    bytes: {"type": "string", "contentEncoding": "base64"},
}
_JSON_TYPE_NAMES: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    type(None): "null",
}


def schema(tp: object) -> dict[str, Any]:
    """The JSON Schema of `tp`, cached: treat it as read-only, deep-copy it to transform it."""
    if isinstance(tp, JSONSchemaType):
        return tp.schema
    key = cache_key(tp)
    if isinstance(key, LocalKey):
        return _build(tp)
    built = _schemas.get(key)
    if built is None:
        built = _schemas.setdefault(key, _build(tp))
    return built


def _build(tp: object) -> dict[str, Any]:
    shape = shape_of(tp)
    renderer = _Renderer(root=cache_key(tp) if isinstance(shape, DataclassShape) else None)
    result = renderer.render(shape)
    if renderer.defs:
        result["$defs"] = renderer.defs
    return result


class _Renderer:
    """Renders one type's shape tree; collects `$defs` for recursive and pydantic types."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.stack: list[Any] = []  # dataclasses being rendered, to spot recursion
        self.def_names: dict[Any, str] = {}  # recursive dataclass → its `$defs` name
        self.defs: dict[str, Any] = {}

    def render(self, shape: Shape) -> dict[str, Any]:
        if isinstance(shape, AnyShape):
            return {}
        if isinstance(shape, NoneShape):
            return {"type": "null"}
        if isinstance(shape, ScalarShape):
            return copy.deepcopy(_SCALAR_SCHEMAS[shape.cls])
        if isinstance(shape, LiteralShape):
            return _enum_schema([_json_value(value) for value in shape.values])
        if isinstance(shape, EnumShape):
            return _enum_schema([_json_value(member) for member in shape.cls])
        if isinstance(shape, UnionShape):
            return self._union(shape)
        if isinstance(shape, ArrayShape):
            return self._array(shape)
        if isinstance(shape, TupleShape):
            return self._tuple(shape)
        if isinstance(shape, MappingShape):
            return self._mapping(shape)
        if isinstance(shape, DataclassShape):
            return self._dataclass(shape)
        if isinstance(shape, ModelShape):
            return self._model(shape)
        return self._constrained(shape)

    def _union(self, shape: UnionShape) -> dict[str, Any]:
        branches: list[dict[str, Any]] = []
        for member in shape.members:
            rendered = self.render(member)
            if list(rendered) == ["anyOf"]:
                branches.extend(rendered["anyOf"])  # flatten nested unions
            else:
                branches.append(rendered)
        return {"anyOf": branches}

    def _array(self, shape: ArrayShape) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "array"}
        items = self.render(shape.item)
        if items:
            result["items"] = items
        if shape.container is set or shape.container is frozenset:
            result["uniqueItems"] = True
        return result

    def _tuple(self, shape: TupleShape) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "array"}
        if shape.items:
            result["prefixItems"] = [self.render(item) for item in shape.items]
        result["minItems"] = result["maxItems"] = len(shape.items)
        return result

    def _mapping(self, shape: MappingShape) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "object"}
        keys = self.render(shape.key)
        if keys not in ({}, {"type": "string"}):
            result["propertyNames"] = keys
        values = self.render(shape.value)
        if values:
            result["additionalProperties"] = values
        return result

    def _dataclass(self, shape: DataclassShape) -> dict[str, Any]:
        tp = cache_key(shape.tp)
        if tp in self.def_names:
            return {"$ref": f"#/$defs/{self.def_names[tp]}"}
        if tp in self.stack:  # recursion: refer to a definition added when `tp` is done
            self.def_names[tp] = self._fresh_name(type_name(shape.tp))
            return {"$ref": f"#/$defs/{self.def_names[tp]}"}
        self.stack.append(tp)
        result = self._object(shape)
        self.stack.pop()
        if tp not in self.def_names:
            return result
        name = self.def_names[tp]
        self.defs[name] = result
        if tp == self.root and not self.stack:
            return copy.deepcopy(result)  # providers want an object at the top, not a $ref
        return {"$ref": f"#/$defs/{name}"}

    def _object(self, shape: DataclassShape) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for spec in dataclass_fields(shape):
            rendered = self.render(spec.shape)
            if spec.default is not dataclasses.MISSING:
                # A default with no JSON form is simply not advertised.
                with contextlib.suppress(TypeError):
                    rendered["default"] = dump(spec.default)
            properties[spec.name] = rendered
            if spec.required:
                required.append(spec.name)
        result: dict[str, Any] = {"type": "object"}
        description = user_docstring(shape.cls)
        if description:
            result["description"] = description
        result["properties"] = properties
        if required:
            result["required"] = required
        result["additionalProperties"] = False
        return result

    def _model(self, shape: ModelShape) -> dict[str, Any]:
        result = _pydantic.model_schema(shape.cls)
        defs: dict[str, Any] = result.pop("$defs", {})
        taken = set(self.defs) | set(self.def_names.values())
        renames = {
            name: self._fresh_name(name)
            for name, definition in defs.items()
            if name in taken and self.defs.get(name) != definition
        }
        if renames:
            result = _renamed_refs(result, renames)
            defs = {renames.get(n, n): _renamed_refs(d, renames) for n, d in defs.items()}
        self.defs.update(defs)
        return result

    def _constrained(self, shape: ConstrainedShape) -> dict[str, Any]:
        result = _with_constraints(self.render(shape.inner), shape.constraints)
        if shape.constraints.description is not None:
            result["description"] = shape.constraints.description
        return result

    def _fresh_name(self, name: str) -> str:
        base = re.sub(r"\W+", "_", name).strip("_") or "Schema"
        taken = set(self.defs) | set(self.def_names.values())
        candidate, number = base, 2
        while candidate in taken:
            candidate, number = f"{base}{number}", number + 1
        return candidate


def _renamed_refs(schema: dict[str, Any], renames: dict[str, str]) -> Any:
    """`schema` with its `$ref`s to renamed `$defs` entries updated."""

    def keyword(name: str, value: Any) -> tuple[str, Any]:
        if name == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
            target = value.removeprefix("#/$defs/")
            return name, f"#/$defs/{renames.get(target, target)}"
        return name, value

    return rebuild_schema(schema, keyword)


def _with_constraints(schema: dict[str, Any], constraints: Constraints) -> dict[str, Any]:
    """`schema` with the keywords for `constraints`, pushed into the non-null `anyOf` branches."""
    if "anyOf" in schema:
        branches = [
            branch if branch.get("type") == "null" else _with_constraints(branch, constraints)
            for branch in schema["anyOf"]
        ]
        return {**schema, "anyOf": branches}
    json_type = schema.get("type", "any" if not schema else None)
    return {**schema, **_constraint_keywords(constraints, json_type)}


def _constraint_keywords(c: Constraints, json_type: object) -> dict[str, Any]:
    """The keywords expressing `c` for a schema of `json_type` ("any" for `{}`)."""
    keywords: dict[str, Any] = {}
    untyped = json_type == "any"
    if json_type in ("integer", "number") or untyped:
        for key, keyword in (
            ("ge", "minimum"),
            ("gt", "exclusiveMinimum"),
            ("le", "maximum"),
            ("lt", "exclusiveMaximum"),
        ):
            bound = getattr(c, key)
            if bound is not None:
                keywords[keyword] = _json_number(bound)
    length_words = {"string": "Length", "array": "Items", "object": "Properties"}
    for kind, word in length_words.items():
        if json_type == kind or untyped:
            if c.min_length is not None:
                keywords[f"min{word}"] = c.min_length
            if c.max_length is not None:
                keywords[f"max{word}"] = c.max_length
    if c.pattern is not None and (json_type == "string" or untyped):
        keywords["pattern"] = c.pattern
    return keywords


def _json_number(bound: int | float | Decimal) -> int | float:
    if isinstance(bound, Decimal):
        return int(bound) if bound == bound.to_integral_value() else float(bound)
    return bound


def _json_value(value: Any) -> Any:
    return dump(value.value if isinstance(value, Enum) else value)


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    """`{"enum": values}`, with a `type` when every value has the same JSON type."""
    kinds = {_JSON_TYPE_NAMES.get(type(value)) for value in values}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    result: dict[str, Any] = {}
    if len(kinds) == 1 and None not in kinds:
        result["type"] = kinds.pop()
    result["enum"] = values
    return result


def user_docstring(cls: type) -> str | None:
    """The class docstring, cleaned, unless it is the signature `@dataclass` makes up."""
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    name = cls.__name__
    if dataclasses.is_dataclass(cls) and (
        doc == name or (doc.startswith(f"{name}(") and doc.endswith(")"))
    ):
        return None
    lines = doc.expandtabs().splitlines()
    rest = [line for line in lines[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    cleaned = [lines[0].strip(), *(line[indent:].rstrip() for line in lines[1:])]
    return "\n".join(cleaned).strip()
