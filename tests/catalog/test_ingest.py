"""Reading tool definitions of every supported shape with `to_tools`."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import mcp.types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscout.catalog import KNOWN_SHAPES, Catalog, Tool, to_tools
from toolscout.errors import CatalogFormatError, ToolDefinitionError, ToolScoutError

from .tool_examples import (
    ANTHROPIC_DEFERRED_WEATHER,
    ANTHROPIC_WEATHER,
    BFCL_TRIANGLE_AREA,
    MCP_WEATHER,
    OPENAI_CHAT_WEATHER,
    OPENAI_RESPONSES_WEATHER,
    WEATHER_PARAMETERS,
    make_tool,
)


def read_one(payload: Any, **options: Any) -> Tool:
    (tool,) = to_tools(payload, **options)
    return tool


class TestOpenAIChat:
    def test_reads_the_nested_function(self) -> None:
        tool = read_one(OPENAI_CHAT_WEATHER)
        assert tool.name == "get_weather"
        assert tool.description == "Get current temperature for a given location."
        assert tool.input_schema == WEATHER_PARAMETERS

    def test_keeps_strict_mode(self) -> None:
        assert read_one(OPENAI_CHAT_WEATHER).metadata == {"strict": True}

    def test_strict_false_is_the_default_and_not_stored(self) -> None:
        function = {**OPENAI_CHAT_WEATHER["function"], "strict": False}
        assert read_one({"type": "function", "function": function}).metadata == {}

    def test_parameters_may_be_left_out(self) -> None:
        tool = read_one({"type": "function", "function": {"name": "get_time"}})
        assert tool.input_schema == {"type": "object", "properties": {}}

    def test_function_that_is_not_an_object_is_a_format_error(self) -> None:
        with pytest.raises(CatalogFormatError, match=r"'function' of type str"):
            to_tools({"type": "function", "function": "get_weather"})

    def test_errors_use_the_formats_field_names(self) -> None:
        payload = {"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}
        with pytest.raises(ToolDefinitionError, match=r"tool 'f': function\.parameters must"):
            to_tools(payload)


class TestOpenAIResponses:
    def test_reads_the_flat_function(self) -> None:
        tool = read_one(OPENAI_RESPONSES_WEATHER)
        assert (tool.name, tool.input_schema) == ("get_weather", WEATHER_PARAMETERS)
        assert tool.metadata == {"strict": True}

    def test_missing_strict_means_strict_as_in_the_responses_api(self) -> None:
        payload = {key: value for key, value in OPENAI_RESPONSES_WEATHER.items() if key != "strict"}
        assert read_one(payload).metadata == {"strict": True}

    def test_strict_false_is_not_stored(self) -> None:
        assert read_one({**OPENAI_RESPONSES_WEATHER, "strict": False}).metadata == {}

    def test_defer_loading_is_kept(self) -> None:
        tool = read_one({**OPENAI_RESPONSES_WEATHER, "defer_loading": True})
        assert tool.metadata == {"strict": True, "defer_loading": True}


class TestAnthropic:
    def test_reads_input_schema(self) -> None:
        tool = read_one(ANTHROPIC_WEATHER)
        assert tool.name == "get_weather"
        assert tool.input_schema["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
        assert tool.metadata == {}

    def test_extra_keys_go_to_metadata(self) -> None:
        assert read_one(ANTHROPIC_DEFERRED_WEATHER).metadata == {
            "cache_control": {"type": "ephemeral"},
            "defer_loading": True,
            "input_examples": [{"location": "San Francisco, CA", "unit": "fahrenheit"}],
        }

    def test_custom_type_marker_is_not_metadata(self) -> None:
        assert read_one({**ANTHROPIC_WEATHER, "type": "custom"}).metadata == {}

    def test_server_tool_is_not_a_searchable_definition(self) -> None:
        with pytest.raises(CatalogFormatError, match="'max_uses', 'name', 'type'"):
            to_tools({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})


class TestMCP:
    def test_reads_the_json_form(self) -> None:
        tool = read_one(MCP_WEATHER)
        assert tool.name == "get_weather_data"
        assert tool.input_schema == MCP_WEATHER["inputSchema"]
        assert tool.metadata == {
            "title": "Weather Data Retriever",
            "outputSchema": MCP_WEATHER["outputSchema"],
            "annotations": {"readOnlyHint": True, "openWorldHint": True},
            "_meta": {"com.example/team": "forecasting"},
        }

    def test_reads_an_mcp_sdk_tool_object(self) -> None:
        sdk_tool = mcp.types.Tool.model_validate(MCP_WEATHER)
        assert read_one(sdk_tool) == read_one(MCP_WEATHER)

    def test_reads_a_tools_list_result(self) -> None:
        result = mcp.types.ListToolsResult(
            tools=[
                mcp.types.Tool(name="read_file", input_schema={"type": "object"}),
                mcp.types.Tool(name="write_file", input_schema={"type": "object"}),
            ]
        )
        assert [tool.name for tool in to_tools(result)] == ["read_file", "write_file"]

    def test_description_is_optional(self) -> None:
        assert read_one({"name": "ping", "inputSchema": {"type": "object"}}).description == ""

    def test_reads_a_plain_object_with_mcp_attributes(self) -> None:
        server_tool = SimpleNamespace(
            name="ping", description="Check the server is up.", inputSchema={"type": "object"}
        )
        tool = read_one(server_tool)
        assert (tool.name, tool.description) == ("ping", "Check the server is up.")


class TestBareFunctionDefinitions:
    def test_reads_bfcl_dict_type_as_object(self) -> None:
        tool = read_one(BFCL_TRIANGLE_AREA)
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["required"] == ["base", "height"]

    def test_name_and_description_alone_make_a_tool_without_arguments(self) -> None:
        tool = read_one({"name": "get_time", "description": "The current time."})
        assert tool.input_schema == {"type": "object", "properties": {}}


class TestToolscoutDumps:
    def test_model_dump_round_trips(self) -> None:
        tool = make_tool(namespace="weather", tags=["forecast"], metadata={"owner": "ops"})
        assert read_one(tool.model_dump()) == tool
        assert read_one(tool.model_dump(mode="json")) == tool

    def test_pinned_tool_round_trips(self) -> None:
        tool = make_tool(pinned=True)
        assert read_one(tool.model_dump()) == tool

    def test_unknown_key_in_a_dump_is_named(self) -> None:
        with pytest.raises(ToolDefinitionError, match="unknown field 'parameters'"):
            to_tools({"name": "f", "parameters": {}, "tags": ["x"]})


class TestToolObjectsAndCallables:
    def test_a_tool_passes_through_unchanged(self) -> None:
        tool = make_tool()
        assert to_tools(tool) == [tool]
        assert to_tools(tool)[0] is tool

    def test_a_function_becomes_a_tool_with_a_handler(self) -> None:
        def get_time(timezone: str) -> str:
            """Tell the time in a timezone."""
            return timezone

        tool = read_one(get_time)
        assert tool.description == "Tell the time in a timezone."
        assert tool.handler is get_time


class TestListsAndWrappers:
    def test_a_mixed_list_keeps_order(self) -> None:
        def get_time() -> str:
            return "noon"

        tools = to_tools([OPENAI_CHAT_WEATHER, make_tool("search"), get_time, MCP_WEATHER])
        assert [tool.name for tool in tools] == [
            "get_weather",
            "search",
            "get_time",
            "get_weather_data",
        ]

    def test_tools_wrapper(self) -> None:
        tools = to_tools({"tools": [ANTHROPIC_WEATHER, BFCL_TRIANGLE_AREA]})
        assert [tool.name for tool in tools] == ["get_weather", "calculate_triangle_area"]

    def test_any_iterable_such_as_a_catalog(self) -> None:
        catalog = Catalog([make_tool("a"), make_tool("b")])
        assert [tool.name for tool in to_tools(catalog)] == ["a", "b"]
        assert to_tools(tool for tool in catalog) == list(catalog)

    def test_empty_list_gives_no_tools(self) -> None:
        assert to_tools([]) == []


class TestNamespaces:
    def test_namespace_applies_to_every_tool_without_one(self) -> None:
        tools = to_tools([OPENAI_CHAT_WEATHER, MCP_WEATHER], namespace="weather")
        assert [tool.id for tool in tools] == ["weather__get_weather", "weather__get_weather_data"]

    def test_a_tools_own_namespace_wins(self) -> None:
        tool = read_one(make_tool(namespace="maps"), namespace="weather")
        assert tool.id == "maps__get_weather"

    def test_a_tool_object_gets_a_new_id_and_keeps_its_handler(self) -> None:
        tool = make_tool(handler=print)
        moved = read_one(tool, namespace="weather")
        assert (moved.namespace, moved.id, moved.handler) == (
            "weather",
            "weather__get_weather",
            print,
        )

    def test_an_explicit_id_is_kept(self) -> None:
        tool = read_one(make_tool(id="custom-id").model_dump(), namespace="weather")
        assert (tool.namespace, tool.id) == ("weather", "custom-id")

    def test_a_dump_without_namespace_gets_one(self) -> None:
        tool = read_one(make_tool().model_dump(), namespace="weather")
        assert tool.id == "weather__get_weather"


class TestUnknownShapes:
    def test_message_names_the_keys_found_and_the_shapes_expected(self) -> None:
        with pytest.raises(CatalogFormatError) as raised:
            to_tools({"title": "Weather", "args": {}})
        message = str(raised.value)
        assert "found a dict with keys 'args', 'title'" in message
        assert all(shape in message for shape in KNOWN_SHAPES)

    def test_message_points_at_the_item(self) -> None:
        with pytest.raises(CatalogFormatError, match=r"no tool definition at \[1\]: found int 42"):
            to_tools([ANTHROPIC_WEATHER, 42])

    def test_message_points_into_a_wrapper(self) -> None:
        with pytest.raises(CatalogFormatError, match=r"at tools\[0\]: found an empty dict"):
            to_tools({"tools": [{}]})

    def test_a_string_suggests_load_tools(self) -> None:
        with pytest.raises(CatalogFormatError, match="to read a file, use load_tools"):
            to_tools("tools.json")

    def test_a_class_asks_for_an_instance(self) -> None:
        with pytest.raises(CatalogFormatError, match="the class Tool"):
            to_tools(Tool)

    def test_none(self) -> None:
        with pytest.raises(CatalogFormatError, match="found NoneType None"):
            to_tools(None)

    def test_mcp_server_config_is_not_a_catalog(self) -> None:
        config = {"mcpServers": {"weather": {"command": "uvx", "args": ["mcp-weather"]}}}
        with pytest.raises(
            CatalogFormatError, match=r"MCP server configuration.*not a tool catalog"
        ):
            to_tools(config)


class TestDefinitionErrors:
    @pytest.mark.parametrize(
        ("payload", "message"),
        [
            (
                {"name": 7, "input_schema": {}},
                r"the tool definition: name must be a string, got int",
            ),
            (
                {"name": "f", "description": 3, "input_schema": {}},
                r"tool 'f': description must be a string, got int",
            ),
            (
                {"name": "f", "inputSchema": "object"},
                r"tool 'f': inputSchema must be a JSON Schema object \(a dict\), got str",
            ),
            (
                {"name": "f", "parameters": {"type": "array", "items": {}}},
                r"tool 'f': parameters must describe an object .*got type 'array'",
            ),
            ({"input_schema": {"type": "object"}}, r"the tool definition: name is missing"),
            ({"name": "", "parameters": {}}, r"the tool definition: name: String should have"),
        ],
        ids=[
            "name-not-text",
            "description-int",
            "schema-not-dict",
            "schema-array",
            "no-name",
            "empty-name",
        ],
    )
    def test_bad_values_give_one_readable_line(self, payload: dict[str, Any], message: str) -> None:
        with pytest.raises(ToolDefinitionError, match=message) as raised:
            to_tools(payload)
        assert "\n" not in str(raised.value)

    def test_the_item_is_named_when_the_tool_has_no_name(self) -> None:
        with pytest.raises(
            ToolDefinitionError, match=r"the tool definition at \[1\]: name is missing"
        ):
            to_tools([ANTHROPIC_WEATHER, {"input_schema": {}}])

    def test_every_wrong_field_is_listed(self) -> None:
        with pytest.raises(ToolDefinitionError, match=r"description must .*; parameters must"):
            to_tools({"name": "f", "description": 1, "parameters": []})


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)
TOOL_KEYS = st.sampled_from(
    [
        "name",
        "description",
        "parameters",
        "input_schema",
        "inputSchema",
        "type",
        "function",
        "tools",
        "strict",
        "tags",
        "namespace",
        "pinned",
        "deferred",
        "id",
        "metadata",
        "mcpServers",
    ]
)
JSON_ISH_DICTS = st.dictionaries(TOOL_KEYS | st.text(max_size=6), JSON_VALUES, max_size=6)


class TestNeverCrashes:
    @given(JSON_ISH_DICTS | st.lists(JSON_ISH_DICTS, max_size=3) | JSON_VALUES)
    def test_any_json_gives_tools_or_a_toolscout_error(self, payload: Any) -> None:
        try:
            tools = to_tools(payload)
        except ToolScoutError:
            return
        assert all(isinstance(tool, Tool) for tool in tools)
