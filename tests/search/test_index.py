"""`ToolIndex` over a live catalog: changes at run time, every tool searched, filters, engine
choice."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from toolscout.catalog import Catalog, Tool
from toolscout.errors import SearchConfigError
from toolscout.search import AnalysisCache, BM25Engine, ToolIndex

from .conftest import make_catalog, make_index, make_tool, names, standard_tools


@pytest.fixture
def analyse_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the tools BM25 analyses, in order (a spy around `BM25Engine._analyse`).
    The analysis cache finds nothing, as on a first run: what an index reuses in memory is
    what is counted."""
    calls: list[str] = []
    original = BM25Engine._analyse

    def spy(self: BM25Engine, tool: Tool) -> Any:
        calls.append(tool.name)
        return original(self, tool)

    monkeypatch.setattr(BM25Engine, "_analyse", spy)
    monkeypatch.setattr(AnalysisCache, "get", lambda self, analyzer, fingerprints: {})
    monkeypatch.setattr(AnalysisCache, "get_catalog", lambda self, key, tools: None)
    yield calls


class TestLiveCatalog:
    def test_added_tool_is_found_at_the_next_search(self, catalog: Catalog, engine: str) -> None:
        index = make_index(catalog, engine)
        assert names(index.search("zeppelin")) == []
        catalog.add(make_tool("track_zeppelin", "Track a zeppelin's position."))
        assert names(index.search("zeppelin")) == ["track_zeppelin"]

    def test_added_tool_in_another_shape_is_found(self, catalog: Catalog, engine: str) -> None:
        index = make_index(catalog, engine)
        catalog.add(
            {
                "type": "function",
                "function": {
                    "name": "track_zeppelin",
                    "description": "Track a zeppelin.",
                    "parameters": {"type": "object", "properties": {"callsign": {}}},
                },
            }
        )
        assert names(index.search("zeppelin")) == ["track_zeppelin"]
        assert names(index.search("callsign", threshold=0)) == ["track_zeppelin"]

    def test_removed_tool_is_gone_at_the_next_search(self, catalog: Catalog, engine: str) -> None:
        index = make_index(catalog, engine)
        assert "delete_file" in names(index.search("delete"))
        catalog.remove("files__delete_file")
        assert "delete_file" not in names(index.search("delete", k=20, threshold=0))

    def test_removed_tool_words_no_longer_match(self, catalog: Catalog) -> None:
        index = make_index(catalog)
        catalog.remove("weather__get_forecast")
        results = index.search("rain probability", threshold=0)
        assert list(results) == []
        assert results.notice

    def test_replaced_tool_is_searched_by_its_new_text(self, catalog: Catalog, engine: str) -> None:
        index = make_index(catalog, engine)
        old = catalog["files__read_file"]
        catalog.replace(old.model_copy(update={"description": "Read a zeppelin manifest."}))
        assert names(index.search("zeppelin", threshold=0)) == ["read_file"]
        assert "read_file" not in names(index.search("contents", threshold=0))

    def test_hit_carries_the_new_schema_never_a_stale_copy(
        self, catalog: Catalog, engine: str
    ) -> None:
        index = make_index(catalog, engine)
        assert names(index.search("forecast"))[0] == "get_forecast"
        old = catalog["weather__get_forecast"]
        new_schema = {
            "type": "object",
            "properties": {"location": {"type": "string"}, "hourly": {"type": "boolean"}},
        }
        catalog.replace(old.model_copy(update={"input_schema": new_schema}))
        hit = index.search("forecast")[0]
        assert hit.tool.input_schema == new_schema
        assert hit.tool is catalog["weather__get_forecast"]

    def test_edits_copied_from_one_original_are_each_searched(
        self, catalog: Catalog, engine: str
    ) -> None:
        # The documented way to change a tool is `model_copy(update=...)`; two edits made from
        # the same original must both take effect, whatever the index compared in between.
        index = make_index(catalog, engine, threshold=0)
        index.search("file")
        original = catalog["files__read_file"]
        catalog.replace(original.model_copy(update={"metadata": {"v": 2}}))
        index.search("file")
        catalog.replace(original.model_copy(update={"description": "Read a zeppelin manifest."}))
        assert names(index.search("zeppelin")) == ["read_file"]
        catalog.replace(original.model_copy(update={"tags": ("blimp",)}))
        assert names(index.search("zeppelin")) == []
        assert names(index.search("blimp")) == ["read_file"]

    def test_hit_carries_new_metadata_even_when_nothing_searchable_changed(
        self, catalog: Catalog, engine: str
    ) -> None:
        index = make_index(catalog, engine)
        index.search("forecast")
        old = catalog["weather__get_forecast"]
        catalog.replace(old.model_copy(update={"metadata": {"version": 2}}))
        hit = index.search("forecast")[0]
        assert hit.tool.metadata == {"version": 2}
        assert hit.tool is catalog["weather__get_forecast"]

    def test_replaced_tool_keeps_its_place_for_ties(self, engine: str) -> None:
        twins = [make_tool(n, "Convert currencies.") for n in ["first", "second", "third"]]
        catalog = make_catalog(*twins)
        index = make_index(catalog, engine, threshold=0)
        catalog.replace(twins[0].model_copy(update={"metadata": {"v": 2}}))
        assert names(index.search("currencies")) == ["first", "second", "third"]

    def test_re_added_tool_moves_to_the_end_of_the_order(self, engine: str) -> None:
        twins = [make_tool(n, "Convert currencies.") for n in ["first", "second", "third"]]
        catalog = make_catalog(*twins)
        index = make_index(catalog, engine, threshold=0)
        catalog.remove("first")
        catalog.add(twins[0])
        assert names(index.search("currencies")) == ["second", "third", "first"]

    def test_emptied_catalog_finds_nothing(self, catalog: Catalog, engine: str) -> None:
        index = make_index(catalog, engine)
        assert index.search("weather")
        catalog.remove(*[tool.id for tool in catalog])
        results = index.search("weather")
        assert list(results) == []
        assert results.notice

    def test_refresh_reports_whether_the_catalog_changed(self, catalog: Catalog) -> None:
        index = make_index(catalog)
        assert index.refresh() is True
        assert index.refresh() is False
        catalog.add(make_tool("new_tool", "New."))
        assert index.refresh() is True
        assert index.refresh() is False

    def test_tools_lists_the_searchable_tools_in_catalog_order(self, catalog: Catalog) -> None:
        index = make_index(catalog)
        assert [tool.name for tool in index.tools] == [tool.name for tool in standard_tools()]
        catalog.add(make_tool("new_tool", "New."))
        assert index.tools[-1].name == "new_tool"


