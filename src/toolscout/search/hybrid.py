"""Hybrid search: BM25 and semantic search fused into one ranking.

BM25 finds the tools that share the query's words, including names and identifiers an
embedding model blurs; semantic search finds the tools that mean what the query asks in other
words. Each tool's two scores are blended, and the blend ranks better than either alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from toolscout.catalog.tool import Tool
from toolscout.errors import SearchConfigError
from toolscout.search.base import RankedCandidates, SearchEngine
from toolscout.search.bm25 import BM25Engine, BM25Options
from toolscout.search.semantic import (
    SemanticEngine,
    SemanticOptions,
    normalize_cosine,
    top_positions,
)

Fusion = Literal["blend", "rrf"]


@dataclass(frozen=True)
class HybridOptions:
    """How BM25 and semantic scores are fused. The defaults were chosen on the BFCL dev split."""

    fusion: Fusion = "blend"
    """`"blend"`: a weighted sum of the two engines' scores, each on a 0–1 scale.
    `"rrf"`: reciprocal rank fusion, the sum of `1 / (rrf_k + rank)` over the two rankings."""
    semantic_weight: float = 0.7
    """Weight of the semantic score in the blend (and of the semantic rank in RRF); BM25 gets
    the rest."""
    rrf_k: int = 60
    """RRF's damping constant: higher flattens the difference between ranks."""
    depth: int = 1000
    """How many of each engine's best tools are fused; a tool beyond BM25's `depth` best
    counts as no BM25 match."""

    def __post_init__(self) -> None:
        if self.fusion not in ("blend", "rrf"):
            raise SearchConfigError(f"fusion must be 'blend' or 'rrf', got {self.fusion!r}")
        if not 0 <= self.semantic_weight <= 1:
            raise SearchConfigError("semantic_weight must be between 0 and 1")
        if self.rrf_k < 0 or self.depth < 1:
            raise SearchConfigError("rrf_k must be >= 0 and depth >= 1")


class HybridEngine(SearchEngine):
    """BM25 and semantic search, fused.

    With the default blend, a tool scores `w · semantic + (1 − w) · lexical`, `w` being
    `semantic_weight`:

    - semantic is the tool's semantic `normalized_score` (its cosine similarity, mapped
      onto 0–1);
    - lexical, for ranking, is the tool's BM25 score divided by the query's best BM25 score,
      so the best keyword match gets the full weight whatever the query's length; for
      `normalized_score`, it is BM25's own normalized score, which measures how much evidence
      the match has, so that thresholds keep their meaning across queries.

    `matched_terms` are BM25's: the query words found in the tool, if any.
    """

    def __init__(
        self,
        bm25: BM25Options | None = None,
        semantic: SemanticOptions | None = None,
        options: HybridOptions | None = None,
    ) -> None:
        self.options = options or HybridOptions()
        self.semantic = SemanticEngine(semantic)
        self.bm25 = BM25Engine(bm25)

    def rebuild(self, tools: Sequence[Tool]) -> None:
        self.semantic.rebuild(tools)
        self.bm25.rebuild(tools)

    def rank(
        self, query: str, limit: int, *, threshold: float = 0.0, min_score: float | None = None
    ) -> RankedCandidates:
        similarities, notice = self.semantic.similarities(query)
        if similarities is None:
            return RankedCandidates((), (), (), notice=notice)
        lexical = self.bm25.rank(query, max(self.options.depth, limit))
        weight = self.options.semantic_weight
        semantic_score = normalize_cosine(similarities)
        lexical_evidence = np.zeros(len(similarities))
        positions = np.asarray(lexical.positions, dtype=np.int64)
        if len(positions):
            lexical_evidence[positions] = lexical.normalized_scores
        normalized = weight * semantic_score + (1 - weight) * lexical_evidence
        if self.options.fusion == "rrf":
            fused = self._reciprocal_rank_fusion(similarities, positions)
        else:
            lexical_score = np.zeros(len(similarities))
            if len(positions):
                raw = np.asarray(lexical.scores, dtype=np.float64)
                lexical_score[positions] = raw / raw.max()
            fused = weight * semantic_score + (1 - weight) * lexical_score

        keep = normalized >= threshold
        if min_score is not None:
            keep &= fused >= min_score
        candidates = np.flatnonzero(keep)
        order = candidates[top_positions(fused[candidates], limit)]
        return RankedCandidates(
            positions=order.tolist(),
            scores=fused[order].tolist(),
            normalized_scores=normalized[order].tolist(),
            exhaustive=len(order) == len(candidates),
            explain=lexical.explain,
        )

    def _reciprocal_rank_fusion(
        self, similarities: npt.NDArray[np.float32], lexical_order: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        k, depth, weight = self.options.rrf_k, self.options.depth, self.options.semantic_weight
        fused = np.zeros(len(similarities))
        semantic_order = top_positions(similarities, depth)
        fused[semantic_order] += 2 * weight / (k + np.arange(1, len(semantic_order) + 1))
        lexical_order = lexical_order[:depth]
        fused[lexical_order] += 2 * (1 - weight) / (k + np.arange(1, len(lexical_order) + 1))
        return fused
