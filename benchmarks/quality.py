"""Retrieval quality on the pooled BFCL catalog: how often the right tool comes back, and how
often an engine abstains on queries no tool of their test case serves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.bfcl import BfclData, Query, Split, spread
from benchmarks.metrics import NDCG_CUTOFF, RECALL_CUTOFFS, Quality, abstention_rate, quality
from benchmarks.peers import AbstainingSearcher, Engine, Searcher
from benchmarks.report import Table

#: Results asked per relevant query: enough for Recall@10 and nDCG@10.
RANKING_DEPTH = 10
#: Results asked per irrelevance query, a typical `search_tools` page.
ABSTENTION_K = 5


@dataclass(frozen=True, slots=True)
class QualityRow:
    engine: str
    quality: Quality
    abstention: float
    """Share of all irrelevance queries answered with nothing."""
    abstention_live: float
    """The same over BFCL_v4_live_irrelevance only."""
    recall5_cost: float | None
    """Recall@5 with no threshold minus Recall@5 at the default one; None without a threshold."""
    all_found: float
    """Share of the queries that need several tools with all of them in the top 10."""
    several: int
    """How many queries need several tools."""


def measure_quality(
    label: str, searcher: Searcher, queries: Sequence[Query], irrelevance: Sequence[Query]
) -> QualityRow:
    """Quality of one built engine on one split's queries."""
    relevant = [query.relevant for query in queries]
    rankings = [searcher.search(query.text, RANKING_DEPTH) for query in queries]
    measured = quality(rankings, relevant)
    several = [
        tools <= set(ranking)
        for ranking, tools in zip(rankings, relevant, strict=True)
        if len(tools) > 1
    ]
    answers = [searcher.search(query.text, ABSTENTION_K) for query in irrelevance]
    live = [answer for answer, query in zip(answers, irrelevance, strict=True) if _is_live(query)]
    cost = None
    if isinstance(searcher, AbstainingSearcher):
        unlimited = searcher.without_threshold()
        unlimited_rankings = [unlimited.search(query.text, RANKING_DEPTH) for query in queries]
        cost = quality(unlimited_rankings, relevant).recall[5] - measured.recall[5]
    return QualityRow(
        label,
        measured,
        abstention_rate(answers),
        abstention_rate(live),
        cost,
        all_found=sum(several) / len(several) if several else 0.0,
        several=len(several),
    )


def run_quality(
    data: BfclData, engines: Sequence[Engine], splits: Sequence[Split], *, limit: int | None
) -> list[Table]:
    """One table per split, every engine built once on the pooled catalog.

    Args:
        limit: at most this many relevant (and this many irrelevance) queries per split,
            spread evenly over the files; None for all.
    """
    rows: dict[Split, list[QualityRow]] = {split: [] for split in splits}
    for engine in engines:
        searcher = engine.build(data.tools)
        for split in splits:
            queries = spread(data.queries_in(split), limit)
            irrelevance = spread(data.irrelevance_queries_in(split), limit)
            rows[split].append(measure_quality(engine.label, searcher, queries, irrelevance))
    return [_table(split, rows[split], data) for split in splits]


def _table(split: Split, rows: Sequence[QualityRow], data: BfclData) -> Table:
    first = rows[0]
    table = Table(
        title=(
            f"Quality, {split} split: {first.quality.queries} queries over "
            f"{len(data.tools):,} tools"
            + (", same-name variants apart" if data.variants_apart else "")
        ),
        columns=[
            "engine",
            *(f"R@{k}" for k in RECALL_CUTOFFS),
            f"nDCG@{NDCG_CUTOFF}",
            "MRR",
            f"several all@{RANKING_DEPTH}",
            "abstain %",
            "abstain % live",
            "R@5 cost",
        ],
    )
    for row in rows:
        table.rows.append(
            [
                row.engine,
                *(f"{row.quality.recall[k]:.3f}" for k in RECALL_CUTOFFS),
                f"{row.quality.ndcg:.3f}",
                f"{row.quality.mrr:.3f}",
                f"{row.all_found:.3f}",
                f"{100 * row.abstention:.1f}",
                f"{100 * row.abstention_live:.1f}",
                "—" if row.recall5_cost is None else f"{row.recall5_cost:.3f}",
            ]
        )
    table.notes = [
        *(
            [
                "One tool per name and wording: a query's relevant tools are the wordings of "
                "its own case, and the other wordings of the same function count as misses."
            ]
            if data.variants_apart
            else []
        ),
        f"R@k: share of a query's relevant tools in the top k; MRR over the top {RANKING_DEPTH}.",
        f"several all@{RANKING_DEPTH}: the {first.several} queries that need several tools "
        f"(BFCL's multiple and parallel-multiple calls), with all of them in the top "
        f"{RANKING_DEPTH}.",
        "abstain %: irrelevance queries answered with no tool (top "
        f"{ABSTENTION_K}); 'live' counts BFCL_v4_live_irrelevance alone. Engines without a "
        "threshold abstain only when no query word matches anything.",
        "Many BFCL_v4_irrelevance questions are served by another case's tool in the pooled "
        "catalog (e.g. 'area of a triangle'), so 100% abstention is not the goal there.",
        "R@5 cost: Recall@5 with the threshold off minus Recall@5 at the default threshold "
        "(— for engines without one).",
    ]
    return table


def _is_live(query: Query) -> bool:
    return query.id.startswith("live_")
