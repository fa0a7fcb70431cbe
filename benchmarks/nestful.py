"""Multi-step tasks from public data nobody here wrote: NESTFUL and ComplexFuncBench.

NESTFUL (IBM, Apache-2.0) is a set of requests each answered by a sequence of API calls, the
output of one feeding the next: "find flights from New York to London ... and find hotels in
London" calls an airport search twice, a flight search, a location search and a hotel search.
Its package, `nestful-wrapper`, also carries ComplexFuncBench (THUDM), a thousand longer
requests over the booking APIs of one travel site, in the same form. Both are read from the
installed package, never the network; `make bench` installs it without its dependencies,
which reading the data does not need.

The API specifications of all four collections (NESTFUL's executable RapidAPI calls, its Glaive
and Schema-Guided Dialogue functions, and ComplexFuncBench's booking APIs) make one catalog of
173 tools. Each request is a task whose needs are the distinct APIs its sequence calls, in
order, one tool per need: a task is served in full when every API it calls is found. Requests
need tools they never name (a flight search needs the airport search that gives it its codes),
so this measures what a retriever infers as well as what it matches.

They check that what was tuned elsewhere (BFCL dev, the MCP development set) holds on data of
another kind. Two settings were chosen on their dev splits, after everything else was in
place: how late a need much weaker than the whole request joins the results
(`toolscout.search.index.WEAK_NEED_SHARE`), and which hits bring the tools that give them their
values (`PREREQUISITE_SHARE`). Their test splits are for reporting.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from statistics import fmean
from typing import Any

from benchmarks.bfcl import Split, split_of, spread
from benchmarks.mcp_tasks import COMPLETE_K, McpQuality, Task, measure
from benchmarks.metrics import NDCG_CUTOFF, RECALL_CUTOFFS
from benchmarks.peers import Engine, ToolscoutSearcher
from benchmarks.report import Table
from toolscout.catalog import Tool

#: The package the data comes from, and the version whose data was measured.
PACKAGE = "nestful-wrapper"
PACKAGE_VERSION = "0.1.7"

#: Each collection's API specifications and requests, inside the package's `data_v1`.
COLLECTIONS: dict[str, tuple[str, str]] = {
    "nestful": ("executable/executable-spec.json", "executable/executable-data.json"),
    "glaive": (
        "non-executable/non-executable-glaive-spec.json",
        "non-executable/non-executable-glaive-data.json",
    ),
    "sgd": (
        "non-executable/non-executable-sgd-spec.json",
        "non-executable/non-executable-sgd-data.json",
    ),
    "complexfuncbench": (
        "complexfuncbench/complexfuncbench-spec.json",
        "complexfuncbench/complexfuncbench-data.json",
    ),
}

#: The task sets reported apart: NESTFUL's three collections together, and ComplexFuncBench,
#: whose requests are longer and whose APIs are one site's.
TASK_SETS: dict[str, tuple[str, ...]] = {
    "NESTFUL": ("nestful", "glaive", "sgd"),
    "ComplexFuncBench": ("complexfuncbench",),
}

# The last call of a NESTFUL sequence gathers the results; it is no API.
_RESULT_CALL = "var_result"
_JSON_SCHEMA_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})


@dataclass(frozen=True)
class NestfulData:
    """The pooled catalog and each task set's tasks."""

    tools: tuple[Tool, ...]
    task_sets: dict[str, tuple[Task, ...]]


def nestful_unavailable() -> str | None:
    """Why the data cannot be read, or None when it can."""
    try:
        version(PACKAGE)
    except PackageNotFoundError:
        return f"{PACKAGE} is not installed (make bench installs it)"
    return None


@cache
def load_nestful() -> NestfulData:
    """Read the installed package's specifications and requests (cached: they never change).

    Raises:
        ValueError: a request calls an API no specification describes, or two collections
            describe one name.
    """
    root = resources.files("data_v1")
    tools: dict[str, Tool] = {}
    tasks: dict[str, list[Task]] = {}
    for collection, (spec_file, data_file) in COLLECTIONS.items():
        for spec in json.loads((root / spec_file).read_text(encoding="utf-8")):
            if spec["name"] in tools:
                raise ValueError(f"{spec['name']!r} is described twice")
            tools[spec["name"]] = _tool(spec)
        for case in json.loads((root / data_file).read_text(encoding="utf-8")):
            tasks.setdefault(collection, []).append(_task(case, tools))
    return NestfulData(
        tuple(tools.values()),
        {
            name: tuple(task for collection in collections for task in tasks[collection])
            for name, collections in TASK_SETS.items()
        },
    )


