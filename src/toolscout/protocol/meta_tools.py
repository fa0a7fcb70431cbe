"""The tools tool search adds: their definitions, and the arguments each accepts.

Arguments are read leniently (a single string where a list is expected, `query` for
`queries`), since models often send them so, and a mistake comes back as one sentence that
shows a correct call.
"""

from __future__ import annotations

import contextlib
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolscout.errors import describe_validation_error
from toolscout.protocol.config import ToolSearchConfig
from toolscout.protocol.definitions import ToolDefinition
from toolscout.protocol.results import purpose
from toolscout.safe_loading import parse_json

ArgumentsT = TypeVar("ArgumentsT", bound=BaseModel)

#: Most queries one `search_tools` call may carry.
MAX_QUERIES = 5
#: Most names one `load_tool` or lazy discovery call may carry.
MAX_NAMES = 20


class SearchArguments(BaseModel):
    """Arguments of `search_tools`."""

    model_config = ConfigDict(extra="forbid")

    queries: list[str] = Field(min_length=1, max_length=MAX_QUERIES)
    max_results: int | None = Field(default=None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _lenient(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "query" in data and "queries" not in data:
                data["queries"] = data.pop("query")
            if isinstance(data.get("queries"), str):
                data["queries"] = [data["queries"]]
        return data


class NamesArguments(BaseModel):
    """Arguments of `load_tool` (`names`) and of the lazy discovery tool (`tool_names`)."""

    model_config = ConfigDict(extra="forbid")

    names: list[str] = Field(min_length=1, max_length=MAX_NAMES)

    @model_validator(mode="before")
    @classmethod
    def _lenient(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for alias in ("tool_names", "name", "tool_name"):
                if alias in data and "names" not in data:
                    data["names"] = data.pop(alias)
            if isinstance(data.get("names"), str):
                data["names"] = [data["names"]]
        return data


class CallArguments(BaseModel):
    """Arguments of `call_tool`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _lenient(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("arguments"), str):
            data = dict(data)
            # Invalid JSON is left as text, which validation reports as "not an object".
            with contextlib.suppress(ValueError):
                data["arguments"] = parse_json(data["arguments"] or "{}")
        return data


def read_arguments(
    model: type[ArgumentsT], arguments: dict[str, Any], *, tool: str, example: str
) -> tuple[ArgumentsT | None, str | None]:
    """The validated arguments, or None and an error the model can act on."""
    try:
        return model.model_validate(arguments), None
    except ValidationError as error:
        problems = describe_validation_error(error)
        return None, f"Invalid arguments for {tool}: {problems}. Call it like this: {example}"


def search_tool(config: ToolSearchConfig, effect: str) -> ToolDefinition:
    """`search_tools`; `effect` says what its results are for in the step's mode
    (`toolscout.protocol.modes`)."""
    names = config.meta_tool_names
    description = (
        "Search for tools you do not have yet: more tools exist than the ones listed. Describe "
        "what you need in a few words (an action and an object, e.g. 'send email'); give "
        "several queries to find tools for several needs at once. " + effect + " If a query "
        "finds nothing, no such tool exists: do not retry the same words."
    )
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": MAX_QUERIES,
                "description": "One query per needed tool, such as ['weather forecast', "
                "'send email'].",
            },
            "max_results": {
                "type": "integer",
                "minimum": 1,
                "maximum": config.max_results,
                "description": f"Tools per query, at most {config.max_results}.",
            },
        },
        "required": ["queries"],
    }
    return ToolDefinition(names.search, description, schema, "meta", title="Search tools")


def load_tool(config: ToolSearchConfig) -> ToolDefinition:
    """`load_tool`: makes tools found by search callable."""
    names = config.meta_tool_names
    description = (
        f"Make tools found by {names.search} callable: pass their exact names, several at "
        "once if you need several. They are available from your next step."
    )
    schema = _names_schema("names", "Exact tool names, as search returned them.")
    return ToolDefinition(names.load, description, schema, "meta", title="Load tools")


def call_tool(config: ToolSearchConfig) -> ToolDefinition:
    """`call_tool`: runs a tool found by search (mode `proxy`)."""
    names = config.meta_tool_names
    description = (
        f"Run a tool found by {names.search}: pass its exact name and its arguments as an "
        "object that matches its parameters."
    )
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's exact name."},
            "arguments": {"type": "object", "description": "The tool's arguments."},
        },
        "required": ["name", "arguments"],
    }
    return ToolDefinition(names.call, description, schema, "meta", title="Call a tool")


def lazy_tool(config: ToolSearchConfig, listed: list[ToolDefinition]) -> ToolDefinition:
    """The lazy discovery tool; its description lists the deferred tools it can reveal."""
    lines = [
        "These tools exist but are not loaded yet. Call this tool with the names of the ones "
        "you need to get their definitions; they then become callable like any other tool.",
    ]
    lines += [f"- {tool.name}: {purpose(tool.description)}".rstrip(": ") for tool in listed]
    schema = _names_schema("tool_names", "Exact names from the list above.")
    return ToolDefinition(
        config.meta_tool_names.lazy, "\n".join(lines), schema, "meta", title="Discover tools"
    )


def _names_schema(key: str, description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            key: {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": MAX_NAMES,
                "description": description,
            }
        },
        "required": [key],
    }
