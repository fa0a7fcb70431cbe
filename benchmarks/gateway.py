"""The MCP gateway, measured with real processes: `toolscout serve` over stdio in front of test
servers that each serve a slice of the BFCL pool (`tests/gateway/servers/catalog.py`).

- Tokens: the tool list a client gets through the gateway, against the tool lists of every
  server connected directly (o200k_base, compact MCP JSON), and what one search adds.
- Call latency: a call straight to a server, against the same call through the gateway, as a
  pinned tool and through `call_tool`.
- `search_tools` latency with 10 servers and 2,000 tools, through the gateway, and the
  index's own share of it.

`python -m benchmarks.gateway [--quick]` prints the tables; `benchmarks/run.py` includes them.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.report import Table
from benchmarks.speed import scaled_tools
from toolscout.catalog import Tool
from toolscout.catalog.export import to_mcp
from toolscout.catalog.tokens import count_tokens

SERVER = Path(__file__).resolve().parents[1] / "tests" / "gateway" / "servers" / "catalog.py"
TOOLSCOUT = Path(sys.executable).with_name("toolscout")


@dataclass(frozen=True)
class Setup:
    label: str
    servers: int
    tools_per_server: int


#: Twenty servers of fifteen tools, like a well-stocked desktop; ten of two hundred, for scale.
SETUPS = (Setup("20 servers", 20, 15), Setup("10 servers", 10, 200))
#: The tool the latency is measured with: the first tool of the first two servers.
ECHO = {
    "name": "echo",
    "description": "Answer with the text given.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text."}},
        "required": ["text"],
    },
}
ECHO_ARGUMENTS = {"text": "hello"}


def gateway_unavailable() -> str | None:
    """Why the gateway cannot be measured here, or None."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        return "the mcp extra is not installed (pip install -e '.[mcp]')"
    if not TOOLSCOUT.exists():
        return f"{TOOLSCOUT} is missing (pip install -e .)"
    return None


def run_gateway(
    tools: Sequence[Tool], queries: Sequence[str], *, quick: bool = False
) -> list[Table]:
    """The three gateway tables."""
    import anyio

    calls = 200 if quick else 1_000
    searches = list(queries[: 50 if quick else 200])
    with tempfile.TemporaryDirectory() as folder:
        return anyio.run(_measure, list(tools), searches, calls, Path(folder))


async def _measure(tools: list[Tool], queries: list[str], calls: int, folder: Path) -> list[Table]:
    token_rows = []
    for setup in SETUPS:
        files = _server_files(tools, setup, folder / setup.label.replace(" ", "-"))
        direct = 0
        async with _clients(*(_server(file) for file in files)) as clients:
            for client in clients:
                direct += _tokens([_wire(t) for t in (await client.list_tools()).tools])
        config = _config(files, folder / f"{setup.label.replace(' ', '-')}.yaml", "s0__echo")
        async with _clients(_gateway(config)) as (client,):
            tools_listed = (await client.list_tools()).tools
            listed = _tokens([_wire(t) for t in tools_listed if t.name != "s0__echo"])
            results = []
            for query in queries[:20]:
                result = await client.call_tool("search_tools", {"queries": [query]})
                results.append(count_tokens(result.content[0].text))
            token_rows.append((setup, direct, listed, statistics.mean(results)))
    # The latency setup: one server directly and the gateway over all ten, side by side.
    async with _clients(_server(files[0]), _gateway(config)) as (direct_client, gateway):
        await gateway.call_tool("search_tools", {"queries": ["s1__echo"]})
        latency = await _timed_calls(
            calls,
            {
                "direct to the server": (direct_client, "echo", ECHO_ARGUMENTS),
                "through the gateway, pinned": (gateway, "s0__echo", ECHO_ARGUMENTS),
                "through the gateway, call_tool": (
                    gateway,
                    "call_tool",
                    {"name": "s1__echo", "arguments": ECHO_ARGUMENTS},
                ),
            },
        )
        search = {"search_tools through the gateway": await _timed_searches(gateway, queries)}
    search["the index alone (in process)"] = _index_only(tools, SETUPS[-1], queries)
    return [
        _token_table(token_rows),
        _latency_table(latency, calls),
        _search_table(search, SETUPS[-1], len(queries)),
    ]


def _server_files(tools: list[Tool], setup: Setup, folder: Path) -> list[Path]:
    """One JSON file of MCP tool definitions per server: the pool's tools, dealt out."""
    folder.mkdir(parents=True, exist_ok=True)
    pool = scaled_tools(tools, setup.servers * setup.tools_per_server)
    files = []
    for index in range(setup.servers):
        part = pool[index * setup.tools_per_server : (index + 1) * setup.tools_per_server]
        definitions = [to_mcp(tool) for tool in part]
        if index < 2:
            definitions[0] = ECHO
        file = folder / f"s{index}.json"
        file.write_text(json.dumps(definitions))
        files.append(file)
    return files


def _config(files: list[Path], path: Path, pinned: str | None) -> Path:
    servers = {
        f"s{index}": {"command": sys.executable, "args": [str(SERVER), str(file)]}
        for index, file in enumerate(files)
    }
    config: dict[str, Any] = {"servers": servers}
    if pinned:
        config["tool_search"] = {"always_available": [pinned]}
    path.write_text(json.dumps(config))
    return path


def _server(file: Path) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[str(SERVER), str(file)])


def _gateway(config: Path) -> Any:
    from mcp import StdioServerParameters

    # This process's environment, so that the gateway runs the code measured (PYTHONPATH
    # included); the SDK would pass it only PATH and a few others.
    return StdioServerParameters(
        command=str(TOOLSCOUT), args=["serve", "--config", str(config)], env=dict(os.environ)
    )