def _tool(spec: dict[str, Any]) -> Tool:
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    for name, parameter in (spec.get("query_parameters") or {}).items():
        declared = parameter.get("type")
        schema: dict[str, Any] = {"type": declared if declared in _JSON_SCHEMA_TYPES else "string"}
        if parameter.get("description"):
            schema["description"] = parameter["description"]
        if values := parameter.get("enum") or parameter.get("allowed_values"):
            schema["enum"] = values
        properties[name] = schema
        if parameter.get("required") is True:
            required.append(name)
    return Tool(
        name=spec["name"],
        description=spec.get("description") or "",
        input_schema={"type": "object", "properties": properties, "required": required},
    )


def _task(case: dict[str, Any], tools: dict[str, Tool]) -> Task:
    text = case["input"].strip()
    called = dict.fromkeys(call["name"] for call in case["output"] if call["name"] != _RESULT_CALL)
    if unknown := called.keys() - tools.keys():
        raise ValueError(f"{text[:60]!r} calls APIs no specification describes: {unknown}")
    needs = tuple(frozenset([name]) for name in called)
    return Task(text, "multi" if len(needs) > 1 else "single", needs, split_of(text))


def run_nestful(
    engines: Sequence[Engine],
    splits: Sequence[Split],
    data: NestfulData | None = None,
    *,
    limit: int | None = None,
) -> list[Table]:
    """One table per task set and split, every engine built once on the pooled catalog; with
    `limit`, on at most that many tasks of each set per split."""
    data = data or load_nestful()
    tasks = {
        (name, split): spread([task for task in task_set if task.split == split], limit)
        for name, task_set in data.task_sets.items()
        for split in splits
    }
    rows: dict[tuple[str, Split], list[McpQuality]] = {key: [] for key in tasks}
    for engine in engines:
        searcher = engine.build(data.tools)
        if isinstance(searcher, ToolscoutSearcher):
            searcher = searcher.answering_ids()
        for key, chosen in tasks.items():
            rows[key].append(measure(engine.label, searcher, chosen))
    return [
        _table(name, split, rows[name, split], tasks[name, split], len(data.tools))
        for name, split in tasks
    ]


def _table(
    name: str, split: Split, rows: Sequence[McpQuality], tasks: Sequence[Task], n_tools: int
) -> Table:
    needs = fmean(len(task.needs) for task in tasks)
    table = Table(
        title=(
            f"{name}, {split} split: {len(tasks)} tasks of {needs:.1f} APIs on average over "
            f"the {n_tools} pooled APIs"
        ),
        columns=[
            "engine",
            *(f"R@{k}" for k in RECALL_CUTOFFS),
            f"nDCG@{NDCG_CUTOFF}",
            "MRR",
            f"all@{COMPLETE_K}",
            "R@5 default",
        ],
    )
    for row in rows:
        table.rows.append(
            [
                row.engine,
                *(f"{row.found[k]:.3f}" for k in RECALL_CUTOFFS),
                f"{row.ndcg:.3f}",
                f"{row.mrr:.3f}",
                "—" if math.isnan(row.complete) else f"{row.complete:.3f}",
                "—" if row.found5_at_default is None else f"{row.found5_at_default:.3f}",
            ]
        )
    table.notes = [
        f"From the {PACKAGE} package, version {PACKAGE_VERSION}. Its dev splits chose two "
        "settings: the delay of needs much weaker than the whole request (WEAK_NEED_SHARE), "
        "and which hits bring their prerequisites (PREREQUISITE_SHARE).",
        "A task's needs are the distinct APIs its call sequence calls, one tool each. R@k: "
        f"share of a task's APIs in the top k. nDCG@{NDCG_CUTOFF}: a result gains when it is "
        "an API not found above it. MRR: first of the task's APIs.",
        f"all@{COMPLETE_K}: tasks of several APIs with every one of them in the top "
        f"{COMPLETE_K}. Ranking figures: threshold off, the top 100 asked. R@5 default: at "
        "the engine's default threshold (— for engines without one).",
    ]
    return table
