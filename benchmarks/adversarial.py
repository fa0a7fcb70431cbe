"""Worst cases, measured: the slowest regular expressions and schema patterns we could write,
and what a stalled state store costs the other sessions.

- Regex search: each pattern of `REGEX_PATTERNS` searched once (the first time, so RE2's
  compilation counts) over the demo catalog and over 100,001 generated tools, through
  `ToolIndex.search` and through `ToolSearch`'s `search_tools` with five variants of the
  pattern in one call; CPU time of the searching thread and wall time.
- Schema patterns: a tool whose input schema holds each pattern of `SCHEMA_PATTERNS`, called
  through `ToolSearch` with arguments made to defeat it; the time to check the arguments.
- Stalled store: N sessions' requests (`aprepare` and a `search_tools` call each) against a
  Redis server that accepts connections and never answers, and against a SQLite file that
  another process keeps locked, while other sessions on the same event loop use an
  in-memory store; their latency, and the event loop's longest stall.

`python -m benchmarks.adversarial [--quick]` prints the tables. Each measurement runs in a
subprocess of its own, so that one that went wrong cannot hold up the rest.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import Table

REGEX_PATTERNS = [
    r"(\p{L}|\d){60}#",
    r"\p{L}{120}#",
    r"[\p{L}\p{N}]{200}",
    r"(?s)(.*a){20}",
    r"(?s).{150}z.{40}#",
    r"(?s).{0,1000}.{0,1000}#",
    r"(?s)(a|.){0,1000}#",
    r"(\w+\s?)*#",
    r"[a-q][^u-z]{13}x",
    r"(?s)(.{3}){300}#",
    r"(x+x+)+y",
    r"^get_current_weather$",
]

# Each pattern, and the argument made to defeat it: `unit` repeated `count` times, then `end`.
SCHEMA_PATTERNS = [
    (r"^(a+)+$", ("a", 27, "!")),
    (r"^(a|aa)+$", ("a", 40, "!")),
    (r"^(\w+\s?)*$", ("word ", 30, "!")),
    (r"^(a+)+$", ("a", 1_000_000, "!")),
    (r"(\p{L}|\d){60}#", ("é", 1_000_000, "")),
    (r"(.*){1000}#", ("a", 19_000, "")),
    (r"(?s)(a|.){0,1000}#", ("x", 19_000, "")),
    (r"^(?!admin).*$", ("admin", 1, "")),
]

_REGEX_RUN = r"""
import json, sys, time
from toolscout import Catalog, Tool, ToolIndex
from toolscout.data import demo_catalog_path
from toolscout.protocol import ToolCall, ToolSearch

which, pattern = sys.argv[1], sys.argv[2]
if which == "demo":
    catalog = Catalog.from_file(demo_catalog_path())
else:
    verbs = ["get", "list", "create", "update", "delete", "sync", "export", "archive"]
    nouns = ["invoice", "ticket", "order", "shipment", "contact", "report", "asset", "lead"]
    catalog = Catalog([
        *(Tool(name=f"{verbs[i % 8]}_{nouns[(i // 8) % 8]}_{i}",
               description=f"{verbs[i % 8].title()} a {nouns[(i // 8) % 8]} in system {i % 101}.",
               namespace=f"service{i % 50}") for i in range(100_000)),
        Tool(name="get_current_weather", description="Get the current weather for a city."),
    ])
