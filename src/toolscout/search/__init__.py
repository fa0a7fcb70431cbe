"""Search engines over tool text: analysis, BM25, regex, semantic and hybrid search, and the
`ToolIndex` that runs them."""

from typing import TYPE_CHECKING

from toolscout._lazy_exports import lazy_exports

if TYPE_CHECKING:
    from toolscout.search.analysis import PHRASAL_COMPOUNDS, Analyzer, highlight_spans
    from toolscout.search.analysis_cache import AnalysisCache
    from toolscout.search.base import (
        FIELDS,
        Field,
        MatchedTerm,
        MatchKind,
        SearchEngine,
        SearchHit,
        SearchResults,
        ToolFilter,
    )
    from toolscout.search.bm25 import DEFAULT_FIELD_WEIGHTS, BM25Engine, BM25Options
    from toolscout.search.choices import (
        DEFAULT_PRELOAD_THRESHOLDS,
        DEFAULT_THRESHOLD,
        DEFAULT_THRESHOLDS,
        MAX_K,
        EngineName,
        RankingEngine,
    )
    from toolscout.search.embedders import (
        CallableEmbedder,
        Embedder,
        LocalEmbedder,
        MultilingualEmbedder,
        OpenAIEmbedder,
    )
    from toolscout.search.embedding_cache import EmbeddingCache, default_cache_path
    from toolscout.search.highlight import matched_spans
    from toolscout.search.hybrid import HybridEngine, HybridOptions
    from toolscout.search.index import (
        EngineChoice,
        ToolIndex,
        choose_engine,
        effective_threshold,
        score_floor,
    )
    from toolscout.search.needs import MAX_NEEDS, split_needs
    from toolscout.search.regex import RegexEngine, RegexOptions, pattern_problem
    from toolscout.search.semantic import SemanticEngine, SemanticOptions, tool_summary, tool_text
    from toolscout.search.synonyms import SYNONYM_GROUPS

__all__ = [
    "DEFAULT_FIELD_WEIGHTS",
    "DEFAULT_PRELOAD_THRESHOLDS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_THRESHOLDS",
    "FIELDS",
    "MAX_K",
    "MAX_NEEDS",
    "PHRASAL_COMPOUNDS",
    "SYNONYM_GROUPS",
    "AnalysisCache",
    "Analyzer",
    "BM25Engine",
    "BM25Options",
    "CallableEmbedder",
    "Embedder",
    "EmbeddingCache",
    "EngineChoice",
    "EngineName",
    "Field",
    "HybridEngine",
    "HybridOptions",
    "LocalEmbedder",
    "MatchKind",
    "MatchedTerm",
    "MultilingualEmbedder",
    "OpenAIEmbedder",
    "RankingEngine",
    "RegexEngine",
    "RegexOptions",
    "SearchEngine",
    "SearchHit",
    "SearchResults",
    "SemanticEngine",
    "SemanticOptions",
    "ToolFilter",
    "ToolIndex",
    "choose_engine",
    "default_cache_path",
    "effective_threshold",
    "highlight_spans",
    "matched_spans",
    "pattern_problem",
    "score_floor",
    "split_needs",
    "tool_summary",
    "tool_text",
]

# Imported on first use: the command line's options need the engine names, not numpy.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "toolscout.search.analysis": ["PHRASAL_COMPOUNDS", "Analyzer", "highlight_spans"],
            "toolscout.search.analysis_cache": ["AnalysisCache"],
            "toolscout.search.base": [
                "FIELDS",
                "Field",
                "MatchedTerm",
                "MatchKind",
                "SearchEngine",
                "SearchHit",
                "SearchResults",
                "ToolFilter",
            ],
            "toolscout.search.bm25": ["DEFAULT_FIELD_WEIGHTS", "BM25Engine", "BM25Options"],
            "toolscout.search.choices": [
                "DEFAULT_PRELOAD_THRESHOLDS",
                "DEFAULT_THRESHOLD",
                "DEFAULT_THRESHOLDS",
                "MAX_K",
                "EngineName",
                "RankingEngine",
            ],
            "toolscout.search.embedders": [
                "CallableEmbedder",
                "Embedder",
                "LocalEmbedder",
                "MultilingualEmbedder",
                "OpenAIEmbedder",
            ],
            "toolscout.search.embedding_cache": ["EmbeddingCache", "default_cache_path"],
            "toolscout.search.highlight": ["matched_spans"],
            "toolscout.search.hybrid": ["HybridEngine", "HybridOptions"],
            "toolscout.search.needs": ["MAX_NEEDS", "split_needs"],
            "toolscout.search.index": [
                "EngineChoice",
                "ToolIndex",
                "choose_engine",
                "effective_threshold",
                "score_floor",
            ],
            "toolscout.search.regex": ["RegexEngine", "RegexOptions", "pattern_problem"],
            "toolscout.search.semantic": [
                "SemanticEngine",
                "SemanticOptions",
                "tool_summary",
                "tool_text",
            ],
            "toolscout.search.synonyms": ["SYNONYM_GROUPS"],
        },
    )
