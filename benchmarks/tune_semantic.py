"""How the semantic and hybrid defaults were chosen, on the BFCL dev split only.

`python -m benchmarks.tune_semantic` compares, on dev queries over the pooled catalog:

- what is embedded per tool (`SemanticOptions.text`), for semantic search alone and within
  hybrid;
- how hybrid fuses BM25 and semantic scores (`HybridOptions`): score blends and reciprocal
  rank fusion, at several weights;
- each engine's threshold: Recall@5 lost and irrelevance queries abstained on, and the
  highest threshold that costs at most `MAX_RECALL_COST` of Recall@5, which is the default.

The test split is never read here. It writes the tables to `benchmarks/results/tuning.md`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from rich.console import Console

from benchmarks.bfcl import Query, load_bfcl
from benchmarks.metrics import NDCG_CUTOFF, Quality, abstention_rate, quality
from benchmarks.peers import catalog_text
from benchmarks.report import Table, to_markdown, to_rich
from toolscout.catalog import Tool
from toolscout.search import (
    BM25Engine,
    HybridEngine,
    HybridOptions,
    SearchEngine,
    SemanticEngine,
    SemanticOptions,
    tool_text,
)
from toolscout.search.analysis import identifier_words
from toolscout.search.embedders import Embedder, default_embedder

RESULTS = Path(__file__).parent / "results" / "tuning.md"
#: A default threshold may cost at most this much dev Recall@5.
MAX_RECALL_COST = 0.005
THRESHOLDS = tuple(round(0.05 + 0.01 * i, 2) for i in range(36))


class RememberingEmbedder:
    """The default embedder, remembering every query's vector: each variant asks the same
    queries, and embedding them once keeps the comparison quick."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, npt.NDArray[np.float32]] = {}
        self.model_id = embedder.model_id
        self.dimension = embedder.dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embedder.embed(missing), strict=True))
        return np.stack([self._vectors[text] for text in texts])


def _words(identifier: str) -> str:
    return " ".join(identifier_words(identifier))


def _description(tool: Tool) -> str:
    return " ".join(tool.description.split())


def _parameter_names(tool: Tool) -> str:
    names = [_words(str(name)) for name in tool.input_schema.get("properties", {})]
    return f" Parameters: {', '.join(names)}" if names else ""


TEXTS: dict[str, Callable[[Tool], str]] = {
    "tool_text (default): name words, description, parameters with descriptions": tool_text,
    "name words, description, parameter names": lambda tool: (
        f"{_words(tool.name)}. {_description(tool)}{_parameter_names(tool)}"
    ),
    "name words, description": lambda tool: f"{_words(tool.name)}. {_description(tool)}",
    "raw name, description": lambda tool: f"{tool.name}: {_description(tool)}",
    "description": _description,
    "FastMCP's text (raw name, description, parameters)": catalog_text,
}

FUSIONS: dict[str, HybridOptions] = {
    **{
        f"blend, semantic weight {weight}": HybridOptions(fusion="blend", semantic_weight=weight)
        for weight in (0.4, 0.5, 0.6, 0.7, 0.8)
    },
    **{
        f"rrf k={k}, semantic weight {weight}": HybridOptions(
            fusion="rrf", rrf_k=k, semantic_weight=weight
        )
        for k in (10, 60)
        for weight in (0.4, 0.5, 0.6)
    },
}


def ranked_names(engine: SearchEngine, tools: Sequence[Tool], query: str, k: int) -> list[str]:
    candidates = engine.rank(query, k)
    return [tools[position].name for position in candidates.positions[:k]]


def measure(engine: SearchEngine, tools: Sequence[Tool], queries: Sequence[Query]) -> Quality:
    rankings = [ranked_names(engine, tools, query.text, NDCG_CUTOFF) for query in queries]
    return quality(rankings, [query.relevant for query in queries])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tune_semantic", description=__doc__)
    parser.add_argument("--embedding-cache", type=Path, help="embedding cache file")
    parser.add_argument("--output", type=Path, default=RESULTS, help="markdown report path")
    args = parser.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 132)

    data = load_bfcl()
    tools = list(data.tools)
    queries = data.queries_in("dev")
    irrelevance = data.irrelevance_queries_in("dev")
    embedder = RememberingEmbedder(default_embedder())
    embedder.embed([query.text for query in [*queries, *irrelevance]])

    def semantic(text: Callable[[Tool], str] = tool_text) -> SemanticOptions:
        return SemanticOptions(
            embedder=embedder, cache_path=args.embedding_cache, text=text, progress=False
        )

    tables = [
        _texts_table(tools, queries, semantic),
        _fusion_table(tools, queries, semantic()),
        _thresholds_table(tools, queries, irrelevance, semantic()),
    ]
    for table in tables:
        console.print(to_rich(table))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        to_markdown(tables, heading="Semantic and hybrid tuning, BFCL dev split"),
        encoding="utf-8",
    )
    console.print(f"Wrote {args.output}")
    return 0


