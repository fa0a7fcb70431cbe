"""Start-up cost, hyperfine-style: whole commands, each run several times in a new process.

- Time: the first run of each command is not counted (it fills the OS's file cache and the
  embedding cache), so the figures are what a user waits for from the second time on. Wall
  time is that wait; CPU time (user + system, of the process and its children) moves much
  less when other work shares the machine, so the load average is printed beside them.
- Imports: each command once more under `python -X importtime`, with the packages whose
  imports cost the most, so a regression names its cause.

`python -m benchmarks.startup [--runs N]` prints the tables; `benchmarks/run.py` includes them.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.report import Table

TOOLSCOUT = Path(sys.executable).with_name("toolscout")
#: The query of the search commands: what `make demo` searches.
QUERY = "what's the weather like in Paris tomorrow"
#: What a search imports besides toolscout: the floor of its start-up, short of fewer of them.
SEARCH_LIBRARIES = ("numpy", "pydantic", "typer", "rich.console", "rich.table", "asyncio")
#: How many of the packages with the costliest imports each command names.
_COSTLIEST = 5


@dataclass(frozen=True)
class Command:
    label: str
    argv: tuple[str, ...]
    target: float | None = None
    """The wall time (seconds) the command should stay under, if it has one."""


@dataclass(frozen=True)
class Timing:
    wall: list[float]
    cpu: list[float]


def commands() -> list[Command]:
    """The commands measured: the interpreter alone as the floor, `import toolscout`, the
    libraries a search imports, the CLI's help, and the demo search with BM25 and with the
    default engine (`auto`)."""
    from toolscout.search import choose_engine

    default = choose_engine("auto").name
    python = sys.executable
    return [
        Command("python -c pass (the floor)", (python, "-c", "pass")),
        Command("python -c 'import toolscout'", (python, "-c", "import toolscout")),
        Command(
            "python -c 'import numpy, pydantic, typer, rich, asyncio'",
            (python, "-c", f"import {', '.join(SEARCH_LIBRARIES)}"),
        ),
        Command("toolscout --help", (str(TOOLSCOUT), "--help"), target=0.3),
        Command(
            "toolscout search demo … --engine bm25",
            (str(TOOLSCOUT), "search", "demo", QUERY, "--engine", "bm25"),
            target=0.8,
        ),
        Command(
            f"toolscout search demo … (default engine: auto → {default})",
            (str(TOOLSCOUT), "search", "demo", QUERY),
            target=0.8,
        ),
    ]


def startup_unavailable() -> str | None:
    """Why the commands cannot be measured here, or None."""
    if not TOOLSCOUT.exists():
        return f"{TOOLSCOUT} is missing (pip install -e .)"
    return None


def run_startup(runs: int = 10, selected: Sequence[Command] | None = None) -> list[Table]:
    """The timing table and the imports table, for `selected` commands (default: all)."""
    measured = list(selected) if selected is not None else commands()
    load_before = os.getloadavg()[0]
    timings = {command: time_command(command, runs) for command in measured}
    load_after = os.getloadavg()[0]
    return [
        _timing_table(timings, runs, load_before, load_after),
        _imports_table(measured),
    ]


def time_command(command: Command, runs: int) -> Timing:
    """Wall and CPU seconds of `runs` runs of `command`, after one run that is not counted."""
    _run(command)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        _run(command)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return Timing(wall, cpu)


def costliest_imports(command: Command) -> tuple[int, float, list[tuple[str, float]]]:
    """How many modules `command` imports, their total import time (seconds), and the
    packages that cost the most, with their share of it."""
    environment = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    finished = subprocess.run(
        command.argv, capture_output=True, text=True, env=environment, check=True
    )
    by_package: defaultdict[str, float] = defaultdict(float)
    modules = 0
    for line in finished.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own_microseconds, _, name = line.removeprefix("import time:").split("|")
        modules += 1
        # Self times add up without counting a module twice; grouped by top-level package.
        by_package[name.strip().split(".")[0]] += int(own_microseconds) / 1e6
    total = sum(by_package.values())
    costliest = sorted(by_package.items(), key=lambda item: -item[1])[:_COSTLIEST]
    return modules, total, costliest


def _run(command: Command) -> None:
    subprocess.run(command.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def _timing_table(
    timings: dict[Command, Timing], runs: int, load_before: float, load_after: float
) -> Table:
    table = Table(
        title="Start-up: whole commands in a new process",
        columns=["command", "wall mean ± σ s", "wall min–max s", "CPU mean s", "target s"],
    )
    for command, timing in timings.items():
        spread = statistics.stdev(timing.wall) if len(timing.wall) > 1 else 0.0
        table.rows.append(
            [
                command.label,
                f"{statistics.mean(timing.wall):.3f} ± {spread:.3f}",
                f"{min(timing.wall):.3f}–{max(timing.wall):.3f}",
                f"{statistics.mean(timing.cpu):.3f}",
                "" if command.target is None else f"< {command.target}",
            ]
        )
    cores = os.cpu_count()
    table.notes = [
        f"{runs} runs of each command after one that is not counted (warm caches).",
        f"Load average (1 min) {load_before:.1f} before and {load_after:.1f} after, on "
        f"{cores} CPUs: above {cores}, other work shared the machine and wall times are "
        "upper bounds.",
        "CPU: user + system time of the process and its children; numpy's threads can make "
        "it exceed the wall time.",
    ]
    return table


def _imports_table(measured: Sequence[Command]) -> Table:
    table = Table(
        title="Start-up: what each command imports (python -X importtime, one run)",
        columns=["command", "modules", "import s", "costliest packages (s)"],
    )
    for command in measured:
        modules, total, costliest = costliest_imports(command)
        table.rows.append(
            [
                command.label,
                f"{modules:,}",
                f"{total:.3f}",
                ", ".join(f"{package} {seconds:.3f}" for package, seconds in costliest),
            ]
        )
    table.notes = [
        "Each module's own import time (its children's excluded), summed by top-level "
        "package; importtime's bookkeeping makes the total larger than a plain run's."
    ]
    return table


def main(argv: Sequence[str] | None = None) -> int:
    from rich.console import Console

    from benchmarks.report import to_rich

    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="counted runs of each command")
    args = parser.parse_args(argv)
    if (reason := startup_unavailable()) is not None:
        print(f"Start-up is not measured: {reason}", file=sys.stderr)
        return 1
    console = Console(width=None if sys.stdout.isatty() else 132)
    for table in run_startup(args.runs):
        console.print(to_rich(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
