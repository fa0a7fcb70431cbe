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

#: Default `threshold` for BM25: a search whose best hit's normalized score is below it
#: returns nothing, so a query no tool serves gets no tools. Chosen on the BFCL dev split.
DEFAULT_THRESHOLD = 0.4

#: Default `threshold` of each engine. Semantic and hybrid: the lowest that refuses as many
#: requests no tool serves (benchmarks/rewordings.py, dev half) as any threshold at which
#: the served requests of the dev sets (BFCL, benchmarks/senses.py, the reworded requests,
#: the MCP tasks) keep every right tool they have in their top 5, with a margin: a search
#: that wrongly answers nothing costs the agent its tool, one that answers an off-topic
#: request costs a few tokens (`python -m benchmarks.tune_semantic`).
DEFAULT_THRESHOLDS: Mapping[RankingEngine, float] = MappingProxyType(
    {"bm25": DEFAULT_THRESHOLD, "regex": DEFAULT_THRESHOLD, "semantic": 0.08, "hybrid": 0.05}
)

#: Default threshold of preloading (`PreloadConfig.threshold`) for each engine. Preloaded tools
#: are sent unasked, for whatever the user says ("hi", "thanks"), so they must be surer than
#: what a search the model asked for returns: for semantic and hybrid, the lowest threshold
#: that refuses as many requests no tool serves (benchmarks/rewordings.py, dev half) as any
#: at which the reworded requests over real MCP tools (benchmarks/senses.py) keep every right
#: tool they have in their top 5 (`python -m benchmarks.tune_semantic`).
DEFAULT_PRELOAD_THRESHOLDS: Mapping[RankingEngine, float] = MappingProxyType(
    {"bm25": DEFAULT_THRESHOLD, "regex": DEFAULT_THRESHOLD, "semantic": 0.08, "hybrid": 0.12}
)

#: The most results one search returns.
MAX_K = 100
