"""How meta-tool results read: JSON, or compact text that costs fewer tokens.

Every result that makes tools available says so in a form the conversation keeps: the JSON key
`tools_available`, or a last line `[tools available: a, b]`. `ContextStore` reads these back,
so state can be derived from the messages alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout.protocol.config import ResultFormat
from toolscout.protocol.definitions import ToolDefinition
from toolscout.safe_loading import parse_json

AVAILABLE_KEY = "tools_available"
_AVAILABLE_LINE = re.compile(r"^\[tools available: ([A-Za-z0-9_\-, ]*)\]$", re.MULTILINE)

#: Longest one-line purpose shown for a tool.
PURPOSE_CHARS = 160
#: Deepest nesting of parameters the compact format spells out.
_COMPACT_DEPTH = 3
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True, slots=True)
class Found:
    """One tool a search found, as a result shows it."""

    definition: ToolDefinition
    score: float
    """The normalized score, 0–1."""
    available: bool = False
    """Already callable in this conversation (found again because slots were left)."""
    needed_by: str | None = None
    """The name of the result above that takes a value this tool gives (its parameters'
    descriptions say so): call this one first. None for a tool found for the query itself."""


@dataclass(frozen=True, slots=True)
class QueryResult:
    """What one query of a `search_tools` call found."""

    query: str
    found: Sequence[Found]
    notice: str | None = None


def purpose(description: str) -> str:
    """The first sentence of a description, on one line, at most `PURPOSE_CHARS` long."""
    text = " ".join(description.split())
    first = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(first) > PURPOSE_CHARS:
        first = first[: PURPOSE_CHARS - 1].rstrip() + "…"
    return first


def search_summary(
    results: Sequence[QueryResult],
    format: ResultFormat,
    *,
    next_step: str,
    available: Sequence[str] = (),
) -> str:
    """A search result that names tools without their schemas (modes `load`, `auto_load`)."""
    if format == "json":
        payload: dict[str, Any] = {
            "results": [
                _json_query(result, [_json_summary(found) for found in result.found])
                for result in results
            ],
        }
        return _json_result(payload, next_step, available)
    lines: list[str] = []
    for result in results:
        lines.append(_query_heading(result))
        lines += [
            f"- {found.definition.name} ({found.score:.2f}"
            f"{', already available' if found.available else ''}"
            f"{f', gives {found.needed_by} a value it needs' if found.needed_by else ''}): "
            f"{purpose(found.definition.description)}"
            for found in result.found
        ]
    return _text_result(lines, next_step, available)


def search_definitions(
    results: Sequence[QueryResult],
    format: ResultFormat,
    *,
    next_step: str,
    available: Sequence[str] = (),
) -> str:
    """A search result with each tool's full definition (mode `proxy`)."""
    if format == "json":
        payload: dict[str, Any] = {
            "results": [
                _json_query(result, [found.definition.as_function() for found in result.found])
                for result in results
            ],
        }
        return _json_result(payload, next_step, available)
    lines: list[str] = []
    for result in results:
        lines.append(_query_heading(result))
        for found in result.found:
            lines += compact_definition(found.definition)
    return _text_result(lines, next_step, available)


def definitions(
    tools: Sequence[ToolDefinition],
    format: ResultFormat,
    *,
    problems: Sequence[str] = (),
    next_step: str,
    available: Sequence[str] = (),
) -> str:
    """Full definitions asked for by name (the lazy discovery tool)."""
    if format == "json":
        payload: dict[str, Any] = {"tools": [tool.as_function() for tool in tools]}
        if problems:
            payload["problems"] = list(problems)
        return _json_result(payload, next_step, available)
    lines: list[str] = []
    for tool in tools:
        lines += compact_definition(tool)
    lines += problems
    return _text_result(lines, next_step, available)


def loaded(
    names: Sequence[str],
    format: ResultFormat,
    *,
    problems: Sequence[str] = (),
    next_step: str,
) -> str:
    """The answer of `load_tool`: which tools are now available, and what went wrong."""
    if format == "json":
        payload: dict[str, Any] = {}
        if problems:
            payload["problems"] = list(problems)
        return _json_result(payload, next_step, names)
    return _text_result(list(problems), next_step, names)


