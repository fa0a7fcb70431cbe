"""What flows through one step: the tools to send, a call the model made, and its result.

All three are provider-neutral; `toolscout.providers` turns them into and out of OpenAI and
Anthropic wire shapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic_core

from toolscout.catalog.tool import Tool
from toolscout.safe_loading import parse_json

DefinitionKind = Literal["pinned", "passthrough", "meta", "discovered", "preloaded", "deferred"]
"""Why a tool is in the list: always sent (`pinned`, including tools that are not deferred),
given by the caller outside the catalog (`passthrough`), added by tool search (`meta`),
found in this conversation (`discovered`), sent for this turn because it best serves the
latest user message (`preloaded`, see `toolscout.protocol.preload`), or hidden until found
(`deferred`, only in native deferred loading, where the provider keeps it out of the
model's context)."""


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One tool to send to the model, in no provider's format yet."""

    name: str
    """The name the model calls it by: the catalog id, made a valid tool name if needed."""
    description: str
    input_schema: dict[str, Any]
    kind: DefinitionKind
    tool_id: str | None = None
    """The catalog id, for catalog tools."""
    raw: dict[str, Any] | None = field(default=None, compare=False)
    """A pass-through tool as the caller gave it; providers send it untouched."""
    tool: Tool | None = field(default=None, compare=False, repr=False)
    """The catalog tool, whose export carries provider keys (`strict`, `cache_control`...)."""
    title: str | None = None
    """A name for people (MCP's `title`, which some clients require): set on meta-tools."""

    @property
    def defer_loading(self) -> bool:
        """Sent with the provider's `defer_loading` flag (native deferred loading)."""
        return self.kind == "deferred"

    def as_function(self) -> dict[str, Any]:
        """`{"name", "description", "parameters"}`: the shape search results show."""
        return {"name": self.name, "description": self.description, "parameters": self.input_schema}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call parsed from a model's response."""

    name: str
    arguments: Any = field(default_factory=dict)
    """The arguments object, or its JSON text as some providers send it."""
    id: str | None = None
    """The provider's call id, echoed in the result."""
    native_search: bool = False
    """A provider's own tool-search call (OpenAI Responses `tool_search_call`), answered with
    tool definitions rather than text."""

    def parsed_arguments(self) -> tuple[dict[str, Any] | None, str | None]:
        """The arguments as a dict, or None and why they are not one."""
        arguments = self.arguments
        if arguments is None or arguments == "":
            return {}, None
        if isinstance(arguments, str):
            try:
                arguments = parse_json(arguments)
            except ValueError as error:
                return None, f"the arguments are not valid JSON ({error})"
        if not isinstance(arguments, dict):
            return None, f"the arguments must be a JSON object, got {type(arguments).__name__}"
        return arguments, None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a call returned, ready to be appended to the conversation."""

    call_id: str | None
    name: str
    content: str
    """The text the model reads."""
    is_error: bool = False
    value: Any = field(default=None, compare=False)
    """What the handler returned, before it was written as text."""
    loaded_tools: tuple[ToolDefinition, ...] = ()
    """Tools this result makes available through the provider's native deferred loading:
    Anthropic `tool_reference` blocks, OpenAI `tool_search_output` definitions."""
    native_search: bool = False
    """Answers a provider's own tool-search call."""


def result_text(value: Any) -> str:
    """What a handler returned, as the text the model reads: strings as they are, anything
    else as JSON (pydantic models, dataclasses and dates included), `str()` as a last resort."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(pydantic_core.to_jsonable_python(value), ensure_ascii=False)
    except (TypeError, ValueError, pydantic_core.PydanticSerializationError):
        return str(value)
