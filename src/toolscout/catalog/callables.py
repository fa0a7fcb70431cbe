"""Python functions as tools: the signature gives the schema, the docstring the words."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from pydantic import Field, PydanticUserError, create_model
from pydantic.json_schema import GenerateJsonSchema

from toolscout.catalog.tool import Tool
from toolscout.catalog.validation import build_tool
from toolscout.errors import ToolDefinitionError


def tool_from_callable(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    tags: Iterable[str] = (),
    pinned: bool = False,
) -> Tool:
    """Describe a Python function (sync or async) as a tool whose handler is the function.

    The input schema comes from the signature and type hints through pydantic: defaults,
    `Optional`, `Literal` (an enum), pydantic models and `Annotated[..., Field(...)]` all carry
    over. `self`/`cls`, `*args` and `**kwargs` are left out. The docstring (Google, NumPy or
    Sphinx style) gives the description and each parameter's description.

    Args:
        fn: The function, method or callable object.
        name: The tool name; defaults to the function's `__name__`.
        description: Overrides the description taken from the docstring.
        namespace: Where the tool comes from; part of its id.
        tags: Free labels, searchable and usable in filters.
        pinned: Always visible to the model instead of found through search.

    Raises:
        ToolDefinitionError: the function has no usable name, or a parameter's type has no
            JSON Schema.
    """
    # Imported here: loading tools from a file never reads a docstring.
    import docstring_parser

    tool_name = name or _function_name(fn)
    docstring = docstring_parser.parse(inspect.getdoc(fn) or "")
    parameter_descriptions = {
        param.arg_name: param.description for param in docstring.params if param.description
    }
    if description is None:
        description = (docstring.description or "").strip()
    fields: dict[str, Any] = {
        "name": tool_name,
        "description": description,
        "input_schema": _input_schema(fn, tool_name, parameter_descriptions),
        "namespace": namespace,
        "tags": tuple(tags),
        "pinned": pinned,
        "handler": fn,
    }
    return build_tool(fields, label=f"function {tool_name!r}")


def _function_name(fn: Callable[..., Any]) -> str:
    target = fn.func if isinstance(fn, functools.partial) else fn
    name = getattr(target, "__name__", type(target).__name__)
    if name == "<lambda>":
        raise ToolDefinitionError(
            "a lambda has no name to call it by; use tool_from_callable(fn, name=...)"
        )
    return str(name)


def _input_schema(
    fn: Callable[..., Any], tool_name: str, parameter_descriptions: dict[str, str]
) -> dict[str, Any]:
    try:
        signature = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, ValueError) as error:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: cannot read the function's signature: {error}"
        ) from None
    parameters = [
        parameter
        for position, parameter in enumerate(signature.parameters.values())
        if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        and not (position == 0 and parameter.name in ("self", "cls"))
    ]
    # Fields get neutral names and the parameter's name as alias: a parameter may be called
    # `json`, `schema` or `model_config` (BaseModel attributes) or start with an underscore,
    # which pydantic refuses as a field name but accepts as an alias.
    fields: dict[str, Any] = {
        f"parameter_{index}": (
            Annotated[_annotation(parameter), Field(alias=parameter.name)],
            ... if parameter.default is parameter.empty else parameter.default,
        )
        for index, parameter in enumerate(parameters)
    }
    try:
        arguments = create_model(f"{tool_name}_arguments", **fields)
        schema: dict[str, Any] = arguments.model_json_schema(schema_generator=_SchemaWithoutTitles)
    except PydanticUserError as error:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: cannot describe its parameters as JSON Schema: {error}"
        ) from None
    schema.pop("title", None)
    for parameter_name, property_schema in schema.get("properties", {}).items():
        if parameter_name in parameter_descriptions and "description" not in property_schema:
            property_schema["description"] = parameter_descriptions[parameter_name]
    return schema


def _annotation(parameter: inspect.Parameter) -> Any:
    return Any if parameter.annotation is parameter.empty else parameter.annotation


class _SchemaWithoutTitles(GenerateJsonSchema):
    """Leaves out the titles pydantic derives from field names ("City" for `city`): they repeat
    the name, cost tokens in every request and add noise to search."""

    def field_title_should_be_set(self, schema: object) -> bool:
        return False
