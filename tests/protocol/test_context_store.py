"""ContextStore: discovered tools read back from OpenAI and Anthropic message shapes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.protocol.builders import call, make_catalog, names
from toolscout.protocol import ContextStore, ToolCall, ToolSearch
from toolscout.protocol.results import compact_definition

MARKED = "Loaded.\n[tools available: get_forecast, send_email]"


class _SdkObject:
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def model_dump(self) -> dict[str, Any]:
        return self._data


class TestContextStore:
    @pytest.mark.parametrize(
        "message",
        [
            {"role": "tool", "tool_call_id": "1", "content": MARKED},
            {"role": "tool", "tool_call_id": "1", "content": [{"type": "text", "text": MARKED}]},
            {"type": "function_call_output", "call_id": "1", "output": MARKED},
            {
                "type": "tool_search_output",
                "call_id": "1",
                "execution": "client",
                "tools": [
                    {"type": "function", "name": "get_forecast"},
                    {
                        "type": "namespace",
                        "name": "mail",
                        "tools": [{"type": "function", "name": "send_email"}],
                    },
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "1", "content": MARKED}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "1",
                        "content": [
                            {"type": "tool_reference", "tool_name": "get_forecast"},
                            {"type": "tool_reference", "tool_name": "send_email"},
                        ],
                    }
                ],
            },
            _SdkObject(
                {
                    "role": "tool",
                    "tool_call_id": "1",
                    "content": '{"tools_available":["get_forecast","send_email"]}',
                }
            ),
        ],
        ids=[
            "chat",
            "chat-parts",
            "responses",
            "responses-native",
            "anthropic",
            "anthropic-native",
            "sdk",
        ],
    )
    def test_reads_every_provider_shape(self, message: Any) -> None:
        assert ContextStore().load(None, [message]) == ["get_forecast", "send_email"]

    def test_ignores_other_messages_and_keeps_first_discovery_order(self) -> None:
        messages = [
            {"role": "user", "content": "[tools available: nope]"},
            {"role": "assistant", "content": "[tools available: nope]"},
            {"role": "tool", "tool_call_id": "1", "content": "[tools available: b]"},
            {"role": "tool", "tool_call_id": "2", "content": "[tools available: a, b]"},
            {"role": "tool", "tool_call_id": "3", "content": "{broken json"},
        ]
        assert ContextStore().load("any", messages) == ["b", "a"]

    def test_is_restart_safe(self) -> None:
        first = ToolSearch(make_catalog(), store=ContextStore())
        result = call(first, "load_tool", names=["get_forecast"])
        messages = [{"role": "tool", "tool_call_id": "1", "content": result.content}]
        restarted = ToolSearch(make_catalog(), store=ContextStore())
        assert names(restarted.prepare("t1", messages))[-1] == "get_forecast"
        ran = restarted.execute(ToolCall("get_forecast", {"city": "Lyon"}), "t1", messages=messages)
        assert ran.content == "Sunny in Lyon for 1 day(s)"

    @pytest.mark.parametrize("result_format", ["json", "compact"])
    def test_trimmed_history_de_loads_and_the_tool_can_be_found_again(
        self, result_format: str
    ) -> None:
        search = ToolSearch(make_catalog(), mode="auto_load", result_format=result_format)
        found = call(search, "search_tools", None, queries=["weather forecast"])
        history = [
            {"role": "user", "content": "weather in Paris?"},
            {"role": "tool", "tool_call_id": "1", "content": found.content},
            {"role": "assistant", "content": "Sunny."},
        ]
        assert "get_forecast" in names(search.prepare(None, history))
        trimmed = history[2:]
        assert "get_forecast" not in names(search.prepare(None, trimmed))
        again = call(search, "search_tools", None, queries=["weather forecast"])
        assert "already_available" not in again.content and "get_forecast" in again.content

    def test_compact_definitions_spell_out_types_required_and_enums(self) -> None:
        search = ToolSearch(make_catalog())
        definition = search._definition(search.catalog["get_forecast"], "discovered")
        assert compact_definition(definition) == [
            "get_forecast: Get the weather forecast for a city.",
            '  city: string, required. City name, such as "Paris".',
            "  days: integer, default 1. How many days ahead, from 1 to 7.",
        ]
