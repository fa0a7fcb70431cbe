"""How the semantic and hybrid defaults were chosen, on the BFCL dev split only.

`python -m benchmarks.tune_semantic` compares, on dev queries over the pooled catalog:

- what is embedded per tool (`SemanticOptions.text`), for semantic search alone and within
  hybrid, including two vectors per tool whose similarities are averaged or max-pooled;
- what is put before each query (`SemanticOptions.query_prefix`), and whether a query of
  several sentences is better compared sentence by sentence;
- how hybrid fuses BM25 and semantic scores (`HybridOptions`): the semantic weight, whether
  tools the model cannot read keep their lexical score, and other normalizations of the two
  scores and weights that depend on the query, which `HybridOptions` does not offer because
  none ranked better;
- each engine's threshold: what it costs in Recall@5 on BFCL and on the reworded requests over
  real MCP tools (`benchmarks.senses`, the dev half of `benchmarks.rewordings`), and how
  often it refuses requests no tool serves. The default is a little below the highest
  threshold that keeps every right tool the served requests of the dev sets find in their
  top 5 at the lowest threshold swept: it refuses what it can without cutting right answers.

The test splits are never read here. It writes the tables to `benchmarks/results/tuning.md`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

import numpy as np
import numpy.typing as npt
from rich.console import Console

from benchmarks.bfcl import Query, load_bfcl
from benchmarks.mcp_tasks import load_mcp_dev, needs_found_at
from benchmarks.metrics import NDCG_CUTOFF, Quality, abstention_rate, quality
from benchmarks.peers import catalog_text
from benchmarks.report import Table, to_markdown, to_rich
from benchmarks.rewordings import REQUESTS
from benchmarks.senses import CATALOG as SENSES_CATALOG
from benchmarks.senses import QUERIES as SENSES_QUERIES
from toolscout import SearchHit, ToolIndex
from toolscout.catalog import Tool
from toolscout.search import (
    BM25Engine,
    HybridEngine,
    HybridOptions,
    SearchEngine,
    SemanticEngine,
    SemanticOptions,
    score_floor,
    tool_text,
)
from toolscout.search.analysis import identifier_words
from toolscout.search.base import RankedCandidates
from toolscout.search.embedders import Embedder, default_embedder
from toolscout.search.semantic import MINILM_QUERY_PREFIX, normalize_cosine, top_positions

RESULTS = Path(__file__).parent / "results" / "tuning.md"
#: How far below the threshold at which a served request first loses a right tool the
#: default stays: requests not seen here may score a little lower.
RIGHT_TOOL_MARGIN = 0.02
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


def _first_sentence(tool: Tool) -> str:
    description = _description(tool)
    end = re.search(r"[.?!]\s", description)
    return description[: end.start() + 1] if end else description


def _name_and_description(tool: Tool) -> str:
    return f"{_words(tool.name)}. {_description(tool)}"


TEXTS: dict[str, Callable[[Tool], str]] = {
    "tool_text (default): name words, description, parameters with descriptions": tool_text,
    "name words, description, parameter names": lambda tool: (
        f"{_name_and_description(tool)}{_parameter_names(tool)}"
    ),
    "name words, description": _name_and_description,
    "name words, first sentence of the description": lambda tool: (
        f"{_words(tool.name)}. {_first_sentence(tool)}"
    ),
    "raw name, description": lambda tool: f"{tool.name}: {_description(tool)}",
    "description": _description,
    "FastMCP's text (raw name, description, parameters)": catalog_text,
}

#: Two vectors per tool: tool_text's and this text's, their similarities pooled.
SECOND_TEXTS: dict[str, Callable[[Tool], str]] = {
    "name words, description": _name_and_description,
    "name words, parameters with descriptions": lambda tool: (
        f"{_words(tool.name)}. Parameters: {tool_text(tool).partition('Parameters: ')[2]}"
    ),
}

PREFIXES: tuple[str, ...] = (
    "",
    MINILM_QUERY_PREFIX,
    "Tool for: ",
    "Tool: ",
    "Find a tool for: ",
    "A function to ",
    "Which tool can do this? ",
)

FUSIONS: dict[str, HybridOptions] = {
    **{
        f"semantic weight {weight}": HybridOptions(semantic_weight=weight)
        for weight in (0.4, 0.5, 0.6, 0.65, 0.7, 0.8)
    },
    "semantic weight 0.65, every script trusted": HybridOptions(readability=None),
}


@dataclass(frozen=True)
class Signals:
    """What a fusion variant sees of one query."""

    cosine: npt.NDArray[np.float64]
    """Semantic cosine similarity per tool."""
    lexical: npt.NDArray[np.float64]
    """BM25 score per tool divided by the query's best (0 without a match)."""
    evidence: npt.NDArray[np.float64]
    """BM25's normalized score per tool (0 without a match)."""


