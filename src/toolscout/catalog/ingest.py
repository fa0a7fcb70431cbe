"""Turn tool definitions in any supported shape into `Tool` objects.

Each format's own keys beyond name, description and schema (OpenAI `strict`, Anthropic
`cache_control`, MCP `annotations`...) are kept in `Tool.metadata` under their wire names, so
`toolscout.catalog.export` can write them back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from toolscout.catalog.callables import tool_from_callable
from toolscout.catalog.tool import Tool, make_tool_id
from toolscout.catalog.validation import build_tool
from toolscout.errors import CatalogFormatError

KNOWN_SHAPES = (
    'OpenAI Chat {"type": "function", "function": {...}}',
    'OpenAI Responses {"type": "function", "name", "parameters"}',
    'Anthropic {"name", "input_schema"}',
    'MCP {"name", "inputSchema"}',
    'a function definition {"name", "parameters"}',
    "a toolscout Tool or its model_dump()",
    "an mcp.types.Tool",
    "a Python function",
    'a list of these or {"tools": [...]}',
)
"""What `to_tools` accepts, as listed in its error messages."""

#: Keys only a toolscout `Tool` dump has; a dict with any of them is read as one.
_TOOLSCOUT_KEYS = frozenset({"namespace", "tags", "pinned", "deferred", "id", "metadata"})


def to_tools(obj: Any, *, namespace: str | None = None) -> list[Tool]:
    """Read one tool definition or many, in any shape in `KNOWN_SHAPES`, as `Tool` objects.

    Args:
        obj: A `Tool`, a function, a dict in a known shape, an object such as an
            `mcp.types.Tool`, or a list (or any iterable) mixing them.
        namespace: Given to every tool that does not carry a namespace of its own.

    Raises:
        CatalogFormatError: something is not in any known shape; says what was found and where.
        ToolDefinitionError: a definition has the right shape but wrong values (a name that is
            not a string, a schema that is not an object...).
    """
    return list(_read(obj, namespace, path=""))


def _read(obj: Any, namespace: str | None, path: str) -> Iterator[Tool]:
    """Yield the tools in `obj`, found at `path` (`""`, `[3]`, `tools[3]`) in the input."""
    if isinstance(obj, Tool):
        yield _tool_in_namespace(obj, namespace)
    elif isinstance(obj, Mapping):
        if _is_tool_list(obj):
            yield from _read_each(obj["tools"], namespace, f"{path}tools")
        else:
            yield _tool_from_mapping(obj, namespace, path)
    elif (as_mapping := _object_as_mapping(obj)) is not None:
        yield from _read(as_mapping, namespace, path)
    elif callable(obj) and not isinstance(obj, type):
        yield tool_from_callable(obj, namespace=namespace)
    elif isinstance(obj, Iterable) and not isinstance(obj, str | bytes | bytearray):
        yield from _read_each(obj, namespace, path)
    else:
        raise CatalogFormatError(_unknown_shape_message(obj, path))


def _read_each(items: Iterable[Any], namespace: str | None, path: str) -> Iterator[Tool]:
    for index, item in enumerate(items):
        yield from _read(item, namespace, f"{path}[{index}]")


def _at(path: str) -> str:
    return f" at {path}" if path else ""


def _is_tool_list(payload: Mapping[Any, Any]) -> bool:
    """`{"tools": [...]}`: a file's wrapper, or an MCP `tools/list` result."""
    return isinstance(payload.get("tools"), list) and "name" not in payload


def _object_as_mapping(obj: Any) -> Mapping[str, Any] | None:
    """The JSON form of a pydantic model (an `mcp.types.Tool`, an SDK's tool param...), or of
    a plain object with MCP's `name` and `inputSchema` attributes; None for anything else."""
    model_dump = getattr(obj, "model_dump", None)
    if callable(model_dump) and not isinstance(obj, type):
        dumped = model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped if isinstance(dumped, Mapping) else None
    if hasattr(obj, "name") and hasattr(obj, "inputSchema"):
        attributes = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
        return {key: getattr(obj, key) for key in attributes if getattr(obj, key, None) is not None}
    return None


def _tool_in_namespace(tool: Tool, namespace: str | None) -> Tool:
    if namespace is None or tool.namespace is not None:
        return tool
    return _from_toolscout({**tool.model_dump(), "handler": tool.handler}, namespace, path="")


