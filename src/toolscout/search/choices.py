"""The engines a search can ask for, and the defaults and limits every front end shares.

Kept apart from the engines so that the command line can build its options and help from
them without importing numpy or a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias

EngineName: TypeAlias = Literal["auto", "bm25", "regex", "semantic", "hybrid"]
"""An engine to ask for: `auto` picks hybrid where semantic search can run, BM25 elsewhere."""

RankingEngine: TypeAlias = Literal["bm25", "regex", "semantic", "hybrid"]
"""An engine that ranks: what `auto` resolves to."""

#: Default `threshold` for BM25: hits whose normalized score is below it are dropped, so a
#: query no tool serves returns nothing. Chosen on the BFCL dev split (see benchmarks/).
DEFAULT_THRESHOLD = 0.4

#: Default `threshold` of each engine, chosen on the BFCL dev split: for semantic and hybrid,
#: the highest that costs at most half a point of Recall@5 (see benchmarks/).
DEFAULT_THRESHOLDS: Mapping[RankingEngine, float] = MappingProxyType(
    {"bm25": DEFAULT_THRESHOLD, "regex": DEFAULT_THRESHOLD, "semantic": 0.25, "hybrid": 0.25}
)

#: The most results one search returns.
MAX_K = 100
