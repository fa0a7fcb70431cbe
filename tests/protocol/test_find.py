"""`ToolSearch.find`: what `search_tools` would return, what it leaves out and why, asked
without a conversation and without side effects."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.protocol.builders import call, make_catalog, plain_tool
from toolscout import Catalog
from toolscout.errors import ToolSearchConfigError
from toolscout.protocol import Phase, SearchAnswer, ToolSearch
from toolscout.state import InMemoryStore

MODES = ["load", "auto_load", "proxy"]


def make_search(catalog: Catalog | None = None, **options: Any) -> ToolSearch:
    # BM25: exact rankings; these tests are about the protocol.
    options.setdefault("engine", "bm25")
    return ToolSearch(catalog or make_catalog(), store=InMemoryStore(), **options)


def found_names(answer: SearchAnswer) -> list[list[str]]:
    return [[entry.name for entry in query.found] for query in answer.queries]


def returned_names(content: str) -> list[list[str]]:
    """The tools per query of a JSON `search_tools` result."""
    return [[tool["name"] for tool in query["tools"]] for query in json.loads(content)["results"]]


def reasons(answer: SearchAnswer) -> dict[str, str]:
    (query,) = answer.queries
    return {entry.tool.id: entry.reason for entry in query.left_out}


class TestSameAsSearchTools:
    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize(
        "queries",
        [
            ["weather forecast"],
            ["send an email", "weather", "calendar event"],
            ["translate_text"],  # an exact name comes first
            ["tell me a joke"],  # nothing
        ],
    )
    def test_find_returns_what_search_tools_returns(self, mode: str, queries: list[str]) -> None:
        search = make_search(mode=mode, threshold=0.1)
        answer = search.find(queries)
        result = call(search, "search_tools", "fresh-thread", queries=queries)
        assert found_names(answer) == returned_names(result.content)

    def test_scores_are_the_result_s_scores(self) -> None:
        search = make_search(threshold=0)
        answer = search.find("send an email")
        result = json.loads(call(search, "search_tools", queries=["send an email"]).content)
        scores = [tool["score"] for tool in result["results"][0]["tools"]]
        assert [round(entry.normalized_score, 2) for entry in answer.found] == scores

    def test_discovered_tools_come_after_new_ones(self) -> None:
        search = make_search(mode="auto_load", threshold=0, max_results=3)
        query = "email forecast weather event"
        assert found_names(search.find(query))[0][0] == "get_forecast"
        after = search.find(query, discovered=["get_forecast"])
        assert [(entry.name, entry.already_discovered) for entry in after.found] == [
            ("send_email", False),
            ("create_calendar_event", False),
            ("get_forecast", True),
        ]

    def test_the_filter_is_asked_with_the_request_context(self) -> None:
        def tenant_filter(tool: Any, request_context: Any, phase: Phase) -> bool:
            return "admin" not in tool.tags or request_context == "admin"

        search = make_search(filter=tenant_filter, threshold=0)
        query = "delete every file in a folder"
        assert "delete_all_files" not in found_names(search.find(query))[0]
        assert "delete_all_files" in found_names(search.find(query, request_context="admin"))[0]
        assert reasons(search.find(query))["delete_all_files"] == "filtered"


class TestWhyLeftOut:
    def test_pinned_tools_are_never_found(self) -> None:
        catalog = make_catalog(
            plain_tool("weather_now", "Get the current weather.", deferred=False),
            plain_tool("weather_alerts", "Get weather alerts.", pinned=True),
            plain_tool("weather_radar", "Show the weather radar."),
        )
        search = make_search(catalog, threshold=0, pinned=["get_forecast"])
        answer = search.find("weather")
        assert found_names(answer) == [["weather_radar"]]
        why = reasons(answer)
        # Pinned by any of the three names: ranked, never found, and said why.
        assert why["weather_now"] == why["get_forecast"] == why["weather_alerts"] == "pinned"

    def test_below_the_threshold_says_the_scores(self) -> None:
        answer = make_search(threshold=0.99).find("weather")
        (query,) = answer.queries
        assert query.found == () and query.notice
        assert query.left_out and query.left_out[0].reason == "below_threshold"
        assert "below the threshold 0.99" in query.left_out[0].detail
        assert answer.threshold == 0.99

    def test_past_max_results(self) -> None:
        answer = make_search(threshold=0, max_results=1).find("text email event weather")
        (query,) = answer.queries
        assert len(query.found) == 1
        assert "past_max_results" in reasons(answer).values()

    def test_a_tool_an_earlier_query_returned(self) -> None:
        answer = make_search(threshold=0).find(["weather forecast", "forecast"])
        assert found_names(answer)[0][0] == "get_forecast"
        earlier = {entry.tool.id: entry.reason for entry in answer.queries[1].left_out}
        assert earlier["get_forecast"] == "earlier_query"

    def test_left_out_tools_are_in_ranking_order_with_their_hits(self) -> None:
        (query,) = make_search(threshold=0, max_results=1).find("text").queries
        ranks = [entry.hit.rank for entry in query.left_out]
        assert ranks == sorted(ranks)

    def test_explain_false_leaves_left_out_empty(self) -> None:
        search = make_search(threshold=0.99)
        (query,) = search.find("weather", explain=False).queries
        assert query.left_out == () and query.found == ()


class TestOnlyAsks:
    def test_find_remembers_nothing_and_counts_nothing(self) -> None:
        store = InMemoryStore()
        search = ToolSearch(make_catalog(), mode="auto_load", engine="bm25", store=store)
        search.find("weather forecast")
        assert store.load("t1") == []
        assert search.stats().requests == 0 and search.stats().result_tokens == 0

    def test_max_results_is_capped_like_the_model_s(self) -> None:
        search = make_search(threshold=0, max_results=2)
        assert len(search.find("text email event weather", max_results=9).found) == 2
        assert len(search.find("text email event weather", max_results=1).found) == 1

    @pytest.mark.parametrize("queries", [[], [3], None])
    def test_no_query_or_a_query_that_is_not_text_is_an_error(self, queries: Any) -> None:
        with pytest.raises(ToolSearchConfigError, match="queries"):
            make_search().find(queries)

    def test_afind_inside_an_event_loop(self) -> None:
        search = make_search()

        async def ask() -> SearchAnswer:
            with pytest.raises(RuntimeError, match="afind"):
                search.find("weather")
            return await search.afind("weather")

        assert found_names(asyncio.run(ask()))[0][0] == "get_forecast"