def _tool_from_mapping(payload: Mapping[Any, Any], namespace: str | None, path: str) -> Tool:
    if "mcpServers" in payload:
        raise CatalogFormatError(
            f"found an MCP server configuration (mcpServers){_at(path)}, not a tool catalog; "
            "connect to the servers and pass the tools they list (tools/list) instead"
        )
    if payload.keys() & _TOOLSCOUT_KEYS:
        return _from_toolscout(payload, namespace, path)
    if payload.get("type") == "function" and "function" in payload:
        return _from_openai_chat(payload, namespace, path)
    if payload.get("type") == "function":
        return _from_definition(
            payload, "parameters", namespace, path, skip={"type"}, strict_by_default=True
        )
    if "inputSchema" in payload:
        return _from_definition(payload, "inputSchema", namespace, path)
    if "input_schema" in payload:
        # `"type": "custom"` only tells a client tool from Anthropic's server tools.
        skip = {"type"} if payload.get("type") == "custom" else set()
        return _from_definition(payload, "input_schema", namespace, path, skip=skip)
    if "parameters" in payload or ("name" in payload and payload.keys() <= {"name", "description"}):
        return _from_definition(payload, "parameters", namespace, path)
    raise CatalogFormatError(_unknown_shape_message(payload, path))


def _from_openai_chat(payload: Mapping[Any, Any], namespace: str | None, path: str) -> Tool:
    function = payload["function"]
    if not isinstance(function, Mapping):
        raise CatalogFormatError(
            f"the OpenAI tool{_at(path)} has a 'function' of type {type(function).__name__}; "
            "expected an object with name, description and parameters"
        )
    outer_extras = {key: value for key, value in payload.items() if key not in ("type", "function")}
    return _from_definition(
        {**outer_extras, **function}, "parameters", namespace, path, prefix="function."
    )


def _from_definition(
    payload: Mapping[Any, Any],
    schema_key: str,
    namespace: str | None,
    path: str,
    *,
    skip: set[str] | None = None,
    strict_by_default: bool = False,
    prefix: str = "",
) -> Tool:
    """Read a definition whose name, description and schema (under `schema_key`) sit at the top;
    every other key goes to metadata under its own name."""
    core = {"name", "description", schema_key} | (skip or set())
    metadata = {key: value for key, value in payload.items() if key not in core}
    # Only `strict: true` is kept: false is the default everywhere except OpenAI Responses,
    # where a missing `strict` means true. One stored meaning lets every export state it.
    strict = metadata.pop("strict", None)
    if strict is None and strict_by_default:
        strict = True
    if strict is not None and strict is not False:
        metadata["strict"] = strict
    fields: dict[str, Any] = {"metadata": metadata, "namespace": namespace}
    if "name" in payload:
        fields["name"] = payload["name"]
    if "description" in payload:
        fields["description"] = payload["description"]
    if schema_key in payload:
        fields["input_schema"] = payload[schema_key]
    field_names = {
        "name": f"{prefix}name",
        "description": f"{prefix}description",
        "input_schema": f"{prefix}{schema_key}",
    }
    return build_tool(fields, label=f"the tool definition{_at(path)}", field_names=field_names)


def _from_toolscout(payload: Mapping[Any, Any], namespace: str | None, path: str) -> Tool:
    fields = dict(payload)
    if namespace and not fields.get("namespace"):
        # An id derived without a namespace must be derived again with the new one.
        if fields.get("id") == make_tool_id(str(fields.get("name")), None):
            del fields["id"]
        fields["namespace"] = namespace
    return build_tool(fields, label=f"the tool definition{_at(path)}")


def _unknown_shape_message(obj: Any, path: str) -> str:
    if isinstance(obj, Mapping):
        keys = ", ".join(sorted(repr(key) for key in obj))
        found = f"a dict with keys {keys}" if obj else "an empty dict"
    elif isinstance(obj, type):
        found = f"the class {obj.__name__} (pass an instance or a function)"
    elif isinstance(obj, str | os.PathLike):
        found = f"the {type(obj).__name__} {_short_repr(obj)} (to read a file, use load_tools)"
    else:
        found = f"{type(obj).__name__} {_short_repr(obj)}"
    return f"no tool definition{_at(path)}: found {found}; expected one of: " + "; ".join(
        KNOWN_SHAPES
    )


def _short_repr(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else f"{text[:57]}..."
