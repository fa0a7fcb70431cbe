"""Properties that hold for any catalog and any query, checked on generated ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolscout.catalog import Catalog, Tool
from toolscout.search import (
    MAX_K,
    Analyzer,
    CallableEmbedder,
    SemanticOptions,
    ToolIndex,
    highlight_spans,
    split_needs,
)

from .conftest import ENGINES, names
from .embedding_support import hashed_vectors

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Words drawn from a small vocabulary, so that generated queries often hit generated tools.
_WORDS = [
    *"get send weather email file delete list user slack data fetch remove".split(),  # noqa: SIM905
    *"天气 查询 天气预报".split(),  # noqa: SIM905
]
_word = st.sampled_from(_WORDS)

_identifier = st.one_of(
    st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,12}([_.\-][A-Za-z0-9]{1,10}){0,3}", fullmatch=True),
    st.lists(_word, min_size=1, max_size=3).map(
        lambda ws: ws[0] + "".join(w.title() for w in ws[1:])
    ),
    st.lists(_word, min_size=1, max_size=3).map("_".join),
)
_text = st.one_of(
    st.text(max_size=120),
    st.lists(st.one_of(_word, st.text(max_size=12)), max_size=12).map(" ".join),
)


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "boolean"])},
        optional={
            "description": _text,
            "enum": st.lists(st.one_of(_word, st.integers(), st.none(), st.booleans())),
            "$ref": st.sampled_from(["#/$defs/Shared", "#", "#/$defs/Missing", "http://x/y"]),
        },
    )

    def extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        return st.one_of(
            st.fixed_dictionaries(
                {
                    "type": st.just("object"),
                    "properties": st.dictionaries(_identifier, children, max_size=3),
                }
            ),
            st.fixed_dictionaries({"type": st.just("array"), "items": children}),
            st.fixed_dictionaries({"anyOf": st.lists(children, max_size=3)}),
        )

    parameter = st.recursive(leaf, extend, max_leaves=6)
    return st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(_identifier, parameter, max_size=4),
        },
        optional={"$defs": st.fixed_dictionaries({"Shared": parameter})},
    )


# Built once: a strategy built anew for every tool drawn costs more than running the test.
_schema = _schemas()


@st.composite
def _tools(draw: st.DrawFn, max_size: int = 8) -> list[Tool]:
    tool_names = draw(st.lists(_identifier, min_size=0, max_size=max_size, unique=True))
    return [
        Tool(
            name=name,
            description=draw(_text),
            namespace=draw(st.one_of(st.none(), st.sampled_from(["weather", "mail", "files"]))),
            input_schema=draw(_schema),
            tags=draw(st.lists(st.one_of(_word, st.text(max_size=8)), max_size=3)),
            pinned=draw(st.booleans()) and draw(st.booleans()),
        )
        for name in tool_names
    ]


_query = st.one_of(
    st.text(max_size=80),
    st.lists(_word, min_size=1, max_size=4).map(" ".join),
    _identifier,
    st.lists(st.one_of(_word, st.text(max_size=10)), max_size=6).map(" ".join),
)

# Pieces of regex syntax, valid and not, that RE2 and the layout of tool text might trip on.
_REGEX_PIECES = [
    *r"( ) [ ] { } * + ? | ^ $ . \ \1 \d \w \b \C \p{L} \pN (?i) (?= (?<! (?P<n>".split(),  # noqa: SIM905
    *"{2,3} {1000} a e send weather é 🎉 ת".split(),  # noqa: SIM905
    " ",
    "\n",
]
_pattern = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(_REGEX_PIECES), max_size=12).map("".join),
    st.from_regex(r"[a-z^$.*+?|()\[\]\\]{0,20}", fullmatch=True),
)


def _check_results(catalog: Catalog, results: Any, k: int) -> None:
    assert len(results) <= k
    ids = [hit.tool.id for hit in results]
    assert len(ids) == len(set(ids))
    # Raw scores order the hits of one ranking: the whole request's, or one need's.
    for need in {hit.need for hit in results}:
        scores = [hit.score for hit in results if hit.need == need]
        assert scores == sorted(scores, reverse=True)
    normalized = [hit.normalized_score for hit in results]
    assert normalized == sorted(normalized, reverse=True)
    assert [hit.rank for hit in results] == list(range(1, len(results) + 1))
    for hit in results:
        assert hit.tool is catalog[hit.tool.id]
        assert 0.0 <= hit.normalized_score <= 1.0
        assert hit.score > 0
    if not results:
        assert results.notice


class TestSearchNeverBreaks:
    @pytest.mark.parametrize("engine", ENGINES)
    @SETTINGS
    @given(
        tools=_tools(),
        queries=st.lists(_query, min_size=1, max_size=4),
        k=st.integers(1, MAX_K),
        threshold=st.floats(0, 1),
    )
    # Two needs whose hits take turns: the second hit's raw score, of the other need's ranking,
    # is above the first's.
    @example(
        tools=[Tool(name=name) for name in ("A", "C", "get", "A0", "getGet")],
        queries=["GET/C! Get/Get"],
        k=2,
        threshold=0.0,
    )
    def test_hits_are_catalog_tools_unique_sorted_and_bounded(
        self, engine: str, tools: list[Tool], queries: list[str], k: int, threshold: float
    ) -> None:
        catalog = Catalog(tools)
        index = ToolIndex(catalog, engine=engine)  # type: ignore[arg-type]
        for query in queries:
            results = index.search(query, k=k, threshold=threshold)
            _check_results(catalog, results, k)
            assert not results or results[0].normalized_score >= threshold

    @SETTINGS
    @given(tools=_tools(), pattern=_pattern, k=st.integers(1, 20))
    def test_regex_never_raises_for_any_pattern(
        self, tools: list[Tool], pattern: str, k: int
    ) -> None:
        catalog = Catalog(tools)
        results = ToolIndex(catalog, engine="regex").search(pattern, k=k)
        _check_results(catalog, results, k)
        ranked = [tool.id for tool in catalog]  # every tool, pinned ones too
        positions = [ranked.index(hit.tool.id) for hit in results]
        assert positions == sorted(positions)  # catalog order

    @pytest.mark.parametrize("engine", ENGINES)
    @SETTINGS
    @given(tools=_tools(max_size=12), query=_query, k=st.integers(1, 6), keep=st.integers(2, 3))
    def test_filtering_equals_dropping_from_the_full_ranking(
        self, engine: str, tools: list[Tool], query: str, k: int, keep: int
    ) -> None:
        index = ToolIndex(tools, engine=engine, threshold=0)  # type: ignore[arg-type]

        def wanted(tool: Tool) -> bool:
            return len(tool.name) % keep == 0

        everything = index.search(query, k=MAX_K)
        filtered = index.search(query, k=k, filter=wanted)
        assert names(filtered) == [hit.tool.name for hit in everything if wanted(hit.tool)][:k]


def _scored_index(engine: str, tools: list[Tool], folder: Path) -> ToolIndex:
    """BM25, or hybrid with word-hashing vectors: fast, and like a model in that texts sharing
    words point the same way."""
    semantic = SemanticOptions(
        CallableEmbedder(hashed_vectors, model_id="hashed"),
        cache_path=folder / "vectors.sqlite3",
        progress=False,
    )
    return ToolIndex(tools, engine=engine, threshold=0, semantic=semantic)  # type: ignore[arg-type]


class TestNormalizedScores:
    @pytest.mark.parametrize("engine", ["bm25", "hybrid"])
    @SETTINGS
    @given(
        tools=_tools(max_size=12),
        query=_query,
        threshold=st.sampled_from([0.0, 0.2, 0.4, 0.6]),
    )
    def test_they_never_rise_down_the_ranking_and_the_threshold_judges_the_best(
        self,
        engine: str,
        tmp_path_factory: pytest.TempPathFactory,
        tools: list[Tool],
        query: str,
        threshold: float,
    ) -> None:
        index = _scored_index(engine, tools, tmp_path_factory.mktemp("vectors"))
        everything = index.search(query, k=MAX_K)
        normalized = [hit.normalized_score for hit in everything]
        assert normalized == sorted(normalized, reverse=True)
        assert all(0 <= score <= 1 for score in normalized)
        # The threshold answers whether any tool fits; then the hits that reach half of it
        # and a third of the best come too.
        kept = index.search(query, k=MAX_K, threshold=threshold)
        if len(split_needs(query)) > 1:
            # Each need is judged by its own best: what is kept is some of the hits, in order.
            kept_names = names(kept)
            assert kept_names == [name for name in names(everything) if name in kept_names]
            assert kept or kept.notice is not None
        elif everything and everything[0].normalized_score >= threshold:
            best = everything[0].normalized_score
            floor = max(threshold / 2, best / 3) if threshold > 0 else 0.0
            assert names(kept) == [
                hit.tool.name for hit in everything if hit.normalized_score >= floor
            ]
        else:
            assert list(kept) == [] and kept.notice is not None


class TestLiveCatalogMatchesAFreshIndex:
    @pytest.mark.parametrize("engine", ENGINES)
    @SETTINGS
    @given(
        initial=_tools(max_size=6),
        changes=st.lists(
            st.tuples(st.sampled_from(["add", "remove", "replace", "pin"]), _tools(max_size=1)),
            max_size=6,
        ),
        queries=st.lists(_query, min_size=1, max_size=3),
    )
    def test_incremental_updates_rank_like_a_rebuild(
        self,
        engine: str,
        initial: list[Tool],
        changes: list[tuple[str, list[Tool]]],
        queries: list[str],
    ) -> None:
        catalog = Catalog(initial)
        live = ToolIndex(catalog, engine=engine, threshold=0)  # type: ignore[arg-type]
        live.search("warm up")
        for action, new_tools in changes:
            current = list(catalog)
            if action == "add" and new_tools and new_tools[0].id not in catalog:
                catalog.add(new_tools)
            elif action == "remove" and current:
                catalog.remove(current[0].id)
            elif action == "replace" and current and new_tools:
                update = {"description": new_tools[0].description, "tags": new_tools[0].tags}
                catalog.replace(current[-1].model_copy(update=update))
            elif action == "pin" and current:
                target = current[len(current) // 2]
                catalog.replace(target.model_copy(update={"pinned": not target.pinned}))
            live.search(queries[0])
        fresh = ToolIndex(Catalog(list(catalog)), engine=engine, threshold=0)  # type: ignore[arg-type]
        for query in queries:
            live_results = live.search(query, k=MAX_K)
            fresh_results = fresh.search(query, k=MAX_K)
            assert names(live_results) == names(fresh_results)
            assert [h.score for h in live_results] == pytest.approx(
                [h.score for h in fresh_results]
            )
            assert all(hit.tool is catalog[hit.tool.id] for hit in live_results)


class TestAnalysisNeverBreaks:
    @SETTINGS
    @given(text=st.text(max_size=300))
    def test_terms_of_any_text(self, text: str) -> None:
        analyzer = Analyzer()
        terms = analyzer.terms(text)
        assert all(isinstance(term, str) and term for term in terms)
        assert [qt.term for qt in analyzer.query_terms(text)] == terms

    @SETTINGS
    @given(text=st.text(max_size=200), wanted=st.lists(st.text(max_size=10), max_size=4))
    def test_highlight_spans_are_ordered_and_inside_the_text(
        self, text: str, wanted: list[str]
    ) -> None:
        spans = highlight_spans(text, wanted)
        previous_end = 0
        for start, end in spans:
            assert previous_end <= start < end <= len(text)
            previous_end = end

    @SETTINGS
    @given(words=st.lists(_word, min_size=1, max_size=5))
    def test_text_highlights_its_own_terms(self, words: list[str]) -> None:
        text = " ".join(words)
        analyzer = Analyzer()
        assert highlight_spans(text, analyzer.terms(text), analyzer)
