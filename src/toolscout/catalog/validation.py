"""Build a `Tool` from raw fields, turning pydantic's error report into one readable line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from toolscout.catalog.tool import Tool
from toolscout.errors import ToolDefinitionError, describe_validation_error


def build_tool(
    fields: Mapping[str, Any], *, label: str, field_names: Mapping[str, str] | None = None
) -> Tool:
    """Validate `fields` into a `Tool`.

    Args:
        fields: Keyword arguments for `Tool`.
        label: What to call the definition when it has no usable name: `"the tool at [3]"`.
        field_names: What the source format calls each `Tool` field (`input_schema` is
            `parameters` in OpenAI's format), so the message uses the user's words.

    Raises:
        ToolDefinitionError: naming the tool and every field that is wrong, in one line.
    """
    try:
        return Tool.model_validate(fields)
    except ValidationError as error:
        name = fields.get("name")
        who = f"tool {name!r}" if isinstance(name, str) and name else label
        problems = describe_validation_error(error, field_names=field_names)
        raise ToolDefinitionError(f"{who}: {problems}") from None