def compact_definition(tool: ToolDefinition) -> list[str]:
    """A tool as a few lines: `name: purpose`, then one line per parameter with its type,
    whether it is required, its allowed values and the first sentence of its description."""
    lines = [f"{tool.name}: {purpose(tool.description)}".rstrip(": ")]
    lines += _compact_properties(tool.input_schema, tool.input_schema, depth=1)
    return lines


def parse_available(content: str) -> list[str]:
    """The tool names a meta-tool result made available, in order; [] for any other text."""
    text = content.strip()
    if text.startswith("{"):
        try:
            payload = parse_json(text)
        except ValueError:
            return []
        names = payload.get(AVAILABLE_KEY) if isinstance(payload, dict) else None
        if isinstance(names, list):
            return [name for name in names if isinstance(name, str)]
        return []
    found: list[str] = []
    for match in _AVAILABLE_LINE.finditer(text):
        found += [name.strip() for name in match[1].split(",") if name.strip()]
    return found


def _query_heading(result: QueryResult) -> str:
    count = len(result.found)
    heading = f"Query {result.query!r}: {count} tool{'' if count == 1 else 's'}"
    return f"{heading}. {result.notice}" if result.notice else heading


def _json_query(result: QueryResult, tools: list[dict[str, Any]]) -> dict[str, Any]:
    entry: dict[str, Any] = {"query": result.query, "tools": tools}
    if result.notice:
        entry["notice"] = result.notice
    return entry


def _json_summary(found: Found) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": found.definition.name,
        "description": purpose(found.definition.description),
        "score": round(found.score, 2),
    }
    if found.available:
        entry["already_available"] = True
    if found.needed_by:
        entry["needed_by"] = found.needed_by
    return entry


def _json_result(payload: dict[str, Any], next_step: str, available: Sequence[str]) -> str:
    if next_step:
        payload["next"] = next_step
    if available:
        payload[AVAILABLE_KEY] = list(available)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _text_result(lines: list[str], next_step: str, available: Sequence[str]) -> str:
    if next_step:
        lines.append(next_step)
    if available:
        lines.append(f"[tools available: {', '.join(available)}]")
    return "\n".join(lines)


def _compact_properties(
    schema: Mapping[str, Any], root: Mapping[str, Any], *, depth: int
) -> list[str]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or depth > _COMPACT_DEPTH:
        return []
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    indent = "  " * depth
    lines: list[str] = []
    for name, raw_property in properties.items():
        prop = _resolve(raw_property, root)
        parts = [f"{indent}{name}: {_type_of(prop, root)}"]
        if name in required_names:
            parts.append("required")
        allowed = _allowed_values(prop)
        if allowed:
            parts.append(f"one of {allowed}")
        if "default" in prop:
            parts.append(f"default {json.dumps(prop['default'], ensure_ascii=False)}")
        line = ", ".join(parts)
        description = prop.get("description")
        if isinstance(description, str) and description.strip():
            line += f". {purpose(description)}"
        lines.append(line)
        nested = prop
        if prop.get("type") == "array" and isinstance(prop.get("items"), Mapping):
            nested = _resolve(prop["items"], root)
        lines += _compact_properties(nested, root, depth=depth + 1)
    return lines


def _resolve(schema: object, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """A local `$ref` (`#/$defs/Address`) replaced by what it points to, one level deep."""
    if not isinstance(schema, Mapping):
        return {}
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/"):
        target: Any = root
        for part in reference[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        if isinstance(target, Mapping):
            return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _type_of(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int = 0) -> str:
    if depth > _COMPACT_DEPTH:  # a schema that refers to itself (a tree) has no end
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(part) for part in kind)
    if kind == "array":
        items = _resolve(schema.get("items"), root)
        return f"array of {_type_of(items, root, depth + 1)}" if items else "array"
    if isinstance(kind, str):
        return kind
    for combiner in ("anyOf", "oneOf"):
        options = schema.get(combiner)
        if isinstance(options, list) and options:
            kinds = (_type_of(_resolve(option, root), root, depth + 1) for option in options[:8])
            return " or ".join(dict.fromkeys(kinds))
    if "enum" in schema or "const" in schema:
        return "value"
    return "any"


def _allowed_values(schema: Mapping[str, Any]) -> str:
    values = schema.get("enum")
    if not isinstance(values, list) and "const" in schema:
        values = [schema["const"]]
    if not isinstance(values, list) or not values:
        return ""
    return " | ".join(json.dumps(value, ensure_ascii=False) for value in values)
