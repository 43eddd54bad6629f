"""The shared JSON-Schema walk: traversal, paths, definitions, cycles; rules decide the rest."""

from __future__ import annotations

from typing import Any

import pytest

from affordance.adapters import (
    SchemaPath,
    SchemaRefusedError,
    SchemaWalk,
    copy_json,
    local_refs,
    property_path,
    recursive_ref,
    schema_cost,
    schema_pointer,
    schema_types,
)


class _Recording:
    """Rules that keep every keyword, walk every subschema and note each path they see."""

    def __init__(self) -> None:
        self.paths: list[SchemaPath] = []

    def rewrite(self, walk: SchemaWalk, node: Any, path: SchemaPath) -> Any:
        self.paths.append(path)
        if not isinstance(node, dict):
            return node
        return {**node, **walk.subschemas(node, path)}


_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "a": {"type": "array", "items": {"$ref": "#/$defs/A"}},
        "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "c": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["a"],
    "$defs": {"A": {"type": "string", "enum": ["x"]}},
}


def test_the_walk_hands_every_subschema_to_the_rules_with_its_path() -> None:
    rules = _Recording()
    out = SchemaWalk(_SCHEMA, rules).run()
    assert out == _SCHEMA
    assert rules.paths == [
        (),
        ("properties", "a"),
        ("properties", "a", "items"),
        ("properties", "b"),
        ("properties", "b", "anyOf", 0),
        ("properties", "b", "anyOf", 1),
        ("properties", "c"),
        ("properties", "c", "additionalProperties"),
        ("$defs", "A"),
    ]


def test_subschemas_keeps_key_order_and_leaves_out_what_is_not_a_slot() -> None:
    rules = _Recording()
    walk = SchemaWalk({}, rules)
    node = {"items": True, "properties": [1], "anyOf": "x", "title": "t", "prefixItems": [{}]}
    walked = walk.subschemas(node, ())
    assert list(walked) == ["items", "prefixItems"]
    assert walk.subschemas(node, (), ("items",)) == {"items": True}


def test_definitions_are_found_by_the_ref_that_names_them() -> None:
    walk = SchemaWalk({"$defs": {"A": {"type": "string"}}, "definitions": {"B": {}}}, _Recording())
    assert walk.definition("#/$defs/A") == {"type": "string"}
    assert walk.definition("#/definitions/B") == {}
    assert walk.definition("#/$defs/B") is None
    assert walk.definition(7) is None


def test_inlining_marks_a_ref_only_while_its_copy_is_rewritten() -> None:
    walk = SchemaWalk({}, _Recording())
    with walk.inlining("#/$defs/A"):
        assert walk.is_inlining("#/$defs/A")
    assert not walk.is_inlining("#/$defs/A")


def test_recursive_ref_finds_a_cycle_reachable_from_the_root_only() -> None:
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}
    cyclic = {**node, "$defs": {"N": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "null"}]}}}
    assert recursive_ref(SchemaWalk(cyclic, _Recording())) == "#/$defs/N"
    unreached = {"type": "string", "$defs": {"N": {"$ref": "#/$defs/N"}}}
    assert recursive_ref(SchemaWalk(unreached, _Recording())) is None
    assert local_refs(cyclic) == {"#/$defs/N"}


def test_schema_types_reads_a_name_or_a_list_and_refuses_anything_else() -> None:
    assert schema_types({}) == ()
    assert schema_types({"type": "string"}) == ("string",)
    assert schema_types({"type": ["string", "null"]}) == ("string", "null")
    with pytest.raises(SchemaRefusedError, match="is not a type name") as refused:
        schema_types({"type": 7})
    assert refused.value.reason == "type 7 is not a type name or list of names"


def test_a_path_reads_as_a_json_pointer_and_copies_share_nothing() -> None:
    assert schema_pointer(()) == "#"
    assert schema_pointer(("properties", "a", "anyOf", 0)) == "#/properties/a/anyOf/0"
    assert schema_pointer(("#", "properties", "a")) == "#/properties/a"  # inlined at the root
    original = {"enum": [["x"]], "properties": {"a": {}}}
    copied = copy_json(original)
    assert copied == original
    assert copied["enum"][0] is not original["enum"][0]


def test_a_path_reads_as_a_property_for_a_user() -> None:
    assert property_path(()) == "the schema"
    assert property_path(("properties", "a", "items", "properties", "b")) == "property 'a[]/b'"
    assert property_path(("$defs", "N", "properties", "x")) == "property '$defs/N/x'"
    assert property_path(("#", "anyOf", 1)) == "property '#/anyOf/1'"


def test_the_cost_of_a_schema_counts_optional_and_union_properties_at_every_depth() -> None:
    cost = schema_cost(
        {
            "type": "object",
            "properties": {"a": {"type": ["string", "null"]}, "b": {"anyOf": []}},
            "required": ["a"],
            "$defs": {"N": {"properties": {"x": {}}}},
        }
    )
    assert (cost.optional, cost.unions) == (2, 2)
