"""The gateway in front of real servers from PyPI (`mcp-server-time`, `mcp-server-fetch`,
`mcp-server-git`, as the `dev` extra pins them), side by side with the same servers
connected directly, in one run:

- start-up: from starting the processes to a client that can call (initialized, tools
  listed): `toolscout serve` over stdio, against the three servers started in parallel;
- call overhead: `time.get_current_time` called straight, against the same call through the
  gateway's `call_tool` (p50 / p99);
- the gateway's memory: its resident set after start-up, and after 1,000 and 10,000 calls.

`python -m benchmarks.gateway_real [--calls N]` prints the tables. Not part of `make bench`:
it needs the dev extra's servers, and takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from rich.console import Console

from benchmarks.report import Table, to_rich

BIN = Path(sys.executable).parent
TOOLSCOUT = BIN / "toolscout"
MEMORY_AT = (1_000, 10_000)


def _servers(repository: Path) -> dict[str, dict[str, Any]]:
    return {
        "time": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "fetch": {"command": str(BIN / "mcp-server-fetch"), "args": ["--ignore-robots-txt"]},
        "git": {"command": str(BIN / "mcp-server-git"), "args": ["--repository", str(repository)]},
    }


def _repository(folder: Path) -> Path:
    repo = folder / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# benchmark\n")
    author = ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"]
    for command in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *author, *command], cwd=repo, check=True)
    return repo


def _parameters(settings: dict[str, Any]) -> StdioServerParameters:
    return StdioServerParameters(command=settings["command"], args=settings["args"])


def _gateway_pid() -> int | None:
    """The `toolscout serve` this process started (over stdio, through the SDK)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent.split()[1]) == os.getpid() and "toolscout serve" in command:
            return int(entry.name)
    return None


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


async def _timed(client: Client, name: str, arguments: dict[str, Any], count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        result = await client.call_tool(name, arguments)
        times.append(time.perf_counter() - started)
        if result.is_error:
            raise RuntimeError(f"{name} failed: {result.content}")
    return times


async def _measure(calls: int, folder: Path) -> list[Table]:
    servers = _servers(_repository(folder))
    config = folder / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    direct_arguments = {"timezone": "UTC"}
    through = {"name": "time__get_current_time", "arguments": direct_arguments}

    direct: dict[str, Client] = {}
    connected, finished = anyio.Event(), anyio.Event()

    async def hold(name: str) -> None:
        async with Client(_parameters(servers[name])) as client:
            await client.list_tools()
            direct[name] = client
            if len(direct) == len(servers):
                connected.set()
            await finished.wait()

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for name in servers:
            group.start_soon(hold, name)
        await connected.wait()
        direct_start = time.perf_counter() - started
        await _timed(direct["time"], "get_current_time", direct_arguments, 50)  # warm up
        direct_times = await _timed(direct["time"], "get_current_time", direct_arguments, calls)
        finished.set()

    gateway_parameters = StdioServerParameters(
        command=str(TOOLSCOUT),
        args=["serve", "--config", str(config)],
        env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    started = time.perf_counter()
    async with Client(gateway_parameters) as gateway:
        await gateway.list_tools()
        gateway_start = time.perf_counter() - started
        pid = _gateway_pid()
        memory = {0: _rss_mib(pid) if pid else float("nan")}
        await _timed(gateway, "call_tool", through, 50)  # warm up
        gateway_times = await _timed(gateway, "call_tool", through, calls)
        done = 50 + calls
        for mark in MEMORY_AT:
            if mark > done:
                await _timed(gateway, "call_tool", through, mark - done)
                done = mark
            memory[mark] = _rss_mib(pid) if pid else float("nan")

    return [
        _startup_table(direct_start, gateway_start),
        _latency_table(direct_times, gateway_times),
        _memory_table(memory),
    ]


def _percentile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def _startup_table(direct: float, gateway: float) -> Table:
    table = Table(
        "Start-up with mcp-server-time, -fetch and -git: processes started to a client that "
        "can call (initialized, tools listed)",
        ["setup", "seconds"],
    )
    table.rows.append(["3 servers connected directly, in parallel", f"{direct:.2f}"])
    table.rows.append(["toolscout serve over stdio, in front of them", f"{gateway:.2f}"])
    return table


def _latency_table(direct: list[float], gateway: list[float]) -> Table:
    table = Table(
        f"time.get_current_time, {len(direct):,} calls each (ms)",
        ["path", "p50", "p99", "mean"],
    )
    for label, times in (("direct", direct), ("through the gateway (call_tool)", gateway)):
        table.rows.append(
            [
                label,
                _ms(_percentile(times, 0.5)),
                _ms(_percentile(times, 0.99)),
                _ms(statistics.fmean(times)),
            ]
        )
    table.rows.append(
        [
            "overhead",
            _ms(_percentile(gateway, 0.5) - _percentile(direct, 0.5)),
            _ms(_percentile(gateway, 0.99) - _percentile(direct, 0.99)),
            _ms(statistics.fmean(gateway) - statistics.fmean(direct)),
        ]
    )
    return table


def _memory_table(memory: dict[int, float]) -> Table:
    table = Table("The gateway process's resident memory (MiB)", ["after", "RSS"])
    for calls, rss in memory.items():
        table.rows.append(["start-up" if calls == 0 else f"{calls:,} calls", f"{rss:.1f}"])
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000, help="calls timed on each path")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        tables = anyio.run(_measure, options.calls, Path(folder))
    console = Console()
    for table in tables:
        console.print(to_rich(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
