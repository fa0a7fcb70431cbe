"""BM25's analyses kept in the cache file: an index built from them ranks exactly as one that
analysed every tool, a changed tool is analysed again, and a damaged or unusable file costs
nothing but the time to analyse."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from tests.search.conftest import (
    forecast_tool_both_ways,
    make_tool,
    standard_tools,
    string_param,
)
from tests.search.embedding_support import counting_embedder
from toolscout.catalog import Catalog, Tool
from toolscout.data import demo_catalog_path
from toolscout.search import (
    AnalysisCache,
    BM25Options,
    SemanticOptions,
    ToolIndex,
    default_cache_path,
)
from toolscout.search.analysis_cache import KEPT_CATALOGS
from toolscout.search.bm25 import BM25Engine
from toolscout.search.hybrid import HybridEngine

QUERIES = [
    "what's the weather like in Paris tomorrow",
    "convert 100 dollars to euros",
    "send a message to the team channel",
    "area of a triangle with base 10 and height 5",
    "list the files in a folder",
    "weath",  # a prefix
    "get_current_weather",  # a tool's exact name
]


def rankings(engine: BM25Engine, queries: list[str] = QUERIES) -> list[list[tuple[int, float]]]:
    """Each query's top 10: positions and raw scores, to the bit."""
    ranked = []
    for query in queries:
        candidates = engine.rank(query, 10)
        ranked.append(list(zip(candidates.positions, candidates.scores, strict=True)))
    return ranked


@pytest.fixture(scope="module")
def demo_tools() -> list[Tool]:
    return Catalog.from_file(demo_catalog_path()).snapshot()[1]


