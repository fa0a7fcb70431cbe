"""The preloading benchmark's scripted conversations count what the method says (the figures
themselves are `make bench`'s)."""

from __future__ import annotations

import asyncio

import pytest
from benchmarks.bfcl import Query
from benchmarks.preload import converse

from tests.protocol.builders import make_catalog
from toolscout.protocol import PreloadConfig, ToolSearch

WEATHER = Query("w", "What is the weather forecast in Paris?", frozenset({"get_forecast"}), "dev")
JOKE = Query("j", "Tell me a joke about penguins", frozenset({"get_forecast"}), "dev")


@pytest.mark.parametrize(
    ("mode", "preload", "model_calls"),
    [
        ("load", False, 4),  # search, load, call, answer
        ("auto_load", False, 3),  # search, call, answer
        ("proxy", False, 3),  # search, call_tool, answer
        ("load", True, 2),  # call, answer
        ("auto_load", True, 2),
    ],
)
def test_model_calls_per_conversation(mode: str, preload: bool, model_calls: int) -> None:
    search = ToolSearch(
        make_catalog(), engine="bm25", mode=mode, preload=PreloadConfig(enabled=preload)
    )
    outcome = asyncio.run(converse(search, WEATHER))
    assert outcome.reached and outcome.preloaded == preload
    assert outcome.model_calls == model_calls and outcome.tool_tokens > 0


def test_a_tool_search_does_not_find_is_not_reached() -> None:
    outcome = asyncio.run(converse(ToolSearch(make_catalog(), engine="bm25"), JOKE))
    assert not outcome.reached and not outcome.preloaded
