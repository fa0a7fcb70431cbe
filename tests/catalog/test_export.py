"""Writing tools out as OpenAI, Anthropic and MCP definitions, and reading them back."""

from __future__ import annotations

from typing import Any, get_args

import mcp.types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscout.catalog import (
    ExportFormat,
    Tool,
    export_tools,
    to_anthropic,
    to_mcp,
    to_openai_chat,
    to_openai_responses,
    to_tools,
)

from .tool_examples import EXAMPLES_BY_FORMAT, MCP_WEATHER, WEATHER_PARAMETERS, make_tool

FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)

#: The metadata keys each format carries, as the export module documents them.
CARRIED_KEYS: dict[ExportFormat, tuple[str, ...]] = {
    "openai_chat": ("strict",),
    "openai_responses": ("strict", "defer_loading"),
    "anthropic": (
        "cache_control",
        "defer_loading",
        "input_examples",
        "strict",
        "eager_input_streaming",
        "allowed_callers",
    ),
    "mcp": ("title", "annotations", "outputSchema", "_meta", "icons", "execution"),
}


def export_one(tool: Tool, format: ExportFormat, **options: Any) -> dict[str, Any]:
    (exported,) = export_tools([tool], format, **options)
    return exported


def read_one(payload: Any) -> Tool:
    (tool,) = to_tools(payload)
    return tool


class TestShapes:
    def test_openai_chat(self) -> None:
        tool = make_tool(input_schema=WEATHER_PARAMETERS, metadata={"strict": True})
        assert to_openai_chat(tool) == {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Does get weather.",
                "parameters": WEATHER_PARAMETERS,
                "strict": True,
            },
        }

    def test_openai_responses_always_states_strict(self) -> None:
        tool = make_tool(input_schema=WEATHER_PARAMETERS)
        assert to_openai_responses(tool) == {
            "type": "function",
            "name": "get_weather",
            "description": "Does get weather.",
            "parameters": WEATHER_PARAMETERS,
            "strict": False,
        }

    def test_anthropic(self) -> None:
        tool = make_tool(metadata={"cache_control": {"type": "ephemeral"}})
        assert to_anthropic(tool) == {
            "name": "get_weather",
            "description": "Does get weather.",
            "input_schema": tool.input_schema,
            "cache_control": {"type": "ephemeral"},
        }

    def test_mcp(self) -> None:
        tool = make_tool(metadata={"annotations": {"readOnlyHint": True}})
        assert to_mcp(tool) == {
            "name": "get_weather",
            "description": "Does get weather.",
            "inputSchema": tool.input_schema,
            "annotations": {"readOnlyHint": True},
        }

    def test_mcp_export_is_a_valid_mcp_sdk_tool(self) -> None:
        exported = to_mcp(read_one(MCP_WEATHER))
        sdk_tool = mcp.types.Tool.model_validate(exported)
        assert sdk_tool.model_dump(by_alias=True, exclude_none=True, mode="json") == exported

    @pytest.mark.parametrize("format", FORMATS)
    def test_empty_description_is_left_out(self, format: ExportFormat) -> None:
        exported = export_one(make_tool(description=""), format)
        assert "description" not in exported.get("function", exported)

    def test_export_tools_keeps_order(self) -> None:
        tools = [make_tool("b"), make_tool("a")]
        assert [entry["name"] for entry in export_tools(tools, "anthropic")] == ["b", "a"]

    def test_unknown_format_names_the_choices(self) -> None:
        with pytest.raises(ValueError, match="use one of openai_chat, openai_responses"):
            export_tools([make_tool()], "gemini")  # type: ignore[arg-type]


class TestOnlyKeysTheFormatDefines:
    def test_mcp_annotations_do_not_reach_openai(self) -> None:
        tool = read_one(MCP_WEATHER)
        assert set(to_openai_chat(tool)["function"]) == {"name", "description", "parameters"}
        assert set(to_anthropic(tool)) == {"name", "description", "input_schema"}

    def test_strict_reaches_every_format_that_has_it(self) -> None:
        tool = make_tool(metadata={"strict": True})
        assert to_openai_chat(tool)["function"]["strict"] is True
        assert to_openai_responses(tool)["strict"] is True
        assert to_anthropic(tool)["strict"] is True
        assert "strict" not in to_mcp(tool)

    def test_anthropic_defer_loading_reaches_openai_responses(self) -> None:
        tool = make_tool(metadata={"defer_loading": True, "cache_control": {"type": "ephemeral"}})
        assert to_openai_responses(tool)["defer_loading"] is True
        assert "cache_control" not in to_openai_responses(tool)