class TestBM25FromTheCache:
    def test_an_index_built_from_cached_analyses_ranks_as_one_that_analysed(
        self, tmp_path: Path, demo_tools: list[Tool]
    ) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        analysed = BM25Engine(BM25Options(cache=False))
        analysed.rebuild(demo_tools)
        filling = BM25Engine(BM25Options(cache_path=cache_path))
        filling.rebuild(demo_tools)
        assert AnalysisCache(cache_path).count() == len({t.fingerprint for t in demo_tools})

        # As a new process would: a new engine, with nothing in memory but the file.
        from_cache = BM25Engine(BM25Options(cache_path=cache_path))
        from_cache.rebuild(demo_tools)
        assert rankings(from_cache) == rankings(analysed)
        assert rankings(filling) == rankings(analysed)

    def test_a_tool_cached_with_its_properties_in_another_order_ranks_as_analysed(
        self, tmp_path: Path
    ) -> None:
        # The same tool from two sources, its properties listed in another order: one
        # fingerprint, so the second index reads the analysis the first one cached.
        first, second = forecast_tool_both_ways()
        assert first.fingerprint == second.fingerprint
        others = standard_tools()
        cache_path = tmp_path / "cache.sqlite3"
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild([first, *others])
        from_cache = BM25Engine(BM25Options(cache_path=cache_path))
        from_cache.rebuild([second, *others])
        analysed = BM25Engine(BM25Options(cache=False))
        analysed.rebuild([second, *others])
        queries = [*QUERIES, "temperature city", "name units"]
        assert rankings(from_cache, queries) == rankings(analysed, queries)

    def test_a_changed_tool_is_analysed_again(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild(tools)
        changed = tools[0].model_copy(update={"description": "Tells the tide times of a harbour."})
        engine = BM25Engine(BM25Options(cache_path=cache_path))
        engine.rebuild([changed, *tools[1:]])
        assert engine.rank("tide times", 5).positions[:1] == [0]
        assert 0 not in engine.rank("conditions", 10).positions  # the old description

    def test_other_options_never_read_each_others_analyses(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        variants = [
            BM25Options(),
            BM25Options(word_pairs=False),
            BM25Options(field_weights={"name": 1.0, "description": 1.0}),
            BM25Options(language="french"),
        ]
        for options in variants:  # each fills the same file in turn
            BM25Engine(dataclasses.replace(options, cache_path=cache_path)).rebuild(tools)
        for options in variants:
            uncached = BM25Engine(dataclasses.replace(options, cache=False))
            uncached.rebuild(tools)
            cached = BM25Engine(dataclasses.replace(options, cache_path=cache_path))
            cached.rebuild(tools)
            assert rankings(cached) == rankings(uncached)
        assert AnalysisCache(cache_path).count() == len(variants) * len(tools)

    def test_tools_with_the_same_text_share_one_analysis(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        twins = [
            make_tool("read_file", "Read a file.", namespace=server, parameters={"path": {}})
            for server in ("left", "right")
        ]
        twins.append(make_tool("read_file", "Read a file.", parameters={"path": {}}))
        engine = BM25Engine(BM25Options(cache_path=cache_path))
        engine.rebuild(twins)
        assert AnalysisCache(cache_path).count() == 3  # the namespace is searchable text
        assert sorted(engine.rank("read a file", 5).positions) == [0, 1, 2]

    def test_a_damaged_row_is_analysed_again(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild(tools)
        with sqlite3.connect(cache_path) as connection:
            # Lengths that do not add up to the terms, lengths of the wrong size, no terms.
            rows = connection.execute("SELECT rowid FROM analyses ORDER BY rowid").fetchall()
            connection.execute(
                "UPDATE analyses SET field_lengths = ? WHERE rowid = ?",
                (np.full(7, 1_000, dtype=np.int32).tobytes(), rows[0][0]),
            )
            connection.execute(
                "UPDATE analyses SET field_lengths = x'00' WHERE rowid = ?", (rows[1][0],)
            )
            connection.execute("UPDATE analyses SET terms = 42 WHERE rowid = ?", (rows[2][0],))
            # Else the whole catalog is read back, and no tool's row at all.
            connection.execute("DELETE FROM catalog_analyses")
        uncached = BM25Engine(BM25Options(cache=False))
        uncached.rebuild(tools)
        cached = BM25Engine(BM25Options(cache_path=cache_path))
        cached.rebuild(tools)
        assert rankings(cached) == rankings(uncached)

    def test_an_unusable_file_warns_once_and_search_still_works(self, tmp_path: Path) -> None:
        folder = tmp_path / "a-folder"
        folder.mkdir()
        engine = BM25Engine(BM25Options(cache_path=folder))
        with pytest.warns(RuntimeWarning, match="analysis cache .* unusable"):
            engine.rebuild(standard_tools())
        assert engine.rank("current weather", 3).positions[:1] == [0]
        engine.rebuild(standard_tools()[:3])  # no second warning, no error


def no_tool_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make looking up tools' analyses one by one fail the test."""

    def refuse(*_: object) -> None:
        raise AssertionError("the analyses were looked up tool by tool")

    monkeypatch.setattr(AnalysisCache, "get", refuse)


class TestWholeCatalogs:
    def test_a_catalog_indexed_before_is_read_back_whole_and_ranks_the_same(
        self, tmp_path: Path, demo_tools: list[Tool], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild(demo_tools)
        uncached = BM25Engine(BM25Options(cache=False))
        uncached.rebuild(demo_tools)

        with monkeypatch.context() as patched:
            no_tool_looked_up(patched)
            again = BM25Engine(BM25Options(cache_path=cache_path))
            again.rebuild(demo_tools)
        assert rankings(again) == rankings(uncached)

        # The index read back takes changes as one it built itself does.
        changed = [
            demo_tools[0].model_copy(update={"description": "Tells the tide times of a harbour."}),
            *demo_tools[1:-1],
            make_tool("tide_tables", "Tide tables for a harbour.", parameters={"port": {}}),
        ]
        again.rebuild(changed)
        uncached.rebuild(changed)
        assert rankings(again, [*QUERIES, "tide times of the harbour"]) == rankings(
            uncached, [*QUERIES, "tide times of the harbour"]
        )

    def test_the_same_tools_in_another_order_are_another_catalog(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild(tools)
        reversed_tools = tools[::-1]
        cached = BM25Engine(BM25Options(cache_path=cache_path))
        cached.rebuild(reversed_tools)
        uncached = BM25Engine(BM25Options(cache=False))
        uncached.rebuild(reversed_tools)
        assert rankings(cached) == rankings(uncached)

    @pytest.mark.parametrize(
        ("column", "value"),
        [
            ("vocabulary", "weather\nweather"),  # a term twice
            ("vocabulary", ""),  # every id out of range
            ("vocabulary", 42),
            ("term_ids", np.array([1_000_000], dtype=np.int32).tobytes()),
            ("term_ids", np.array([-1], dtype=np.int32).tobytes()),
            ("term_ids", b"\x00"),
            ("field_lengths", b"\x00" * 8),  # not one row per tool
            ("field_lengths", "text"),
        ],
    )
    def test_a_damaged_catalog_record_is_analysed_again(
        self, tmp_path: Path, column: str, value: object
    ) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild(tools)
        with sqlite3.connect(cache_path) as connection:
            assert connection.execute(f"UPDATE catalog_analyses SET {column} = ?", (value,))
        uncached = BM25Engine(BM25Options(cache=False))
        uncached.rebuild(tools)
        cached = BM25Engine(BM25Options(cache_path=cache_path))
        cached.rebuild(tools)
        assert rankings(cached) == rankings(uncached)

    def test_lengths_that_do_not_add_up_or_a_reordered_vocabulary_are_not_read(
        self, tmp_path: Path
    ) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        BM25Engine(BM25Options(cache_path=cache_path)).rebuild(tools)
        with sqlite3.connect(cache_path) as connection:
            vocabulary, lengths = connection.execute(
                "SELECT vocabulary, field_lengths FROM catalog_analyses"
            ).fetchone()
        shape = (len(tools), -1)
        damaged = [
            ("field_lengths", (np.frombuffer(lengths, dtype=np.int32) + 1).tobytes()),
            ("field_lengths", (-np.frombuffer(lengths, dtype=np.int32).reshape(shape)).tobytes()),
            # The same words in another order: each id would stand for another word.
            ("vocabulary", "\n".join(sorted(vocabulary.split("\n")))),
        ]
        uncached = BM25Engine(BM25Options(cache=False))
        uncached.rebuild(tools)
        for column, value in damaged:
            with sqlite3.connect(cache_path) as connection:
                connection.execute("DELETE FROM analyses")  # nothing to fall back on but analysis
                connection.execute(f"UPDATE catalog_analyses SET {column} = ?", (value,))
            cached = BM25Engine(BM25Options(cache_path=cache_path))
            cached.rebuild(tools)
            assert rankings(cached) == rankings(uncached), column

    def test_only_the_last_catalogs_written_are_kept(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = standard_tools()
        catalogs = [
            [*tools, make_tool(f"tool_{n}", f"Tool number {n}.")] for n in range(KEPT_CATALOGS + 3)
        ]
        for catalog in catalogs:
            BM25Engine(BM25Options(cache_path=cache_path)).rebuild(catalog)
        with sqlite3.connect(cache_path) as connection:
            kept = connection.execute("SELECT COUNT(*) FROM catalog_analyses").fetchone()[0]
        assert kept == KEPT_CATALOGS
        AnalysisCache(cache_path).clear()
        with sqlite3.connect(cache_path) as connection:
            assert connection.execute("SELECT COUNT(*) FROM catalog_analyses").fetchone()[0] == 0


class TestWhereAnalysesAreKept:
    def test_bm25_keeps_them_in_the_user_cache_file_unless_told_otherwise(self) -> None:
        engine = BM25Engine()
        assert engine.cache is not None
        assert engine.cache.path == default_cache_path()
        assert BM25Engine(BM25Options(cache=False)).cache is None

    def test_an_index_without_the_cache_writes_nothing(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        options = BM25Options(cache=False, cache_path=cache_path)
        index = ToolIndex(standard_tools(), engine="bm25", bm25=options)
        assert index.search("current weather", k=1)
        assert not cache_path.exists()

    def test_hybrid_keeps_them_beside_the_embeddings_unless_bm25_names_a_file(
        self, tmp_path: Path
    ) -> None:
        embedder, _ = counting_embedder()
        semantic = SemanticOptions(embedder=embedder, cache_path=tmp_path / "shared.sqlite3")
        beside = HybridEngine(semantic=semantic)
        assert beside.bm25.cache is not None
        assert beside.bm25.cache.path == tmp_path / "shared.sqlite3"
        named = HybridEngine(BM25Options(cache_path=tmp_path / "own.sqlite3"), semantic)
        assert named.bm25.cache is not None
        assert named.bm25.cache.path == tmp_path / "own.sqlite3"
        assert HybridEngine(BM25Options(cache=False), semantic).bm25.cache is None


class TestHybridKeepsBothSidesInOneFile:
    def test_a_new_index_finds_vectors_and_analyses_in_the_cache_file(self, tmp_path: Path) -> None:
        cache_path = tmp_path / "cache.sqlite3"
        tools = [
            *standard_tools(),
            make_tool("forecast", "Tomorrow's forecast.", parameters={"city": string_param()}),
        ]
        embedder, _ = counting_embedder()
        options = SemanticOptions(embedder=embedder, cache_path=cache_path)
        first = ToolIndex(tools, engine="hybrid", semantic=options)
        first.search("weather", k=1)  # an index is built at its first search
        assert AnalysisCache(cache_path).count() == len(tools)

        embedder, function = counting_embedder()
        again = ToolIndex(
            tools,
            engine="hybrid",
            semantic=SemanticOptions(embedder=embedder, cache_path=cache_path),
        )
        for query in QUERIES:
            expected = [(hit.tool.id, hit.score) for hit in first.search(query, k=10)]
            assert [(hit.tool.id, hit.score) for hit in again.search(query, k=10)] == expected
        assert function.embedded == QUERIES  # the queries only: every tool text was cached

    def test_no_cache_file_means_no_analysis_cache(self, tmp_path: Path) -> None:
        embedder, _ = counting_embedder()
        index = ToolIndex(
            standard_tools(),
            engine="hybrid",
            semantic=SemanticOptions(embedder=embedder, cache=False, cache_path=tmp_path / "x"),
        )
        assert index.search("current weather", k=1)[0].tool.name == "get_current_weather"
        assert not (tmp_path / "x").exists()
