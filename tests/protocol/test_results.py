"""The compact result format: types, required marks, enums, nesting, references."""

from __future__ import annotations

from toolscout.protocol import ToolDefinition
from toolscout.protocol.results import compact_definition, parse_available, purpose


def test_compact_definition_of_a_nested_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "unit": {"type": "string", "enum": ["c", "f"], "description": "Unit. Celsius or not."},
            "where": {"$ref": "#/$defs/Place"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["where"],
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
    }
    lines = compact_definition(ToolDefinition("t", "Does it. More words.", schema, "meta"))
    assert lines == [
        "t: Does it.",
        '  unit: string, one of "c" | "f". Unit.',
        "  where: object, required",
        "    city: string, required",
        "  tags: array of string",
        "  when: string or null",
    ]


def test_compact_definition_of_a_schema_that_refers_to_itself() -> None:
    # A tree: each node is a list of nodes or a number. Described to a bounded depth.
    node = {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/node"}}, {"type": "number"}]}
    schema = {"type": "object", "properties": {"tree": {"$ref": "#/$defs/node"}}}
    schema["$defs"] = {"node": node}
    lines = compact_definition(ToolDefinition("t", "Sums a tree.", schema, "meta"))
    assert lines[0] == "t: Sums a tree."
    assert lines[1].startswith("  tree: array of array of")
    assert lines[1].endswith("or number")


def test_purpose_is_one_short_line() -> None:
    assert purpose("First line\nstill first. Second.") == "First line still first."
    assert len(purpose("x" * 500)) == 160


def test_parse_available_reads_only_its_own_marker() -> None:
    assert parse_available("text\n[tools available: a, b-c]\n") == ["a", "b-c"]
    assert parse_available("[tools available: a; rm -rf]") == []
    assert parse_available('{"tools_available": ["a", 3]}') == ["a"]
    assert parse_available("[1, 2]") == []
