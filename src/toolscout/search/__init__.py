"""Search engines over tool text: analysis, BM25, regex, and the `ToolIndex` that runs them."""

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
from toolscout.search.index import DEFAULT_THRESHOLD, MAX_K, EngineName, ToolIndex
from toolscout.search.regex import RegexEngine, RegexOptions
from toolscout.search.synonyms import SYNONYM_GROUPS

__all__ = [
    "DEFAULT_FIELD_WEIGHTS",
    "DEFAULT_THRESHOLD",
    "FIELDS",
    "MAX_K",
    "SYNONYM_GROUPS",
    "Analyzer",
    "BM25Engine",
    "BM25Options",
    "EngineName",
    "Field",
    "MatchKind",
    "MatchedTerm",
    "RegexEngine",
    "RegexOptions",
    "SearchEngine",
    "SearchHit",
    "SearchResults",
    "ToolFilter",
    "ToolIndex",
    "highlight_spans",
]