index = ToolIndex(catalog, engine="regex")
index.refresh()
cpu, wall = time.thread_time(), time.monotonic()
results = index.search(pattern, k=5)
index_cpu, index_wall = time.thread_time() - cpu, time.monotonic() - wall
search = ToolSearch(catalog, engine="regex", mode="proxy", index=index)
search.execute(ToolCall("search_tools", {"queries": ["^warm"]}))  # token counting loads once
variants = [pattern] + [f"{pattern}|zz{n}q" if len(pattern) < 195 else pattern for n in range(4)]
cpu, wall = time.process_time(), time.monotonic()  # the search runs in a worker thread
search.execute(ToolCall("search_tools", {"queries": variants}))
print(json.dumps({
    "hits": len(results), "stopped": "stopped" in (results.notice or ""),
    "index_cpu": index_cpu, "index_wall": index_wall,
    "meta_cpu": time.process_time() - cpu, "meta_wall": time.monotonic() - wall,
}))
"""


def run_regex(quick: bool) -> Table:
    rows = []
    catalogs = ["demo"] if quick else ["demo", "100k"]
    for which in catalogs:
        for pattern in REGEX_PATTERNS:
            measured = _subprocess(_REGEX_RUN, which, pattern)
            rows.append(
                [
                    which,
                    f"`{pattern}`",
                    _cell(measured, "hits", "{:d}"),
                    "yes" if measured and measured["stopped"] else "",
                    _cell(measured, "index_cpu", "{:.3f}"),
                    _cell(measured, "index_wall", "{:.3f}"),
                    _cell(measured, "meta_cpu", "{:.3f}"),
                    _cell(measured, "meta_wall", "{:.3f}"),
                ]
            )
    return Table(
        "Regex search: the slowest patterns we could write (seconds)",
        [
            "catalog",
            "pattern",
            "hits",
            "budget hit",
            "index cpu",
            "index wall",
            "search_tools ×5 cpu",
            "search_tools ×5 wall",
        ],
        rows,
        notes=[
            "index: `ToolIndex.search(pattern, k=5)`, the first time (RE2 compiles the pattern).",
            "search_tools ×5: one `search_tools` call with the pattern and four variants of it.",
            "index cpu: the searching thread's CPU time, what `RegexOptions.time_budget` "
            "(0.1 s per query) counts; search_tools cpu: the process's, since `ToolSearch` "
            "runs regex searches in a worker thread; wall: elapsed, which a busy machine "
            "stretches.",
        ],
    )


_SCHEMA_RUN = r"""
import json, sys, time
from toolscout import Tool
from toolscout.protocol import ToolCall, ToolSearch

pattern, (unit, count, end) = sys.argv[1], json.loads(sys.argv[2])
value = unit * count + end
tool = Tool(
    name="guarded",
    description="A tool whose argument must match a pattern.",
    input_schema={"type": "object", "properties": {"text": {"type": "string", "pattern": pattern}}},
    deferred=False,
    handler=lambda text: "ran",
)
search = ToolSearch([tool])
cpu, wall = time.process_time(), time.monotonic()
result = search.execute(ToolCall("guarded", {"text": value}))
print(json.dumps({
    "cpu": time.process_time() - cpu, "wall": time.monotonic() - wall,
    "outcome": "ran" if not result.is_error
               else result.content.splitlines()[0].split(": ", 1)[1][:90],
}))
"""


def run_schema_patterns() -> Table:
    rows = []
    for pattern, (unit, count, end) in SCHEMA_PATTERNS:
        measured = _subprocess(_SCHEMA_RUN, pattern, json.dumps([unit, count, end]))
        shown = f"{unit!r} × {count:,} + {end!r}" if count > 1 else repr(unit + end)
        rows.append(
            [
                f"`{pattern}`",
                shown,
                measured["outcome"] if measured else "(timed out)",
                _cell(measured, "cpu", "{:.3f}"),
                _cell(measured, "wall", "{:.3f}"),
            ]
        )
    return Table(
        "Schema patterns: checking one call's arguments (seconds)",
        ["pattern", "argument", "outcome", "cpu", "wall"],
        rows,
        notes=[
            "One `execute` of a tool whose input schema holds the pattern, in a new process; "
            "cpu: the process's CPU time (the check runs in a worker thread).",
        ],
    )


_STORE_RUN = r"""
import asyncio, json, sys, time
from toolscout import Tool
from toolscout.protocol import ToolCall, ToolSearch
from toolscout.state import InMemoryStore, RedisStore, SQLiteStore

kind, target, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3])
tools = [Tool(name=f"tool_{n}", description=f"Send report number {n}.") for n in range(200)]
# The defaults: a 5 s socket timeout for Redis, a 30 s lock timeout for SQLite.
stalled_store = RedisStore(target) if kind == "redis" else SQLiteStore(target)
stalled = ToolSearch(tools, mode="load", store=stalled_store)
healthy = ToolSearch(tools, mode="load", store=InMemoryStore())
# Warm up what loads once (the index, token counting), so that only the stores are measured.
healthy.execute(ToolCall("search_tools", {"queries": ["send report"]}), "warm-up")
stalled.index.refresh()
print("ready", flush=True)
sys.stdin.readline()  # the store stalls from now on


async def session(search, number):
    began = time.monotonic()
    thread = f"session-{number}"
    for step in (
        lambda: search.aprepare(thread),
        lambda: search.aexecute(ToolCall("search_tools", {"queries": ["send report"]}), thread),
    ):
        try:
            await step()
        except Exception:  # a store that fails: what matters here is how long it took
            pass
    return time.monotonic() - began


