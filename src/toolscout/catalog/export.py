"""Write tools out as OpenAI, Anthropic or MCP tool definitions.

Each export carries name, description and schema, plus the metadata keys that format defines
(kept there by `toolscout.catalog.ingest`), so reading an export back gives the same tool.
Keys another format defines are left out: an API rejects keys it does not know.

The exported name is `tool.name`, the name the tool was defined with, so a model's call maps
straight back to the function or MCP server that serves it. In a catalog with several
namespaces two tools can share a name; pass `name_by="id"` to export the unique
`namespace__name` id instead (its separator is allowed in OpenAI and Anthropic tool names).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any, Literal

from toolscout.catalog.tool import Tool

ExportFormat = Literal["openai_chat", "openai_responses", "anthropic", "mcp"]
"""A tool-definition format `export_tools` can write."""

NameBy = Literal["name", "id"]
"""Which of a tool's names to export: its own `name`, or its catalog-unique `id`."""

_OPENAI_CHAT_KEYS = ("strict",)
_OPENAI_RESPONSES_KEYS = ("defer_loading",)
_ANTHROPIC_KEYS = (
    "cache_control",
    "defer_loading",
    "input_examples",
    "strict",
    "eager_input_streaming",
    "allowed_callers",
)
_MCP_KEYS = ("title", "annotations", "outputSchema", "_meta", "icons", "execution")


def to_openai_chat(tool: Tool, *, name_by: NameBy = "name") -> dict[str, Any]:
    """The tool as an OpenAI Chat Completions tool: `{"type": "function", "function": {...}}`."""
    function = _named(tool, name_by)
    function["parameters"] = copy.deepcopy(tool.input_schema)
    function.update(_carried(tool, _OPENAI_CHAT_KEYS))
    return {"type": "function", "function": function}


def to_openai_responses(tool: Tool, *, name_by: NameBy = "name") -> dict[str, Any]:
    """The tool as an OpenAI Responses function tool: `{"type": "function", "name", ...}`.

    `strict` is always written: the Responses API treats a missing `strict` as true, which would
    reject schemas that were never written for strict mode.
    """
    return {
        "type": "function",
        **_named(tool, name_by),
        "parameters": copy.deepcopy(tool.input_schema),
        "strict": tool.metadata.get("strict", False),
        **_carried(tool, _OPENAI_RESPONSES_KEYS),
    }


def to_anthropic(tool: Tool, *, name_by: NameBy = "name") -> dict[str, Any]:
    """The tool as an Anthropic Messages API tool: `{"name", "description", "input_schema"}`."""
    return {
        **_named(tool, name_by),
        "input_schema": copy.deepcopy(tool.input_schema),
        **_carried(tool, _ANTHROPIC_KEYS),
    }


def to_mcp(tool: Tool, *, name_by: NameBy = "name") -> dict[str, Any]:
    """The tool as an MCP `Tool` in its JSON form: `{"name", "description", "inputSchema"}`."""
    return {
        **_named(tool, name_by),
        "inputSchema": copy.deepcopy(tool.input_schema),
        **_carried(tool, _MCP_KEYS),
    }


_EXPORTERS: dict[ExportFormat, Callable[..., dict[str, Any]]] = {
    "openai_chat": to_openai_chat,
    "openai_responses": to_openai_responses,
    "anthropic": to_anthropic,
    "mcp": to_mcp,
}


def export_tools(
    tools: Iterable[Tool], format: ExportFormat, *, name_by: NameBy = "name"
) -> list[dict[str, Any]]:
    """Export each tool, in order, as a definition in `format`."""
    if format not in _EXPORTERS:
        raise ValueError(f"unknown export format {format!r}; use one of {', '.join(_EXPORTERS)}")
    exporter = _EXPORTERS[format]
    return [exporter(tool, name_by=name_by) for tool in tools]


def _named(tool: Tool, name_by: NameBy) -> dict[str, Any]:
    named: dict[str, Any] = {"name": tool.id if name_by == "id" else tool.name}
    if tool.description:
        named["description"] = tool.description
    return named


def _carried(tool: Tool, keys: tuple[str, ...]) -> dict[str, Any]:
    # Copies, so a caller editing an export (a provider adapter adding a key) cannot change
    # the frozen tool it came from.
    return {key: copy.deepcopy(tool.metadata[key]) for key in keys if key in tool.metadata}
