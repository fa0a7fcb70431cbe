"""Retrieval quality on real MCP servers' tools: a development set of the kind the project is
judged on (requests and multi-step agent tasks over hundreds of tools of dozens of servers).

The catalog, `data/mcp_dev_catalog.json`, is what real public MCP servers answer to
`tools/list`, recorded by `scripts/build_mcp_dev_catalog.py` (see `MCP_DEV_CATALOG_NOTICE.md`).
The tasks, `data/mcp_dev_tasks.json`, are toolscout's own, of four kinds:

- `single`: one need, in a user's words, mostly not the tool's own;
- `multi`: a task as an agent receives it, needing two to five tools, often of several servers;
- `chinese`: Chinese on one side: requests, in English or Chinese, that tools described in
  Chinese serve, and Chinese translations of `single` requests that tools described in
  English serve;
- `none`: requests no tool of the catalog serves, which measure abstention.

A task lists its needs; each need lists every tool that would be a right choice for it (the
web search of each search server, say). A need counts as found at k when any of its tools is
in the top k, so a task with three needs scores 2/3 when two are covered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from statistics import fmean
from typing import Literal, get_args

from benchmarks.bfcl import Split, split_of, spread
from benchmarks.metrics import NDCG_CUTOFF, RECALL_CUTOFFS, abstention_rate
from benchmarks.peers import AbstainingSearcher, Engine, Searcher, ToolscoutSearcher
from benchmarks.report import Table
from toolscout.catalog import Tool

DATA = Path(__file__).parent / "data"
CATALOG_FILE = DATA / "mcp_dev_catalog.json"
TASKS_FILE = DATA / "mcp_dev_tasks.json"

#: Results asked per task with the threshold off, as the held-out check does.
RANKING_DEPTH = 100
#: Results asked per request at the default threshold, a typical `search_tools` page.
PAGE_K = 5
#: A multi-step task is "complete" when every one of its needs is served in this many results.
COMPLETE_K = 10

Kind = Literal["single", "multi", "chinese", "none"]


@dataclass(frozen=True, slots=True)
class Task:
    """One request or agent task over the catalog."""

    text: str
    kind: Kind
    needs: tuple[frozenset[str], ...]
    """For each need, the ids (`server__tool`) of every tool that serves it; empty for `none`."""
    split: Split
    """`dev` to tune on, `test` to report: `benchmarks.bfcl.split_of` of the text."""

    @property
    def relevant(self) -> frozenset[str]:
        """Every tool that serves some need."""
        return frozenset().union(*self.needs)


@dataclass(frozen=True)
class McpDevData:
    """The catalog of real MCP tools and the tasks over it."""

    tools: tuple[Tool, ...]
    """Every server's tools, namespaced by server: ids are `server__tool`."""
    servers: tuple[str, ...]
    tasks: tuple[Task, ...]

    def tasks_in(self, split: Split, *kinds: Kind) -> list[Task]:
        """The tasks of one split, of the given kinds (all kinds when none is given)."""
        return [
            task for task in self.tasks if task.split == split and (not kinds or task.kind in kinds)
        ]

    def sample_of(self, split: Split, limit: int | None) -> list[Task]:
        """The tasks of one split, at most `limit` of each kind, evenly spread (all for None):
        a sample keeps every kind, so every column of the table is still computed."""
        if limit is None:
            return self.tasks_in(split)
        return [
            task for kind in get_args(Kind) for task in spread(self.tasks_in(split, kind), limit)
        ]


@cache
def load_mcp_dev(catalog_file: Path = CATALOG_FILE, tasks_file: Path = TASKS_FILE) -> McpDevData:
    """Load the catalog and the tasks (cached: the files never change in a run).

    Raises:
        ValueError: a task names a tool the catalog lacks, has an unknown kind, or its needs
            do not fit its kind.
    """
    servers = json.loads(catalog_file.read_text(encoding="utf-8"))
    tools = tuple(
        Tool(
            name=tool["name"],
            namespace=server,
            description=tool["description"],
            input_schema=tool["inputSchema"],
        )
        for server, entry in servers.items()
        for tool in entry["tools"]
    )
    ids = {tool.id for tool in tools}
    tasks = tuple(_task(entry, ids) for entry in json.loads(tasks_file.read_text("utf-8")))
    return McpDevData(tools, tuple(servers), tasks)