def _texts_table(
    tools: list[Tool],
    queries: Sequence[Query],
    semantic: Callable[[Callable[[Tool], str]], SemanticOptions],
) -> Table:
    table = Table(
        title=f"What is embedded per tool: dev, {len(queries)} queries",
        columns=["text", "semantic R@1", "R@5", "nDCG@10", "MRR", "hybrid R@5", "nDCG@10"],
    )
    for label, text in TEXTS.items():
        alone = SemanticEngine(semantic(text))
        alone.rebuild(tools)
        fused = HybridEngine(semantic=semantic(text))
        fused.rebuild(tools)
        one, both = measure(alone, tools, queries), measure(fused, tools, queries)
        table.rows.append(
            [
                label,
                f"{one.recall[1]:.3f}",
                f"{one.recall[5]:.3f}",
                f"{one.ndcg:.3f}",
                f"{one.mrr:.3f}",
                f"{both.recall[5]:.3f}",
                f"{both.ndcg:.3f}",
            ]
        )
    table.notes = ["Hybrid with its default fusion; no threshold (rankings compared as such)."]
    return table


def _fusion_table(tools: list[Tool], queries: Sequence[Query], semantic: SemanticOptions) -> Table:
    table = Table(
        title=f"How hybrid fuses BM25 and semantic search: dev, {len(queries)} queries",
        columns=["fusion", "R@1", "R@3", "R@5", "R@10", "nDCG@10", "MRR"],
    )
    engines: dict[str, SearchEngine] = {"BM25 alone": BM25Engine()}
    engines["semantic alone"] = SemanticEngine(semantic)
    engines.update(
        {
            label: HybridEngine(semantic=semantic, options=options)
            for label, options in FUSIONS.items()
        }
    )
    for label, engine in engines.items():
        engine.rebuild(tools)
        measured = measure(engine, tools, queries)
        table.rows.append(
            [
                label,
                *(f"{measured.recall[k]:.3f}" for k in (1, 3, 5, 10)),
                f"{measured.ndcg:.3f}",
                f"{measured.mrr:.3f}",
            ]
        )
    table.notes = [
        "blend: w × semantic normalized score + (1 − w) × BM25 score over the query's best "
        "BM25 score. rrf: 2w / (k + semantic rank) + 2(1 − w) / (k + BM25 rank), top 1000 each.",
    ]
    return table


def _thresholds_table(
    tools: list[Tool],
    queries: Sequence[Query],
    irrelevance: Sequence[Query],
    semantic: SemanticOptions,
) -> Table:
    table = Table(
        title=(
            f"Thresholds: dev, {len(queries)} queries and {len(irrelevance)} irrelevance "
            "queries, top 5"
        ),
        columns=["engine", "threshold", "R@5", "R@5 cost", "abstain %"],
    )
    engines: dict[str, SearchEngine] = {
        "semantic": SemanticEngine(semantic),
        "hybrid": HybridEngine(semantic=semantic),
    }
    relevant = [query.relevant for query in queries]
    for label, engine in engines.items():
        engine.rebuild(tools)

        def top5(text: str, threshold: float, engine: SearchEngine = engine) -> list[str]:
            candidates = engine.rank(text, 5, threshold=threshold)
            return [tools[position].name for position in candidates.positions[:5]]

        unlimited = quality([top5(query.text, 0.0) for query in queries], relevant).recall[5]
        chosen = None
        rows = []
        for threshold in THRESHOLDS:
            recall = quality([top5(query.text, threshold) for query in queries], relevant)
            abstained = abstention_rate([top5(query.text, threshold) for query in irrelevance])
            cost = unlimited - recall.recall[5]
            if cost <= MAX_RECALL_COST:
                chosen = threshold
            rows.append((threshold, recall.recall[5], cost, abstained))
        for threshold, recall5, cost, abstained in rows:
            if threshold in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4) or threshold == chosen:
                table.rows.append(
                    [
                        label,
                        f"{threshold:.2f}" + (" (chosen)" if threshold == chosen else ""),
                        f"{recall5:.3f}",
                        f"{cost:.4f}",
                        f"{100 * abstained:.1f}",
                    ]
                )
    table.notes = [
        f"chosen: the highest threshold (in steps of 0.01) whose R@5 cost is at most "
        f"{MAX_RECALL_COST}: the engine's default (`DEFAULT_THRESHOLDS`).",
        "abstain %: dev irrelevance queries answered with no tool.",
    ]
    return table


if __name__ == "__main__":
    sys.exit(main())