class TestReanalysis:
    def test_each_tool_is_analysed_once_when_first_indexed(
        self, catalog: Catalog, analyse_calls: list[str]
    ) -> None:
        index = make_index(catalog)
        index.search("weather")
        index.search("email")
        assert sorted(analyse_calls) == sorted(tool.name for tool in standard_tools())

    def test_only_a_changed_tool_is_analysed_again(
        self, catalog: Catalog, analyse_calls: list[str]
    ) -> None:
        index = make_index(catalog)
        index.refresh()
        analyse_calls.clear()
        old = catalog["files__read_file"]
        catalog.replace(old.model_copy(update={"description": "Read a zeppelin manifest."}))
        assert names(index.search("zeppelin", threshold=0)) == ["read_file"]
        assert analyse_calls == ["read_file"]

    def test_adding_a_tool_analyses_only_that_tool(
        self, catalog: Catalog, analyse_calls: list[str]
    ) -> None:
        index = make_index(catalog)
        index.refresh()
        analyse_calls.clear()
        catalog.add(make_tool("track_zeppelin", "Track a zeppelin."))
        index.search("zeppelin")
        assert analyse_calls == ["track_zeppelin"]

    def test_removing_a_tool_analyses_nothing(
        self, catalog: Catalog, analyse_calls: list[str]
    ) -> None:
        index = make_index(catalog)
        index.refresh()
        analyse_calls.clear()
        catalog.remove("files__read_file")
        assert names(index.search("file"))[0] == "delete_file"
        assert analyse_calls == []

    @pytest.mark.parametrize(
        "update", [{"metadata": {"v": 2}}, {"deferred": False}, {"handler": print}]
    )
    def test_a_change_search_cannot_see_analyses_nothing(
        self, catalog: Catalog, analyse_calls: list[str], update: dict[str, Any]
    ) -> None:
        index = make_index(catalog)
        index.refresh()
        analyse_calls.clear()
        catalog.replace(catalog["files__read_file"].model_copy(update=update))
        assert names(index.search("read file"))[0] == "read_file"
        assert analyse_calls == []

    def test_searching_without_changes_analyses_nothing(
        self, catalog: Catalog, analyse_calls: list[str]
    ) -> None:
        index = make_index(catalog)
        index.refresh()
        analyse_calls.clear()
        for query in ["weather", "email", "file", "zeppelin"]:
            index.search(query)
        assert analyse_calls == []


