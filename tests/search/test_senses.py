"""Synonyms of the right sense only, resistance to keyword stuffing, and tools described in
Chinese or Japanese: BM25 over realistic catalogs."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from benchmarks.senses import CATALOG, QUERIES, SenseQuery

from toolscout.catalog import Catalog, Tool
from toolscout.data import demo_catalog_path
from toolscout.errors import SearchConfigError
from toolscout.search import BM25Options, ToolIndex

from .conftest import chinese_tools, make_index, make_tool, names, standard_tools, string_param


@cache
def _senses_index() -> ToolIndex:
    return ToolIndex(list(CATALOG), engine="bm25")


_WITH_FALSE = [query for query in QUERIES if query.false]


class TestFalseSynonymMatches:
    @pytest.mark.parametrize("query", _WITH_FALSE, ids=[query.text for query in _WITH_FALSE])
    def test_a_synonym_of_another_sense_stays_out_of_the_results(self, query: SenseQuery) -> None:
        found = names(_senses_index().search(query.text, k=5))
        assert not query.false.intersection(found)

    @pytest.mark.parametrize("query", _WITH_FALSE, ids=[query.text for query in _WITH_FALSE])
    def test_it_ranks_below_every_right_tool_even_without_a_threshold(
        self, query: SenseQuery
    ) -> None:
        ranking = names(_senses_index().search(query.text, k=20, threshold=0))
        right = [ranking.index(name) for name in query.relevant if name in ranking]
        wrong = [ranking.index(name) for name in query.false if name in ranking]
        assert max(right, default=len(ranking)) < min(wrong, default=len(ranking) + 1)

    @pytest.mark.parametrize(
        ("query", "first"),
        [
            ("book a plane ticket", "book_flight"),
            ("fetch a url", "fetch"),
            ("list the tables", "list_tables"),
            ("download a web page", "fetch"),
            ("open a ticket for the login bug", "list_issues"),
            ("send a message to alice's email address", "send_email"),
            ("any storm warnings in Texas", "get_alerts"),
        ],
    )
    def test_rewordings_find_their_tool(self, query: str, first: str) -> None:
        assert names(_senses_index().search(query, k=3))[0] == first

    def test_the_right_sense_of_a_word_is_still_a_synonym(self) -> None:
        found = names(_senses_index().search("open a ticket for the login bug", k=3))
        assert "create_issue" in found  # ticket ≈ issue, confirmed by bug ≈ issue


class TestSynonymRules:
    def test_a_synonym_is_matched_in_names_and_descriptions_not_parameters(self) -> None:
        tools = [
            make_tool("halt_machine", "Halt the virtual machine."),
            make_tool(
                "schedule_job",
                "Schedule a job on the cluster.",
                parameters={"on_failure": string_param("Whether to halt the cluster")},
            ),
        ]
        results = make_index(tools, threshold=0).search("stop")
        assert names(results) == ["halt_machine"]
        assert [(t.index_term, t.kind) for t in results[0].matched_terms] == [("halt", "synonym")]

    def test_a_synonym_no_other_query_word_confirms_counts_less(self) -> None:
        tools = [
            make_tool("reserve_room", "Reserve a hotel room."),
            make_tool("reserve_trip", "Reserve a guided trip."),
            make_tool("plan_trip", "Plan a trip itinerary."),
        ]

        def score(weight: float, tool: str) -> float:
            index = make_index(
                tools, threshold=0, bm25=BM25Options(unconfirmed_synonym_weight=weight)
            )
            return next(h.score for h in index.search("book a trip") if h.tool.name == tool)

        # "book" ≈ reserve: reserve_trip also has "trip", reserve_room has nothing else.
        assert score(0.25, "reserve_room") == pytest.approx(0.25 * score(1.0, "reserve_room"))
        assert score(0.25, "reserve_trip") == pytest.approx(score(1.0, "reserve_trip"))
        assert names(make_index(tools, threshold=0).search("book a trip"))[0] == "reserve_trip"

    def test_a_one_word_query_keeps_its_synonyms_in_full(self) -> None:
        tools = [make_tool("reserve_room", "Reserve a hotel room."), *standard_tools()]

        def score(weight: float) -> float:
            index = make_index(
                tools, threshold=0, bm25=BM25Options(unconfirmed_synonym_weight=weight)
            )
            return index.search("book")[0].score

        assert score(0.25) == pytest.approx(score(1.0))

    def test_a_query_word_the_catalog_lacks_does_not_need_confirming(self) -> None:
        tools = [make_tool("reserve_room", "Reserve a hotel room."), *standard_tools()]
        index = make_index(tools, threshold=0)
        assert names(index.search("book quantumflux"))[0] == "reserve_room"
        hit = index.search("book quantumflux")[0]
        assert hit.score == pytest.approx(index.search("book")[0].score)

    def test_two_words_make_a_synonym_of_one(self) -> None:
        tools = [make_tool("open_link", "Open a URL in the browser."), *standard_tools()]
        hit = make_index(tools, threshold=0).search("web page")[0]
        assert hit.tool.name == "open_link"
        assert ("web page", "url", "synonym") in {
            (t.query_term, t.index_term, t.kind) for t in hit.matched_terms
        }

    @pytest.mark.parametrize("option", ["unconfirmed_synonym_weight", "supporting_cap"])
    def test_impossible_values_are_refused(self, option: str) -> None:
        with pytest.raises(SearchConfigError, match=option):
            BM25Options(**{option: -1})


def _parameters(descriptions: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            f"p{i}": {"type": "string", "description": text} for i, text in enumerate(descriptions)
        },
    }


_HOSTILE: dict[str, dict[str, Any]] = {
    "tags ×50": {"tags": ("weather", "forecast", "paris") * 50},
    "50 parameters 'weather forecast for Paris'": {
        "input_schema": _parameters(["weather forecast for Paris"] * 50)
    },
    "50 parameters 'weather forecast'": {"input_schema": _parameters(["weather forecast"] * 50)},
    "50 numbered parameters": {
        "input_schema": _parameters([f"weather forecast for Paris, option {i}" for i in range(50)])
    },
    "parameter names": {
        "input_schema": {
            "type": "object",
            "properties": {f"weather_forecast_paris_{i}": {"type": "string"} for i in range(50)},
        }
    },
    "enum values": {
        "input_schema": {
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "enum": [f"Paris weather forecast {i}" for i in range(50)],
                }
            },
        }
    },
    "all at once": {
        "tags": ("weather", "forecast", "paris") * 50,
        "input_schema": {
            "type": "object",
            "properties": {
                f"weather_forecast_paris_{i}": {
                    "type": "string",
                    "description": "weather forecast for Paris",
                }
                for i in range(50)
            },
        },
    },
}


@cache
def _demo_tools() -> list[Tool]:
    return list(Catalog.from_file(demo_catalog_path()))


class TestKeywordStuffing:
    @pytest.mark.parametrize("description", ["A helpful utility.", "Weather tool."])
    @pytest.mark.parametrize("stuffing", list(_HOSTILE), ids=list(_HOSTILE))
    def test_a_stuffed_tool_stays_below_the_real_weather_tools(
        self, stuffing: str, description: str
    ) -> None:
        hostile = Tool(name="handy_helper", description=description, **_HOSTILE[stuffing])
        index = ToolIndex([*_demo_tools(), hostile], engine="bm25", threshold=0)
        ranking = names(index.search("weather forecast for Paris", k=10))
        assert "handy_helper" not in ranking
        assert "weather" in ranking[0]

    def test_a_word_in_fifty_parameters_counts_no_more_than_in_one(self) -> None:
        def score(descriptions: list[str]) -> float:
            tool = Tool(
                name="helper", description="Does things.", input_schema=_parameters(descriptions)
            )
            (hit,) = make_index([tool, *standard_tools()], threshold=0).search("zebra")
            return hit.score

        assert score(["zebra stripes"] * 50) <= score(["zebra stripes"])
        assert score([f"zebra {i}" for i in range(50)]) <= score(["zebra stripes"])

    def test_supporting_fields_add_at_most_their_cap(self) -> None:
        def score(cap: float) -> float:
            tool = make_tool(
                "helper",
                "Does things.",
                parameters={"zebra": string_param("zebra zebra zebra")},
                tags=["zebra"],
            )
            index = make_index(
                [tool, *standard_tools()], threshold=0, bm25=BM25Options(supporting_cap=cap)
            )
            return index.search("zebra")[0].score

        assert score(2.0) == pytest.approx(2 * score(1.0))
        assert score(100.0) < 100 * score(1.0)

    def test_the_supporting_fields_still_tell_tools_apart(self) -> None:
        index = make_index(threshold=0)
        assert names(index.search("slack channel limit"))[0] == "list_slack_channels"


class TestChineseAndJapaneseTools:
    @pytest.mark.parametrize(
        ("query", "tool"),
        [
            ("北京明天的天气怎么样", "get_weather_cn"),
            ("帮我查一下从上海到北京的火车票", "search_train_tickets"),
            ("把这段话翻译成英文", "translate_text"),
            ("给张三发个微信消息", "send_wechat_message"),
            ("茅台股票现在多少钱", "stock_quote"),
            ("提取PDF里的文字", "read_pdf"),
            ("東京の天気を教えて", "jp_weather"),
        ],
    )
    def test_a_query_finds_the_tool_described_in_its_language(self, query: str, tool: str) -> None:
        index = ToolIndex([*CATALOG, *chinese_tools()], engine="bm25")
        assert names(index.search(query))[0] == tool

    @pytest.mark.parametrize(
        "query", ["weather forecast for Paris", "send an email to Bob", "list the tables"]
    )
    def test_english_queries_rank_as_before(self, query: str) -> None:
        english = ToolIndex(list(CATALOG), engine="bm25", threshold=0)
        mixed = ToolIndex([*CATALOG, *chinese_tools()], engine="bm25", threshold=0)
        found = [
            name
            for name in names(mixed.search(query))
            if name not in {t.name for t in chinese_tools()}
        ]
        assert found[:3] == names(english.search(query))[:3]


class TestScoresFollowTheRanking:
    @pytest.mark.parametrize(
        "query",
        [
            "what's the weather like in Paris tomorrow",
            "weather forecast for Paris",
            "book a flight from Boston to Denver",
            "convert 100 dollars to euros",
            "find a vegan restaurant nearby and book a table",
        ],
    )
    def test_on_the_demo_catalog(self, query: str) -> None:
        index = ToolIndex(_demo_tools(), engine="bm25", threshold=0)
        normalized = [hit.normalized_score for hit in index.search(query, k=50)]
        assert normalized == sorted(normalized, reverse=True)
