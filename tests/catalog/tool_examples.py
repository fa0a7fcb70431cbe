"""Tool definitions shaped as in the public docs of OpenAI, Anthropic, MCP and BFCL, and a
small `make_tool` builder, shared by the catalog tests."""

from __future__ import annotations

from typing import Any

from toolscout.catalog import Tool

WEATHER_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {
            "type": "string",
            "description": "City and country e.g. Bogotá, Colombia",
        }
    },
    "required": ["location"],
    "additionalProperties": False,
}

OPENAI_CHAT_WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get current temperature for a given location.",
        "parameters": WEATHER_PARAMETERS,
        "strict": True,
    },
}

OPENAI_RESPONSES_WEATHER: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "Get current temperature for a given location.",
    "parameters": WEATHER_PARAMETERS,
    "strict": True,
}

ANTHROPIC_WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "description": "Get the current weather in a given location",
    "input_schema": {
        "type": "object",
        "properties": {
            "location": {
                "type": "string",
                "description": "The city and state, e.g. San Francisco, CA",
            },
            "unit": {
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "description": "The unit of temperature, either 'celsius' or 'fahrenheit'",
            },
        },
        "required": ["location"],
    },
}

ANTHROPIC_DEFERRED_WEATHER: dict[str, Any] = {
    **ANTHROPIC_WEATHER,
    "cache_control": {"type": "ephemeral"},
    "defer_loading": True,
    "input_examples": [{"location": "San Francisco, CA", "unit": "fahrenheit"}],
}

MCP_WEATHER: dict[str, Any] = {
    "name": "get_weather_data",
    "title": "Weather Data Retriever",
    "description": "Get current weather data for a location",
    "inputSchema": {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "City name or zip code"}},
        "required": ["location"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "temperature": {"type": "number", "description": "Temperature in celsius"},
            "conditions": {"type": "string", "description": "Weather conditions description"},
            "humidity": {"type": "number", "description": "Humidity percentage"},
        },
        "required": ["temperature", "conditions", "humidity"],
    },
    "annotations": {"readOnlyHint": True, "openWorldHint": True},
    "_meta": {"com.example/team": "forecasting"},
}

BFCL_TRIANGLE_AREA: dict[str, Any] = {
    "name": "calculate_triangle_area",
    "description": "Calculate the area of a triangle given its base and height.",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer", "description": "The base of the triangle."},
            "height": {"type": "integer", "description": "The height of the triangle."},
            "unit": {
                "type": "string",
                "description": "The unit of measure (defaults to 'units' if not specified)",
            },
        },
        "required": ["base", "height"],
    },
}

EXAMPLES_BY_FORMAT: dict[str, dict[str, Any]] = {
    "openai_chat": OPENAI_CHAT_WEATHER,
    "openai_responses": OPENAI_RESPONSES_WEATHER,
    "anthropic": ANTHROPIC_DEFERRED_WEATHER,
    "mcp": MCP_WEATHER,
}
"""One real-shaped definition per export format, each in the canonical form its export writes."""


def make_tool(name: str = "get_weather", **fields: Any) -> Tool:
    """A small valid tool; any `Tool` field can be overridden."""
    defaults: dict[str, Any] = {
        "description": f"Does {name.replace('_', ' ')}.",
        "input_schema": {
            "type": "object",
            "properties": {"location": {"type": "string", "description": "Where."}},
            "required": ["location"],
        },
    }
    return Tool(name=name, **{**defaults, **fields})