def _task(entry: dict[str, object], ids: set[str]) -> Task:
    text, kind, needs = entry["text"], entry["kind"], entry["needs"]
    if not isinstance(text, str) or kind not in get_args(Kind) or not isinstance(needs, list):
        raise ValueError(f"malformed task: {entry!r}")
    task = Task(text, kind, tuple(frozenset(need) for need in needs), split_of(text))
    if unknown := task.relevant - ids:
        raise ValueError(f"task {text!r} names tools the catalog lacks: {sorted(unknown)}")
    if (kind == "none") != (not task.needs) or not all(task.needs):
        raise ValueError(
            f"task {text!r}: a `none` task has no needs, any other only non-empty ones"
        )
    return task


def plain_tools(tools: Sequence[Tool]) -> list[Tool]:
    """The tools as a gateway without namespaces would list them: each under its id as name,
    so engines that know nothing of namespaces answer with ids too."""
    return [
        Tool(name=tool.id, description=tool.description, input_schema=tool.input_schema)
        for tool in tools
    ]


# Metrics over needs -------------------------------------------------------------------------


def needs_found_at(ranking: Sequence[str], needs: Sequence[frozenset[str]], k: int) -> float:
    """The share of needs with at least one of their tools in the top `k`."""
    top = set(ranking[:k])
    return sum(bool(need & top) for need in needs) / len(needs)


def needs_ndcg_at(
    ranking: Sequence[str], needs: Sequence[frozenset[str]], k: int = NDCG_CUTOFF
) -> float:
    """nDCG at `k` where a result gains 1 when it serves a need not served higher up (one need
    per result); the ideal serves each need once, at the top. A second search tool for "search
    the web" gains nothing, so alternatives for one need never count twice."""
    unserved = list(needs)
    gain = 0.0
    for rank, name in enumerate(ranking[:k], 1):
        served = next((need for need in unserved if name in need), None)
        if served is not None:
            unserved.remove(served)
            gain += 1 / math.log2(rank + 1)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(needs), k) + 1))
    return gain / ideal


def first_hit_reciprocal_rank(ranking: Sequence[str], relevant: frozenset[str]) -> float:
    return next((1 / rank for rank, name in enumerate(ranking, 1) if name in relevant), 0.0)


@dataclass(frozen=True, slots=True)
class McpQuality:
    """One engine's figures on one split."""

    engine: str
    found: dict[int, float]
    """Cutoff k → mean share of needs found in the top k (threshold off)."""
    ndcg: float
    ndcg_by_kind: dict[Kind, float]
    mrr: float
    complete: float
    """Share of multi-step tasks with every need found in the top `COMPLETE_K`."""
    found5_at_default: float | None
    """Needs found in the top 5 at the engine's default threshold; None without a threshold."""
    abstention: float
    """Share of `none` requests answered with nothing (default threshold, top `PAGE_K`)."""
    tasks: int


def measure(label: str, searcher: Searcher, tasks: Sequence[Task]) -> McpQuality:
    """Rank every task at depth `RANKING_DEPTH` with the threshold off; then the served tasks
    and the `none` ones again at the default threshold, as a user gets them."""
    served = [task for task in tasks if task.kind != "none"]
    unserved = [task for task in tasks if task.kind == "none"]
    unlimited = searcher.without_threshold() if isinstance(searcher, AbstainingSearcher) else None
    rankings = [(unlimited or searcher).search(task.text, RANKING_DEPTH) for task in served]
    kinds = {task.kind for task in served}
    multi = [r for r, task in zip(rankings, served, strict=True) if task.kind == "multi"]
    multi_needs = [task.needs for task in served if task.kind == "multi"]
    at_default = None
    if unlimited is not None:
        paged = [searcher.search(task.text, PAGE_K) for task in served]
        at_default = fmean(
            needs_found_at(r, task.needs, PAGE_K) for r, task in zip(paged, served, strict=True)
        )
    pairs = list(zip(rankings, served, strict=True))
    return McpQuality(
        engine=label,
        found={k: fmean(needs_found_at(r, t.needs, k) for r, t in pairs) for k in RECALL_CUTOFFS},
        ndcg=fmean(needs_ndcg_at(r, t.needs) for r, t in pairs),
        ndcg_by_kind={
            kind: fmean(needs_ndcg_at(r, t.needs) for r, t in pairs if t.kind == kind)
            for kind in get_args(Kind)
            if kind in kinds
        },
        mrr=fmean(first_hit_reciprocal_rank(r, t.relevant) for r, t in pairs),
        complete=fmean(
            needs_found_at(r, needs, COMPLETE_K) == 1.0
            for r, needs in zip(multi, multi_needs, strict=True)
        )
        if multi
        else math.nan,
        found5_at_default=at_default,
        abstention=abstention_rate([searcher.search(task.text, PAGE_K) for task in unserved])
        if unserved
        else math.nan,
        tasks=len(tasks),
    )