class TestEveryToolIsSearched:
    """The index ranks every tool it is handed; keeping pinned tools out of results is tool
    search's rule (`toolscout.protocol.view`), asked through `filter`."""

    def test_pinned_tools_are_ranked_like_any_other(self, engine: str) -> None:
        pinned = make_tool("get_current_weather", "Get the current weather.", pinned=True)
        tools = [pinned, *standard_tools()[1:]]
        index = make_index(tools, engine, threshold=0)
        for query in ["get_current_weather", "current weather"]:
            assert names(index.search(query, k=20))[0] == "get_current_weather"
        assert "get_current_weather" in [tool.name for tool in index.tools]

    def test_pinning_at_run_time_leaves_the_results_as_they_were(
        self, catalog: Catalog, engine: str
    ) -> None:
        index = make_index(catalog, engine)
        before = index.search("delete", k=20, threshold=0)
        catalog.replace(catalog["files__delete_file"].model_copy(update={"pinned": True}))
        after = index.search("delete", k=20, threshold=0)
        assert "delete_file" in names(after)
        assert names(after) == names(before)
        assert [hit.score for hit in after] == pytest.approx([hit.score for hit in before])

    def test_a_catalog_of_only_pinned_tools_finds_them(self, engine: str) -> None:
        index = make_index([make_tool("weather", "Weather.", pinned=True)], engine)
        assert names(index.search("weather")) == ["weather"]

    def test_a_filter_keeps_tools_out_of_the_results_not_out_of_the_ranking(
        self, engine: str
    ) -> None:
        pinned = make_tool("get_current_weather", "Get the current weather.", pinned=True)
        tools = [pinned, *standard_tools()[1:]]
        index = make_index(tools, engine, threshold=0)
        unpinned = lambda tool: not tool.pinned  # noqa: E731 - the rule tool search hands in
        for query in ["get_current_weather", "current weather", "weather"]:
            results = index.search(query, k=20, filter=unpinned)
            assert "get_current_weather" not in names(results)
        # The statistics are the whole catalog's: a filtered search scores a tool as an
        # unfiltered one does.
        everything = {hit.tool.name: hit.score for hit in index.search("weather", k=20)}
        for hit in index.search("weather", k=20, filter=unpinned):
            assert hit.score == pytest.approx(everything[hit.tool.name])


def _numbered_twins(count: int) -> list[Tool]:
    return [
        make_tool(f"convert_{i}", "Convert currencies.", tags=[str(i % 2)]) for i in range(count)
    ]


class TestFilters:
    def test_filter_is_applied_before_k(self, engine: str) -> None:
        index = make_index(_numbered_twins(10), engine, threshold=0)
        results = index.search("currencies", k=3, filter=lambda tool: tool.tags == ("1",))
        assert names(results) == ["convert_1", "convert_3", "convert_5"]

    def test_filter_deep_in_a_long_ranking_still_fills_k(self, engine: str) -> None:
        twins = _numbered_twins(300)
        index = make_index(twins, engine, threshold=0)
        results = index.search("currencies", k=4, filter=lambda tool: tool.name.endswith("9"))
        assert names(results) == ["convert_9", "convert_19", "convert_29", "convert_39"]

    def test_filtered_tools_are_never_returned(self, engine: str) -> None:
        index = make_index(engine=engine, threshold=0)
        hidden = {"files__delete_file", "email__send_email"}
        for query in ["delete file", "send email", "file", "e"]:
            for hit in index.search(query, k=20, filter=lambda tool: tool.id not in hidden):
                assert hit.tool.id not in hidden

    def test_filter_that_rejects_everything_returns_a_notice(self, engine: str) -> None:
        index = make_index(engine=engine)
        results = index.search("weather", filter=lambda tool: False)
        assert list(results) == []
        assert results.notice

    def test_notice_blames_the_filter_only_when_it_turned_a_tool_away(self) -> None:
        index = make_index()
        denied = index.search("weather", filter=lambda tool: False)
        assert denied.notice and "you may use" in denied.notice
        too_weak = index.search("weather", threshold=0.99, filter=lambda tool: True)
        assert too_weak.notice and "relevant enough" in too_weak.notice

    def test_filter_sees_current_tools(self, catalog: Catalog, engine: str) -> None:
        seen: list[Tool] = []
        index = make_index(catalog, engine)
        catalog.replace(catalog["files__read_file"].model_copy(update={"tags": ("zeppelin",)}))
        index.search("zeppelin", threshold=0, filter=lambda tool: seen.append(tool) or True)
        assert seen == [catalog["files__read_file"]]

    def test_filter_by_namespace(self, index: ToolIndex) -> None:
        results = index.search(
            "list", k=10, threshold=0, filter=lambda tool: tool.namespace == "github"
        )
        assert names(results) == ["list_pull_requests"]

    def test_ranks_count_kept_hits_only(self, engine: str) -> None:
        index = make_index(_numbered_twins(10), engine, threshold=0)
        results = index.search("currencies", k=5, filter=lambda tool: tool.tags == ("0",))
        assert [hit.rank for hit in results] == [1, 2, 3, 4, 5]


