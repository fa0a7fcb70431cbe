"""Search engines over tool text: analysis, BM25, regex, semantic and hybrid search, and the
`ToolIndex` that runs them."""

from toolscout.search.analysis import Analyzer, highlight_spans
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
from toolscout.search.embedders import (
    CallableEmbedder,
    Embedder,
    LocalEmbedder,
    OpenAIEmbedder,
)
from toolscout.search.embedding_cache import EmbeddingCache, default_cache_path
from toolscout.search.highlight import matched_spans
from toolscout.search.hybrid import HybridEngine, HybridOptions
from toolscout.search.index import (
    DEFAULT_THRESHOLD,
    DEFAULT_THRESHOLDS,
    MAX_K,
    EngineChoice,
    EngineName,
    RankingEngine,
    ToolIndex,
    choose_engine,
    score_floor,
)
from toolscout.search.regex import RegexEngine, RegexOptions
from toolscout.search.semantic import SemanticEngine, SemanticOptions, tool_text
from toolscout.search.synonyms import SYNONYM_GROUPS

__all__ = [
    "DEFAULT_FIELD_WEIGHTS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_THRESHOLDS",
    "FIELDS",
    "MAX_K",
    "SYNONYM_GROUPS",
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
    "highlight_spans",
    "matched_spans",
    "score_floor",
    "tool_text",
]