def _min_max(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    spread_ = scores.max() - scores.min()
    return (scores - scores.min()) / spread_ if spread_ > 0 else np.zeros_like(scores)


def _z_score(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    deviation = scores.std()
    return (scores - scores.mean()) / deviation if deviation > 0 else np.zeros_like(scores)


def _blend(
    weight: float, semantic: npt.NDArray[np.float64], lexical: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    return weight * semantic + (1 - weight) * lexical


def _flatness(cosine: npt.NDArray[np.float64]) -> float:
    """How much the best cosine stands out from the tenth best."""
    best = np.sort(cosine)[-10:]
    return float(best[-1] - best[0])


DEFAULT_FUSION = "blend 0.7, BM25 as score / best score (before the present fusion)"

#: Fusions beyond `HybridOptions`: a function of the signals to one score per tool.
SCORE_FUSIONS: dict[str, Callable[[Signals], npt.NDArray[np.float64]]] = {
    DEFAULT_FUSION: lambda s: _blend(0.7, normalize_cosine(s.cosine), s.lexical),
    "blend 0.7, BM25 as its normalized score": lambda s: _blend(
        0.7, normalize_cosine(s.cosine), s.evidence
    ),
    "blend 0.4, BM25 as its normalized score": lambda s: _blend(
        0.4, normalize_cosine(s.cosine), s.evidence
    ),
    "blend 0.7, BM25 as sqrt(score / best)": lambda s: _blend(
        0.7, normalize_cosine(s.cosine), np.sqrt(s.lexical)
    ),
    "blend 0.6, cosine min-max per query": lambda s: _blend(0.6, _min_max(s.cosine), s.lexical),
    "blend 0.5, cosine / best cosine": lambda s: _blend(0.5, s.cosine / s.cosine.max(), s.lexical),
    "blend 0.7, both z-scored per query": lambda s: _blend(
        0.7, _z_score(s.cosine), _z_score(s.lexical)
    ),
    "semantic weight 0.85 − 0.3 × BM25's best normalized score": lambda s: _blend(
        0.85 - 0.3 * s.evidence.max(), normalize_cosine(s.cosine), s.lexical
    ),
    "semantic weight 0.75 − 0.1 × BM25's best normalized score": lambda s: _blend(
        0.75 - 0.1 * s.evidence.max(), normalize_cosine(s.cosine), s.lexical
    ),
    "semantic weight 0.8 − (best − 10th best cosine)": lambda s: _blend(
        0.8 - _flatness(s.cosine), normalize_cosine(s.cosine), s.lexical
    ),
    "semantic weight 0.6 + (best − 10th best cosine)": lambda s: _blend(
        0.6 + _flatness(s.cosine), normalize_cosine(s.cosine), s.lexical
    ),
}


class FusionVariant(SearchEngine):
    """Hybrid search with the fused score computed by `score` from the signals: for variants
    the engines' options do not offer."""

    def __init__(
        self,
        hybrid: HybridEngine,
        score: Callable[[Signals], npt.NDArray[np.float64]] = SCORE_FUSIONS[DEFAULT_FUSION],
        *,
        cosine: Callable[[str], npt.NDArray[np.float64]] | None = None,
    ) -> None:
        self.hybrid = hybrid
        self.score = score
        self.cosine = cosine or (lambda query: _cosine(hybrid.semantic, query))

    def rebuild(self, tools: Sequence[Tool]) -> None:
        self.hybrid.rebuild(tools)

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        cosine = self.cosine(query)
        ranked = self.hybrid.bm25.rank(query, self.hybrid.options.depth)
        lexical, evidence = np.zeros(len(cosine)), np.zeros(len(cosine))
        if ranked.positions:
            positions = np.asarray(ranked.positions, dtype=np.int64)
            raw = np.asarray(ranked.scores, dtype=np.float64)
            lexical[positions] = raw / raw.max()
            evidence[positions] = ranked.normalized_scores
        fused = self.score(Signals(cosine, lexical, evidence))
        order = top_positions(fused, limit)
        return RankedCandidates(order.tolist(), fused[order].tolist(), fused[order].tolist())


def _cosine(semantic: SemanticEngine, query: str) -> npt.NDArray[np.float64]:
    similarities, _ = semantic.similarities(query)
    assert similarities is not None
    return similarities.astype(np.float64)


def _sentences(query: str) -> list[str]:
    """The sentences (or lines) of a query that have at least three words."""
    parts = (part.strip() for part in re.split(r"(?<=[.?!])\s+|\n+", query))
    return [part for part in parts if len(part.split()) >= 3]


def _by_sentence(semantic: SemanticEngine, pool: str) -> Callable[[str], npt.NDArray[np.float64]]:
    """The cosine of the whole query, pooled with its sentences' when it has several."""

    def cosine(query: str) -> npt.NDArray[np.float64]:
        whole = _cosine(semantic, query)
        sentences = _sentences(query)
        if len(sentences) < 2:
            return whole
        each = np.stack([_cosine(semantic, sentence) for sentence in sentences])
        best: npt.NDArray[np.float64] = each.max(axis=0)
        if pool == "max":
            return np.maximum(whole, best)
        if pool == "mean of whole and best":
            return (whole + best) / 2
        mean: npt.NDArray[np.float64] = each.mean(axis=0)
        return (whole + mean) / 2

    return cosine


class TwoVectors(SearchEngine):
    """Semantic search with two vectors per tool, their cosines pooled by `pool`."""

    def __init__(self, first: SemanticEngine, second: SemanticEngine, pool: str) -> None:
        self.engines = (first, second)
        self.pool = pool

    def rebuild(self, tools: Sequence[Tool]) -> None:
        for engine in self.engines:
            engine.rebuild(tools)

    def cosine(self, query: str) -> npt.NDArray[np.float64]:
        first, second = (_cosine(engine, query) for engine in self.engines)
        return np.maximum(first, second) if self.pool == "max" else (first + second) / 2

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        cosine = self.cosine(query)
        order = top_positions(cosine, limit)
        return RankedCandidates(order.tolist(), cosine[order].tolist(), cosine[order].tolist())


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
    texts = [query.text for query in [*queries, *irrelevance]]
    sentences = [sentence for text in texts for sentence in _sentences(text)]
    embedder.embed(
        [prefix + text for prefix in PREFIXES for text in texts]
        + [MINILM_QUERY_PREFIX + sentence for sentence in sentences]
    )

    def semantic(
        text: Callable[[Tool], str] = tool_text, query_prefix: str | None = None
    ) -> SemanticOptions:
        return SemanticOptions(
            embedder=embedder,
            cache_path=args.embedding_cache,
            text=text,
            progress=False,
            query_prefix=query_prefix,
        )

    tables = [
        _texts_table(tools, queries, semantic),
        _queries_table(tools, queries, semantic),
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


SemanticFactory = Callable[[Callable[[Tool], str]], SemanticOptions]


def _quality_row(
    label: str,
    alone: SearchEngine,
    fused: SearchEngine,
    tools: list[Tool],
    queries: Sequence[Query],
) -> list[str]:
    one, both = measure(alone, tools, queries), measure(fused, tools, queries)
    return [
        label,
        f"{one.recall[1]:.3f}",
        f"{one.recall[5]:.3f}",
        f"{one.ndcg:.3f}",
        f"{one.mrr:.3f}",
        f"{both.recall[5]:.3f}",
        f"{both.ndcg:.3f}",
    ]


QUALITY_COLUMNS = ["semantic R@1", "R@5", "nDCG@10", "MRR", "hybrid R@5", "nDCG@10"]


def _texts_table(tools: list[Tool], queries: Sequence[Query], semantic: SemanticFactory) -> Table:
    table = Table(
        title=f"What is embedded per tool: dev, {len(queries)} queries",
        columns=["text", *QUALITY_COLUMNS],
    )
    for label, text in TEXTS.items():
        alone = SemanticEngine(semantic(text))
        fused = HybridEngine(semantic=semantic(text))
        for engine in (alone, fused):
            engine.rebuild(tools)
        table.rows.append(_quality_row(label, alone, fused, tools, queries))
    for label, text in SECOND_TEXTS.items():
        for pool in ("mean", "max"):
            two = TwoVectors(
                SemanticEngine(semantic(tool_text)), SemanticEngine(semantic(text)), pool
            )
            two.rebuild(tools)
            hybrid = FusionVariant(HybridEngine(semantic=semantic(tool_text)), cosine=two.cosine)
            hybrid.rebuild(tools)
            row = f"two vectors, tool_text and {label}, {pool} of the cosines"
            table.rows.append(_quality_row(row, two, hybrid, tools, queries))
    table.notes = [
        "Hybrid with its default fusion; no threshold (rankings compared as such). Queries "
        "with the default prefix.",
    ]
    return table


def _queries_table(
    tools: list[Tool],
    queries: Sequence[Query],
    semantic: Callable[..., SemanticOptions],
) -> Table:
    table = Table(
        title=f"What is embedded per query: dev, {len(queries)} queries",
        columns=["query", *QUALITY_COLUMNS],
    )
    alone: SearchEngine
    fused: SearchEngine
    for prefix in PREFIXES:
        alone = SemanticEngine(semantic(query_prefix=prefix))
        fused = HybridEngine(semantic=semantic(query_prefix=prefix))
        for engine in (alone, fused):
            engine.rebuild(tools)
        label = f"prefix {prefix!r}" + (" (default)" if prefix == MINILM_QUERY_PREFIX else "")
        table.rows.append(_quality_row(label, alone, fused, tools, queries))
    for pool in ("max", "mean of whole and best", "mean of whole and all"):
        hybrid = HybridEngine(semantic=semantic())
        alone = FusionVariant(
            hybrid, lambda s: s.cosine, cosine=_by_sentence(hybrid.semantic, pool)
        )
        fused = FusionVariant(hybrid, cosine=_by_sentence(hybrid.semantic, pool))
        fused.rebuild(tools)
        label = f"sentence by sentence, {pool} of the cosines"
        table.rows.append(_quality_row(label, alone, fused, tools, queries))
    table.notes = [
        "sentence by sentence: a query of two or more sentences of three words or more is "
        "also compared sentence by sentence (with the default prefix), and each tool's "
        "cosines pooled; a request for several tools could find each in its own sentence.",
    ]
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
    shared = HybridEngine(semantic=semantic)
    shared.rebuild(tools)
    variants = {label: FusionVariant(shared, score) for label, score in SCORE_FUSIONS.items()}
    for engine in engines.values():
        engine.rebuild(tools)
    for label, engine in {**engines, **variants}.items():
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
        "semantic weight w: HybridEngine, w × semantic normalized score + (1 − w) × lexical "
        "(BM25 over the query's best, times the best's BM25 normalized score); a tool the "
        "query names, or whose text is not in Latin letters, keeps at least its lexical score.",
        "The blend rows change one thing of the fusion used before each: how a score is put "
        "on a common scale, or a semantic weight that depends on the query (on BM25's best "
        "evidence, or on how much the best cosine stands out).",
        "Reciprocal rank fusion (2w / (k + semantic rank) + 2(1 − w) / (k + BM25 rank)) was "
        "measured here before it was removed: nDCG@10 0.827 at best, against 0.832 for the "
        "blend of the time; and ranks give no score a threshold can use.",
        "Tried outside this script, no better on dev either: centering the vectors on the "
        "catalog's mean or removing its top principal components; pseudo-relevance feedback "
        "(the query vector moved toward its top 3–10 tools); a vector per parameter, pooled "
        "per tool, added to the blend; learned rerankers of the top 50 over these signals "
        "(5-fold on dev: logistic regression no better, gradient boosting +0.7 nDCG@10 and "
        "+1.3 Recall@5, not worth a trained model).",
    ]
    return table


@dataclass(frozen=True, slots=True)
class _ThresholdRow:
    threshold: float
    bfcl_recall: float
    bfcl_abstained: float
    senses_recall: float
    found: dict[str, float]
    """Per request set, R@5 (the share of needs found, for MCP tasks) over served requests."""
    abstained: dict[str, float]
    """Per request set, the share of requests no tool serves answered with nothing."""
    balanced: float
    """The mean of R@5 over every served request and of abstention over every unserved one."""


Requests = dict[str, list[tuple[str, Sequence[frozenset[str]]]]]


def _threshold_measure(
    bfcl: ToolIndex,
    small: ToolIndex,
    large: ToolIndex,
    bfcl_queries: tuple[Sequence[Query], Sequence[Query]],
    served: Requests,
    unserved: dict[str, list[str]],
) -> Callable[[float], _ThresholdRow]:
    """How one engine's indexes fare at a threshold: BFCL, the senses and reworded requests
    (`small`) and the MCP development set (`large`). Each query is searched once."""
    queries, irrelevance = bfcl_queries
    index_of = {"senses": small, "reworded": small, "MCP": large}
    ranked: dict[tuple[int, str], list[SearchHit]] = {}  # by index and query

    def top5(index: ToolIndex, text: str, threshold: float) -> list[str]:
        """What `index.search(text, 5, threshold=threshold)` returns (names in the small
        catalogs, ids in the large ones), from one search."""
        hits = ranked.get((id(index), text))
        if hits is None:
            hits = ranked[id(index), text] = list(index.search(text, 5, threshold=0))
        floor = score_floor(hits[0].normalized_score, threshold) if hits else 0.0
        key = (lambda tool: tool.name) if index is small else (lambda tool: tool.id)
        return [key(hit.tool) for hit in hits if hit.normalized_score >= floor]

    def measure(threshold: float) -> _ThresholdRow:
        found = {
            name: [
                needs_found_at(top5(index_of[name], text, threshold), needs, 5)
                for text, needs in requests
            ]
            for name, requests in served.items()
        }
        abstained = {
            name: [not top5(index_of[name], text, threshold) for text in texts]
            for name, texts in unserved.items()
        }
        return _ThresholdRow(
            threshold=threshold,
            bfcl_recall=quality(
                [top5(bfcl, query.text, threshold) for query in queries],
                [query.relevant for query in queries],
            ).recall[5],
            bfcl_abstained=abstention_rate(
                [top5(bfcl, query.text, threshold) for query in irrelevance]
            ),
            senses_recall=fmean(found["senses"]),
            found={name: fmean(values) for name, values in found.items()},
            abstained={name: fmean(values) for name, values in abstained.items()},
            balanced=(
                fmean(value for values in found.values() for value in values)
                + fmean(value for values in abstained.values() for value in values)
            )
            / 2,
        )

    return measure


def _least_cutting(rows: Sequence[_ThresholdRow], kept: Sequence[str]) -> float:
    """Of the thresholds `RIGHT_TOOL_MARGIN` or more below the first at which a served
    request of the `kept` sets loses a right tool it has in its top 5 at the lowest threshold
    swept, the lowest that refuses as many of the reworded requests no tool serves as any: a
    higher one refuses no more of them, only risks cutting right answers. (Any threshold at
    all drops the hits below a third of the best, `score_floor`, which 0 would keep.)"""

    def recall(row: _ThresholdRow, name: str) -> float:
        return row.bfcl_recall if name == "bfcl" else row.found[name]

    cut = next(
        (
            row.threshold
            for row in rows
            if any(recall(row, name) < recall(rows[0], name) for name in kept)
        ),
        1.0,
    )
    safe = [row for row in rows if row.threshold <= round(cut - 0.01 - RIGHT_TOOL_MARGIN, 2)]
    most_refused = max((row.abstained["reworded"] for row in safe), default=0.0)
    return next((row.threshold for row in safe if row.abstained["reworded"] >= most_refused), 0.0)


def _thresholds_table(
    tools: list[Tool],
    queries: Sequence[Query],
    irrelevance: Sequence[Query],
    semantic: SemanticOptions,
) -> Table:
    reworded = [request for request in REQUESTS if request.split == "dev"]
    mcp = load_mcp_dev()
    served: Requests = {
        # Each right tool a need of its own, so that the share of needs found is Recall@5.
        "senses": [(q.text, [frozenset({tool}) for tool in q.relevant]) for q in SENSES_QUERIES],
        "reworded": [
            (r.text, [frozenset({tool}) for tool in r.relevant]) for r in reworded if r.relevant
        ],
        "MCP": [(task.text, task.needs) for task in mcp.tasks_in("dev") if task.kind != "none"],
    }
    unserved: dict[str, list[str]] = {
        "reworded": [r.text for r in reworded if not r.relevant],
        "MCP": [task.text for task in mcp.tasks_in("dev", "none")],
    }
    table = Table(
        title=(
            "Thresholds, top 5: BFCL dev (its queries and irrelevance queries), the senses "
            "requests, the dev halves of the reworded requests and of the MCP development set"
        ),
        columns=[
            *("engine", "threshold", "BFCL R@5", "BFCL abstain %", "senses R@5"),
            *("reworded R@5", "reworded abstain %", "MCP needs@5", "MCP abstain %", "balanced"),
        ],
    )
    for engine in ("bm25", "semantic", "hybrid"):
        measure = _threshold_measure(
            ToolIndex(tools, engine=engine, semantic=semantic, split_needs=False),
            ToolIndex(SENSES_CATALOG, engine=engine, semantic=semantic),
            ToolIndex(mcp.tools, engine=engine, semantic=semantic),
            (queries, irrelevance),
            served,
            unserved,
        )
        rows = [measure(threshold) for threshold in THRESHOLDS]
        chosen = _least_cutting(rows, kept=("bfcl", "senses", "reworded", "MCP"))
        # Preloading sends tools unasked: only the senses requests' right tools bind it.
        for_preloading = _least_cutting(rows, kept=("senses",))
        for row in rows:
            marks = [
                mark
                for mark, threshold in (("chosen", chosen), ("preload", for_preloading))
                if row.threshold == threshold
            ]
            if round(row.threshold * 20, 6).is_integer() or marks:
                table.rows.append(
                    [
                        engine,
                        f"{row.threshold:.2f}" + (f" ({', '.join(marks)})" if marks else ""),
                        f"{row.bfcl_recall:.3f}",
                        f"{100 * row.bfcl_abstained:.1f}",
                        f"{row.senses_recall:.3f}",
                        f"{row.found['reworded']:.3f}",
                        f"{100 * row.abstained['reworded']:.0f}",
                        f"{row.found['MCP']:.3f}",
                        f"{100 * row.abstained['MCP']:.0f}",
                        f"{row.balanced:.3f}",
                    ]
                )
    table.notes = [
        "chosen: of the thresholds (in steps of 0.01) up to "
        f"{RIGHT_TOOL_MARGIN} below the first at which a served request of BFCL, the senses, the "
        "reworded or the MCP set loses a right tool it has in its top 5 at the lowest, "
        "the lowest that refuses as many of the "
        "reworded requests no tool serves as any of them. DEFAULT_THRESHOLDS holds it for "
        "semantic and hybrid; BM25's 0.4 was chosen before, on BFCL alone. preload: the same "
        "with the senses requests alone, which DEFAULT_PRELOAD_THRESHOLDS holds. balanced: the "
        "mean of R@5 over every served request of the three sets, and of abstention over "
        "every request no tool serves.",
        "abstain %: requests no tool serves answered with no tool. A search answers only when "
        "its best hit reaches the threshold, with the hits that reach half of it and a third "
        "of the best (`score_floor`).",
    ]
    return table


if __name__ == "__main__":
    sys.exit(main())