async def main():
    stall = 0.0
    done = False

    async def watch():
        nonlocal stall
        while not done:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            stall = max(stall, time.monotonic() - before - 0.01)

    watcher = asyncio.create_task(watch())
    began = time.monotonic()
    stalled_runs = [asyncio.create_task(session(stalled, n)) for n in range(sessions)]
    await asyncio.sleep(0.05)
    healthy_latencies = await asyncio.gather(*(session(healthy, n) for n in range(sessions)))
    stalled_latencies = await asyncio.gather(*stalled_runs)
    total = time.monotonic() - began
    done = True
    await watcher
    print(json.dumps({
        "stalled_max": max(stalled_latencies), "healthy_max": max(healthy_latencies),
        "healthy_median": sorted(healthy_latencies)[len(healthy_latencies) // 2],
        "total": total, "loop_stall": stall,
    }))

asyncio.run(main())
"""

_HOLD_LOCK = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
"""


def run_stalled_store(sessions: int) -> Table:
    import socket
    import threading

    rows = []
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        url = f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
        measured = _store_run("redis", url, sessions, stall=lambda: None)
        rows.append(_store_row("Redis that never answers", measured))
    finally:
        listener.close()
        for connection in held:
            connection.close()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.db"
        holders: list[subprocess.Popen[str]] = []

        def lock() -> None:  # once the store is open: opening it needs the lock too
            holder = subprocess.Popen(
                [sys.executable, "-c", _HOLD_LOCK, str(path)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            holders.append(holder)
            assert holder.stdout is not None
            holder.stdout.readline()

        try:
            measured = _store_run("sqlite", str(path), sessions, stall=lock)
            rows.append(_store_row("SQLite locked by another process", measured))
        finally:
            for holder in holders:
                assert holder.stdin is not None
                holder.stdin.close()
                holder.wait(timeout=30)
    return Table(
        f"A stalled store: {sessions} sessions on it, {sessions} on an in-memory store (s)",
        [
            "stalled store",
            "stalled sessions, slowest",
            "healthy sessions, median",
            "healthy sessions, slowest",
            "event loop's longest stall",
            "all done",
        ],
        rows,
        notes=[
            "Each session: `aprepare` then one `search_tools` call (mode load), all on one "
            "event loop; the healthy sessions start once the stalled ones are waiting. "
            "Each request on the stalled store fails closed after `store_timeout` (5 s): "
            "a stalled session's two requests take 10 s.",
            "The stalled stores, with their default timeouts: a TCP server that accepts "
            "connections and never answers (RedisStore, 5 s); a SQLite file another process "
            "holds BEGIN EXCLUSIVE on (SQLiteStore, 30 s).",
        ],
    )


def _store_run(
    kind: str, target: str, sessions: int, *, stall: Callable[[], None]
) -> dict[str, Any] | None:
    run = subprocess.Popen(
        [sys.executable, "-c", _STORE_RUN, kind, target, str(sessions)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert run.stdin is not None and run.stdout is not None
    try:
        run.stdout.readline()  # "ready": the stores are open
        stall()
        run.stdin.write("go\n")
        run.stdin.flush()
        output, _ = run.communicate(timeout=3600)
    except subprocess.TimeoutExpired:
        run.kill()
        run.wait()
        return None
    return dict(json.loads(output.strip().splitlines()[-1]))


def _store_row(label: str, measured: dict[str, Any] | None) -> list[str]:
    return [
        label,
        _cell(measured, "stalled_max", "{:.2f}"),
        _cell(measured, "healthy_median", "{:.3f}"),
        _cell(measured, "healthy_max", "{:.3f}"),
        _cell(measured, "loop_stall", "{:.3f}"),
        _cell(measured, "total", "{:.2f}"),
    ]


def _subprocess(code: str, *arguments: str, limit: float = 600) -> dict[str, Any] | None:
    try:
        finished = subprocess.run(
            [sys.executable, "-c", code, *arguments],
            capture_output=True,
            text=True,
            timeout=limit,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as error:
        raise RuntimeError(error.stderr) from None
    return dict(json.loads(finished.stdout.strip().splitlines()[-1]))


def _cell(measured: dict[str, Any] | None, key: str, form: str) -> str:
    return "(timed out)" if measured is None else form.format(measured[key])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.adversarial", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the demo catalog only, 20 sessions")
    parser.add_argument(
        "--only", choices=["regex", "schema", "store"], help="run one of the measurements"
    )
    parser.add_argument("--sessions", type=int, help="sessions on each store (default 100)")
    args = parser.parse_args(argv)
    from benchmarks.report import to_markdown

    tables = []
    if args.only in (None, "regex"):
        tables.append(run_regex(args.quick))
    if args.only in (None, "schema"):
        tables.append(run_schema_patterns())
    if args.only in (None, "store"):
        tables.append(run_stalled_store(args.sessions or (20 if args.quick else 100)))
    print(to_markdown(tables, heading="Worst cases"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
