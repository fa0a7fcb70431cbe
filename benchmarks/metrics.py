"""Retrieval metrics over ranked tool names.

Every metric scores one query from its ranking (tool names, best first) and its set of relevant
names; the report averages them over queries. Gains are binary: a tool is relevant or not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

RECALL_CUTOFFS: tuple[int, ...] = (1, 3, 5, 10)
NDCG_CUTOFF = 10


def recall_at(ranking: Sequence[str], relevant: frozenset[str], k: int) -> float:
    """The share of the relevant tools found in the top `k`.

    A query that calls three tools and finds two of them in the top 5 scores 2/3 at k=5, so
    multi-tool queries count partial success rather than all-or-nothing.
    """
    return len(relevant.intersection(ranking[:k])) / len(relevant)


def ndcg_at(ranking: Sequence[str], relevant: frozenset[str], k: int = NDCG_CUTOFF) -> float:
    """Normalised discounted cumulative gain at `k`: 1 when the relevant tools fill the top
    positions, less the lower they rank."""
    gain = sum(
        1 / math.log2(rank + 1) for rank, name in enumerate(ranking[:k], 1) if name in relevant
    )
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(relevant), k) + 1))
    return gain / ideal


def reciprocal_rank(ranking: Sequence[str], relevant: frozenset[str]) -> float:
    """1 / the rank of the first relevant tool, or 0 when none was returned."""
    return next((1 / rank for rank, name in enumerate(ranking, 1) if name in relevant), 0.0)


@dataclass(frozen=True, slots=True)
class Quality:
    """Mean metrics over a set of queries."""

    recall: dict[int, float]
    """Cutoff k → mean Recall@k."""
    ndcg: float
    """Mean nDCG@10."""
    mrr: float
    """Mean reciprocal rank over the rankings given (the benchmark asks for the top 10)."""
    queries: int


def quality(rankings: Sequence[Sequence[str]], relevant: Sequence[frozenset[str]]) -> Quality:
    """Mean metrics of `rankings[i]` judged against `relevant[i]`."""
    if len(rankings) != len(relevant):
        raise ValueError(f"{len(rankings)} rankings for {len(relevant)} relevance sets")
    if not rankings:
        raise ValueError("no queries to score")
    pairs = list(zip(rankings, relevant, strict=True))
    return Quality(
        recall={k: fmean(recall_at(r, rel, k) for r, rel in pairs) for k in RECALL_CUTOFFS},
        ndcg=fmean(ndcg_at(r, rel) for r, rel in pairs),
        mrr=fmean(reciprocal_rank(r, rel) for r, rel in pairs),
        queries=len(pairs),
    )


def abstention_rate(rankings: Sequence[Sequence[str]]) -> float:
    """The share of rankings that are empty: on queries no tool serves, how often the engine
    said so instead of offering something."""
    if not rankings:
        raise ValueError("no queries to score")
    return sum(not ranking for ranking in rankings) / len(rankings)