@asynccontextmanager
async def _clients(*servers: Any) -> AsyncIterator[list[Any]]:
    """MCP client sessions with these stdio servers."""
    from mcp import Client

    async with AsyncExitStack() as stack:
        yield [await stack.enter_async_context(Client(parameters)) for parameters in servers]


async def _timed_calls(
    count: int, paths: dict[str, tuple[Any, str, dict[str, Any]]]
) -> dict[str, list[float]]:
    """Seconds per call on each path. The paths take turns, call by call, so that whatever
    else the machine does weighs on each alike; the harness's own garbage collection is held
    off while it times."""
    times: dict[str, list[float]] = {label: [] for label in paths}
    for round in range(20 + count):
        for label, (client, name, arguments) in paths.items():
            with _no_gc():
                started = time.perf_counter()
                result = await client.call_tool(name, arguments)
                elapsed = time.perf_counter() - started
            assert not result.is_error, result
            if round >= 20:  # after warm-up
                times[label].append(elapsed)
    return times


async def _timed_searches(client: Any, queries: list[str]) -> list[float]:
    for query in queries[:10]:
        await client.call_tool("search_tools", {"queries": [query]})
    times = []
    for query in queries:
        with _no_gc():
            started = time.perf_counter()
            await client.call_tool("search_tools", {"queries": [query]})
            times.append(time.perf_counter() - started)
    return times


@contextmanager
def _no_gc() -> Iterator[None]:
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _index_only(tools: list[Tool], setup: Setup, queries: list[str]) -> list[float]:
    from toolscout.search import ToolIndex

    pool = scaled_tools(tools, setup.servers * setup.tools_per_server)
    index = ToolIndex(pool)
    for query in queries[:10]:
        index.search(query)
    times = []
    for query in queries:
        with _no_gc():
            started = time.perf_counter()
            index.search(query)
            times.append(time.perf_counter() - started)
    return times


def _wire(tool: Any) -> dict[str, Any]:
    return dict(tool.model_dump(by_alias=True, mode="json", exclude_none=True))


def _tokens(definitions: list[dict[str, Any]]) -> int:
    return count_tokens(json.dumps(definitions, ensure_ascii=False, separators=(",", ":")))


def _token_table(rows: list[tuple[Setup, int, int, float]]) -> Table:
    table = Table(
        title="Gateway: tokens of the tool list (o200k_base)",
        columns=[
            "setup",
            "tools",
            "every server connected directly",
            "through the gateway",
            "saving",
            "one search result",
        ],
    )
    for setup, direct, listed, result in rows:
        table.rows.append(
            [
                setup.label,
                f"{setup.servers * setup.tools_per_server:,}",
                f"{direct:,}",
                f"{listed:,}",
                f"{1 - listed / direct:.1%}",
                f"{result:,.0f}",
            ]
        )
    table.notes = [
        "Tokens of the compact JSON of `tools/list`'s tools, as each client receives them.",
        "Through the gateway: `search_tools` and `call_tool` (the pinned tool the latency "
        "table uses is left out).",
        "One search result: the mean `search_tools` result for one query (up to 5 tools, "
        "with their parameters), over 20 BFCL dev queries; the conversation carries it.",
    ]
    return table


def _latency_table(latency: dict[str, list[float]], calls: int) -> Table:
    direct = latency["direct to the server"]
    table = Table(
        title="Gateway: call latency (ms)",
        columns=["path", "p50", "p99", "overhead p50", "overhead p99"],
    )
    for label, times in latency.items():
        overhead = label != "direct to the server"
        table.rows.append(
            [
                label,
                _ms(_percentile(times, 50)),
                _ms(_percentile(times, 99)),
                _ms(_percentile(times, 50) - _percentile(direct, 50)) if overhead else "",
                _ms(_percentile(times, 99) - _percentile(direct, 99)) if overhead else "",
            ]
        )
    table.notes = [
        f"{calls:,} calls of one tool on each path after 20 warm-up calls, the paths taking "
        "turns, from an MCP client over stdio; the gateway serves stdio and reaches the "
        "servers over stdio.",
        "Pinned: the tool is listed and called by its id. call_tool: found by search first, "
        "then run through call_tool (the session's discoveries are checked on every call).",
    ]
    return table


def _search_table(search: dict[str, list[float]], setup: Setup, count: int) -> Table:
    table = Table(
        title=f"Gateway: search_tools latency, {setup.servers} servers, "
        f"{setup.servers * setup.tools_per_server:,} tools (ms)",
        columns=["", "p50", "p99"],
    )
    for label, times in search.items():
        table.rows.append([label, _ms(_percentile(times, 50)), _ms(_percentile(times, 99))])
    table.notes = [f"{count} BFCL dev queries, one per call, top 5, after 10 warm-up searches."]
    return table


def _percentile(times: list[float], q: float) -> float:
    return float(np.percentile(times, q))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    from rich.console import Console

    from benchmarks.bfcl import load_bfcl, spread
    from benchmarks.report import to_rich

    parser = argparse.ArgumentParser(prog="python -m benchmarks.gateway", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer calls and queries")
    args = parser.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 132)
    if (reason := gateway_unavailable()) is not None:
        console.print(f"The gateway cannot be measured: {reason}.")
        return 1
    data = load_bfcl()
    queries = spread([query.text for query in data.queries_in("dev")], 200)
    for table in run_gateway(data.tools, queries, quick=args.quick):
        console.print(to_rich(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