class TestNameBy:
    @pytest.mark.parametrize("format", FORMATS)
    def test_name_by_default_is_the_tools_own_name(self, format: ExportFormat) -> None:
        exported = export_one(make_tool(namespace="weather"), format)
        assert exported.get("function", exported)["name"] == "get_weather"

    @pytest.mark.parametrize("format", FORMATS)
    def test_name_by_id_keeps_names_unique_across_namespaces(self, format: ExportFormat) -> None:
        tools = [make_tool(namespace="weather"), make_tool(namespace="maps")]
        names = [
            entry.get("function", entry)["name"]
            for entry in export_tools(tools, format, name_by="id")
        ]
        assert names == ["weather__get_weather", "maps__get_weather"]


class TestExportsAreCopies:
    @pytest.mark.parametrize("format", FORMATS)
    def test_editing_an_export_leaves_the_tool_alone(self, format: ExportFormat) -> None:
        tool = read_one(EXAMPLES_BY_FORMAT[format])
        before = tool.model_dump()
        empty_every_container(export_one(tool, format))
        assert tool.model_dump() == before


def empty_every_container(value: Any) -> None:
    if isinstance(value, dict):
        for item in value.values():
            empty_every_container(item)
        value.clear()
    elif isinstance(value, list):
        for item in value:
            empty_every_container(item)
        value.clear()


class TestRoundTrips:
    @pytest.mark.parametrize("format", FORMATS)
    def test_real_shaped_definition_survives_ingest_and_export(self, format: ExportFormat) -> None:
        payload = EXAMPLES_BY_FORMAT[format]
        assert export_one(read_one(payload), format) == payload

    @pytest.mark.parametrize("format", FORMATS)
    def test_real_shaped_tool_survives_export_and_ingest(self, format: ExportFormat) -> None:
        tool = read_one(EXAMPLES_BY_FORMAT[format])
        assert read_one(export_one(tool, format)) == tool

    @pytest.mark.parametrize("format", FORMATS)
    def test_namespace_comes_back_when_given_again(self, format: ExportFormat) -> None:
        tool = make_tool(namespace="weather")
        (read_back,) = to_tools(export_one(tool, format), namespace="weather")
        assert read_back == tool

    @pytest.mark.parametrize("format", FORMATS)
    @given(data=st.data())
    def test_generated_tools_survive_export_and_ingest(
        self, format: ExportFormat, data: st.DataObject
    ) -> None:
        tool = data.draw(tools(metadata_keys=CARRIED_KEYS[format]))
        assert read_one(export_one(tool, format)) == tool


NAMES = st.from_regex(r"[a-zA-Z0-9_-]{1,64}", fullmatch=True)
JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.text(max_size=10)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
PROPERTY_SCHEMAS = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
    optional={
        "description": st.text(max_size=30),
        "enum": st.lists(st.text(max_size=8), min_size=1, max_size=3, unique=True),
    },
)


@st.composite
def object_schemas(draw: st.DrawFn) -> dict[str, Any]:
    properties = draw(st.dictionaries(NAMES, PROPERTY_SCHEMAS, max_size=4))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if properties:
        schema["required"] = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


def metadata_values(key: str) -> st.SearchStrategy[Any]:
    # `strict` is stored only when true (false is every format's default but Responses').
    return st.just(True) if key == "strict" else JSON_VALUES


@st.composite
def tools(draw: st.DrawFn, metadata_keys: tuple[str, ...]) -> Tool:
    keys = draw(st.lists(st.sampled_from(metadata_keys), unique=True))
    return Tool(
        name=draw(NAMES),
        description=draw(st.text(max_size=60)),
        input_schema=draw(object_schemas()),
        metadata={key: draw(metadata_values(key)) for key in keys},
    )
