"""Speed and scale: build time, build memory and search latency at growing catalog sizes.

Larger catalogs are the pooled BFCL catalog copied under new names (copy i appends `_c{i}` to
every name) and sampled down to the exact size, so every size has realistic tool text.
"""

from __future__ import annotations

import gc
import math
import random
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.bfcl import spread
from benchmarks.peers import Engine, Searcher
from benchmarks.report import Table
from toolscout.catalog import Tool

#: Results asked per timed search.
SEARCH_K = 5
#: Untimed searches before timing, so caches and lazy work don't count as latency.
WARMUP_QUERIES = 3
#: Even a slow engine is timed on at least this many queries.
MIN_TIMED_QUERIES = 10
#: Each engine is built and timed this many times, on a fresh index each time, and each query
#: keeps its fastest time: a burst of load from elsewhere on the machine once made one
#: engine's p50 at 500 tools 0.27 ms in a run, 0.16 ms in the runs before and after it. A
#: fresh index keeps every round as cold as the first (no query was seen before).
ROUNDS = 3


@dataclass(frozen=True, slots=True)
class SpeedRow:
    engine: str
    size: int
    build_seconds: float
    peak_bytes: int
    """The most memory allocated at once while building."""
    kept_bytes: int
    """Memory still held by the built index."""
    p50_ms: float
    p99_ms: float
    timed_queries: int


def scaled_tools(tools: Sequence[Tool], size: int, *, seed: int = 0) -> list[Tool]:
    """Exactly `size` tools drawn from enough renamed copies of `tools`, in copy order."""
    copies = math.ceil(size / len(tools))
    pool = list(tools) + [
        Tool(name=f"{tool.name}_c{i}", description=tool.description, input_schema=tool.input_schema)
        for i in range(1, copies)
        for tool in tools
    ]
    return [pool[i] for i in sorted(random.Random(seed).sample(range(len(pool)), size))]


def measure_speed(
    engine: Engine,
    tools: Sequence[Tool],
    queries: Sequence[str],
    *,
    time_budget: float,
) -> SpeedRow:
    """Build `engine` on `tools` and time its searches.

    Build time covers construction plus the first search, because some engines (FastMCP's,
    toolscout's) index lazily on first use. Memory is measured on a separate build under
    `tracemalloc`, which slows allocation and would distort the timing; it counts Python and
    NumPy allocations. An engine is timed on all `queries` unless that would take longer than
    `time_budget` seconds a round judging by the first warm-up, then on as many as fit (at
    least `MIN_TIMED_QUERIES`). Build and search times are the fastest of `ROUNDS`.
    """
    build_times: list[float] = []
    latencies: list[list[float]] = []
    timed: list[str] = []
    for _ in range(ROUNDS):
        gc.collect()
        started = time.perf_counter()
        searcher = _build(engine, tools, queries[0])
        build_times.append(time.perf_counter() - started)

        started = time.perf_counter()
        for query in queries[:WARMUP_QUERIES]:
            searcher.search(query, SEARCH_K)
        if not timed:
            per_query = (time.perf_counter() - started) / WARMUP_QUERIES
            budget_count = int(time_budget / max(per_query, 1e-9))
            timed = spread(queries, min(len(queries), max(MIN_TIMED_QUERIES, budget_count)))
        round_latencies = []
        for query in timed:
            started = time.perf_counter()
            searcher.search(query, SEARCH_K)
            round_latencies.append(time.perf_counter() - started)
        latencies.append(round_latencies)
        del searcher

    gc.collect()
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        searcher = _build(engine, tools, queries[0])
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del searcher

    fastest = np.array(latencies).min(axis=0) * 1000
    p50, p99 = np.percentile(fastest, [50, 99])
    return SpeedRow(
        engine=engine.label,
        size=len(tools),
        build_seconds=min(build_times),
        peak_bytes=peak - baseline,
        kept_bytes=kept - baseline,
        p50_ms=float(p50),
        p99_ms=float(p99),
        timed_queries=len(timed),
    )


def run_speed(
    tools: Sequence[Tool],
    engines: Sequence[Engine],
    queries: Sequence[str],
    sizes: Sequence[int],
    *,
    time_budget: float,
) -> Table:
    rows = []
    # What was alive before is left out of the collections measure_speed runs before each
    # build: scanning the whole heap (the BFCL data, the earlier tables' engines) took longer
    # than building a small catalog's index.
    gc.collect()
    gc.freeze()
    try:
        for size in sizes:
            catalog = scaled_tools(tools, size)
            rows += [
                measure_speed(engine, catalog, queries, time_budget=time_budget)
                for engine in engines
            ]
    finally:
        gc.unfreeze()
    return _table(rows, len(queries), time_budget)


def _build(engine: Engine, tools: Sequence[Tool], first_query: str) -> Searcher:
    searcher = engine.build(tools)
    searcher.search(first_query, SEARCH_K)
    return searcher


def _table(rows: Sequence[SpeedRow], query_count: int, time_budget: float) -> Table:
    table = Table(
        title="Speed and scale",
        columns=[
            "engine",
            "tools",
            "build s",
            "build peak MB",
            "index MB",
            "p50 ms",
            "p99 ms",
            "queries",
        ],
    )
    for row in rows:
        table.rows.append(
            [
                row.engine,
                f"{row.size:,}",
                f"{row.build_seconds:.2f}",
                f"{row.peak_bytes / 2**20:.1f}",
                f"{row.kept_bytes / 2**20:.1f}",
                f"{row.p50_ms:.2f}",
                f"{row.p99_ms:.2f}",
                f"{row.timed_queries}" + ("" if row.timed_queries == query_count else " (capped)"),
            ]
        )
    table.notes = [
        "build s: construction plus the first search (FastMCP and toolscout index lazily).",
        f"Each engine is built and timed {ROUNDS} times, each time on a fresh index that has "
        "seen no query; build s and each query's time are the fastest of the rounds, which "
        "leaves out bursts of load from elsewhere on the machine.",
        "build peak MB / index MB: tracemalloc's peak during a separate build, and what the "
        "built index still holds (Python and NumPy allocations; the tool list itself excluded).",
        f"p50 / p99: one search for the top {SEARCH_K}, over BFCL dev queries after "
        f"{WARMUP_QUERIES} warm-up searches; 'capped' engines were timed on fewer than "
        f"{query_count} queries to keep to about {time_budget:.0f} s a round.",
        "Larger catalogs repeat the pooled BFCL tools under new names (`_c1`, `_c2`...).",
        "toolscout regex keeps the last 256 compiled patterns for the whole process, not per "
        "index: its first round compiles the queries' patterns and every later search reuses "
        "them. FastMCP's regex compiles each search's pattern anew.",
    ]
    return table