class TestEngineChoice:
    def test_unknown_engine_is_refused_with_the_choices(self) -> None:
        with pytest.raises(SearchConfigError, match=r"'vector'.*bm25.*regex.*semantic.*hybrid"):
            ToolIndex(make_catalog(), engine="vector")  # type: ignore[arg-type]

    def test_both_engines_answer_a_plain_phrase(self, engine: str) -> None:
        # "current weather" is words for BM25 and a literal pattern for regex.
        assert names(make_index(engine=engine).search("current weather"))[0] == (
            "get_current_weather"
        )

    def test_index_accepts_a_plain_list_of_tools(self) -> None:
        index = ToolIndex(standard_tools())
        assert isinstance(index.catalog, Catalog)
        assert names(index.search("slack message"))[0] == "sendSlackMessage"

    def test_index_accepts_dict_definitions(self) -> None:
        index = ToolIndex(
            [
                {"name": "get_stock_price", "description": "Latest price of a stock ticker."},
                {"name": "buy_stock", "description": "Place a buy order.", "parameters": {}},
            ]
        )
        assert names(index.search("stock price"))[0] == "get_stock_price"


class TestConcurrency:
    def test_searches_during_catalog_changes_only_return_real_tools(self, engine: str) -> None:
        catalog = make_catalog()
        index = make_index(catalog, engine, threshold=0)
        added = [make_tool(f"weather_station_{i}", "Read a weather station.") for i in range(40)]
        known_ids = {tool.id for tool in standard_tools()} | {tool.id for tool in added}
        errors: list[BaseException] = []
        stop = threading.Event()

        def search_repeatedly() -> None:
            try:
                while not stop.is_set():
                    for hit in index.search("weather station", k=10):
                        assert hit.tool.id in known_ids
                        assert not hit.tool.pinned
            except BaseException as error:  # reported in the main thread
                errors.append(error)

        threads = [threading.Thread(target=search_repeatedly) for _ in range(3)]
        for thread in threads:
            thread.start()
        try:
            for tool in added:
                catalog.add(tool)
                catalog.replace(tool.model_copy(update={"description": "A weather station."}))
            for tool in added[::2]:
                catalog.remove(tool.id)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        assert errors == []
        final = names(index.search("weather station", k=100))
        stations = [name for name in final if name.startswith("weather_station_")]
        assert sorted(stations) == sorted(tool.name for tool in added[1::2])


class TestBatchConsistency:
    def test_a_batch_sees_one_state_of_the_catalog(self) -> None:
        catalog = make_catalog(*standard_tools())
        index = ToolIndex(catalog)

        added: list[bool] = []

        def add_once(tool: Tool) -> bool:  # changes the catalog in the middle of the batch
            if not added:
                added.append(True)
                catalog.add(make_tool("zeppelin_tracker", "Track a zeppelin."))
            return True

        first, second = index.search_many(["weather", "zeppelin"], filter=add_once)
        assert names(first)
        assert names(second) == []  # added during the batch: visible from the next search on
        assert names(index.search("zeppelin")) == ["zeppelin_tracker"]
