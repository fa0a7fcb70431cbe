"""The searchable text of a tool, split into the fields engines index separately."""

from __future__ import annotations

from typing import Any

from toolscout.catalog.tool import Tool
from toolscout.search.base import Field

#: Deepest schema nesting walked; deeper parts are not searchable (they are still sent).
MAX_SCHEMA_DEPTH = 32

_SUBSCHEMA_KEYS = frozenset(
    [
        "anyOf",
        "oneOf",
        "allOf",
        "prefixItems",
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
    ]
)


def tool_fields(tool: Tool) -> dict[Field, list[str]]:
    """The texts of each field of `tool`.

    Parameters are collected from the whole input schema: nested objects, array items,
    `anyOf` / `oneOf` / `allOf` branches and local `$ref`s (`#/$defs/...`), each definition
    visited once, so recursive schemas terminate.
    """
    collected = _SchemaText()
    collected.walk(tool.input_schema, tool.input_schema, depth=0, top_level=True)
    return {
        "name": [tool.name],
        "namespace": [tool.namespace] if tool.namespace else [],
        "description": [tool.description],
        "parameter_names": collected.names,
        "parameter_descriptions": collected.descriptions,
        "enum_values": collected.enum_values,
        "tags": list(tool.tags),
    }


class _SchemaText:
    def __init__(self) -> None:
        self.names: list[str] = []
        self.descriptions: list[str] = []
        self.enum_values: list[str] = []
        self._visited_refs: set[str] = set()

    def walk(self, schema: Any, root: dict[str, Any], *, depth: int, top_level: bool) -> None:
        if not isinstance(schema, dict) or depth > MAX_SCHEMA_DEPTH:
            return
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref not in self._visited_refs:
            self._visited_refs.add(ref)
            self.walk(_resolve_local_ref(ref, root), root, depth=depth + 1, top_level=False)
        if not top_level:
            self._add_text(self.descriptions, schema.get("description"))
            self._add_text(self.descriptions, schema.get("title"))
        for value in _as_list(schema.get("enum")) + _as_list(schema.get("const")):
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                self.enum_values.append(str(value))
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name, subschema in properties.items():
                self.names.append(str(name))
                if isinstance(subschema, dict):
                    self.walk(subschema, root, depth=depth + 1, top_level=False)
        # Most parameter schemas have none of these keys: look at the keys the node has, in
        # its order (a set's would change from one process to the next).
        for key in filter(_SUBSCHEMA_KEYS.__contains__, schema):
            for subschema in _as_list(schema[key]):
                self.walk(subschema, root, depth=depth + 1, top_level=False)

    @staticmethod
    def _add_text(bucket: list[str], value: object) -> None:
        if isinstance(value, str) and value:
            bucket.append(value)


def _as_list(value: object) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _resolve_local_ref(ref: str, root: dict[str, Any]) -> Any:
    if not ref.startswith("#/"):
        return None  # remote refs are never fetched
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