def run_mcp_tasks(
    engines: Sequence[Engine],
    splits: Sequence[Split],
    data: McpDevData | None = None,
    *,
    limit: int | None = None,
) -> list[Table]:
    """One table per split, every engine built once on the whole catalog; with `limit`, on
    at most that many tasks of each kind per split."""
    data = data or load_mcp_dev()
    plain = plain_tools(data.tools)
    tasks = {split: data.sample_of(split, limit) for split in splits}
    rows: dict[Split, list[McpQuality]] = {split: [] for split in splits}
    for engine in engines:
        searcher = engine.build(data.tools if engine.namespaced else plain)
        if isinstance(searcher, ToolscoutSearcher):
            searcher = searcher.answering_ids()
        for split in splits:
            rows[split].append(measure(engine.label, searcher, tasks[split]))
    return [_table(split, rows[split], tasks[split], data) for split in splits]


def _table(
    split: Split, rows: Sequence[McpQuality], tasks: Sequence[Task], data: McpDevData
) -> Table:
    counts = {kind: sum(task.kind == kind for task in tasks) for kind in get_args(Kind)}
    table = Table(
        title=(
            f"Real MCP tools, {split} split: {len(tasks)} tasks "
            f"({', '.join(f'{n} {kind}' for kind, n in counts.items())}) over "
            f"{len(data.tools)} tools of {len(data.servers)} servers"
        ),
        columns=[
            "engine",
            *(f"R@{k}" for k in RECALL_CUTOFFS),
            f"nDCG@{NDCG_CUTOFF}",
            "MRR",
            *(f"nDCG {kind}" for kind in ("single", "multi", "chinese")),
            f"multi all@{COMPLETE_K}",
            f"R@{PAGE_K} default",
            "abstain %",
        ],
    )
    for row in rows:
        table.rows.append(
            [
                row.engine,
                *(f"{row.found[k]:.3f}" for k in RECALL_CUTOFFS),
                f"{row.ndcg:.3f}",
                f"{row.mrr:.3f}",
                *(
                    f"{row.ndcg_by_kind.get(kind, math.nan):.3f}"
                    for kind in ("single", "multi", "chinese")
                ),
                f"{row.complete:.3f}",
                "—" if row.found5_at_default is None else f"{row.found5_at_default:.3f}",
                f"{100 * row.abstention:.1f}",
            ]
        )
    table.notes = [
        f"Ranking figures: threshold off, the top {RANKING_DEPTH} asked. R@k: share of a task's "
        "needs with one of their tools in the top k (a need lists every tool that serves it). "
        f"nDCG@{NDCG_CUTOFF}: a result gains when it serves a need not served above it. MRR: "
        "first tool serving any need.",
        f"multi all@{COMPLETE_K}: multi-step tasks with every need served in the top {COMPLETE_K}.",
        f"R@{PAGE_K} default: R@{PAGE_K} at the engine's default threshold (— for engines "
        f"without one). abstain %: `none` requests answered with nothing in the top {PAGE_K} at "
        "the default threshold; engines without one abstain only when no word matches.",
        "toolscout engines get each server's tools in a namespace; the peers get them named "
        "by id (`server__tool`), as a gateway lists them.",
    ]
    return table
