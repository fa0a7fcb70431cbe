"""A smoke test of the start-up benchmark's code, on the cheapest command (the timings
themselves are `make bench`'s)."""

from __future__ import annotations

import sys

from benchmarks.startup import Command, commands, run_startup


def test_tables_have_a_row_per_command() -> None:
    floor = Command("python -c pass", (sys.executable, "-c", "pass"))
    timing, imports = run_startup(runs=2, selected=[floor])
    assert [row[0] for row in timing.rows] == ["python -c pass"]
    assert [row[0] for row in imports.rows] == ["python -c pass"]
    assert any("Load average" in note for note in timing.notes)


def test_the_commands_with_targets_are_the_help_and_the_demo_searches() -> None:
    targeted = [command.argv[1:3] for command in commands() if command.target is not None]
    assert targeted == [("--help",), ("search", "demo"), ("search", "demo")]
