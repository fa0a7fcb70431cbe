"""The installed `toolscout` command, run as a user runs it: a new process whose output goes
to a pipe. The quick commands exit without the interpreter's teardown, so what they print
must still arrive whole, and their exit status must still say what happened."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: The console script `make test` installs (as the gateway's tests use it).
TOOLSCOUT = Path(sys.executable).with_name("toolscout")


def toolscout(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLSCOUT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "160", "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
    )


def test_a_search_s_json_arrives_whole(sample_catalog: Path) -> None:
    finished = toolscout("search", sample_catalog, "send an email", "--json", "-e", "bm25")
    assert finished.returncode == 0, finished.stderr
    answer = json.loads(finished.stdout)
    assert answer["hits"][0]["id"] == "email__send_email"
    assert answer["left_out"] is not None


def test_inspect_prints_its_whole_report(sample_catalog: Path) -> None:
    finished = toolscout("inspect", sample_catalog)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("12 tools in 5 namespaces")
    assert "Lint: 5 issues" in finished.stdout
    # The last issue of the last kind is the report's last line.
    assert finished.stdout.rstrip().splitlines()[-1].startswith("  slack__search: the name")


def test_tokens_prints_its_table_and_its_note(sample_catalog: Path) -> None:
    finished = toolscout("tokens", sample_catalog, "--mode", "proxy")
    assert finished.returncode == 0, finished.stderr
    assert "without search: every tool's definition in each request." in finished.stdout


def test_a_mistake_still_exits_with_status_2_and_says_why(sample_catalog: Path) -> None:
    finished = toolscout("search", sample_catalog, "email", "-k", "0")
    assert finished.returncode == 2
    assert finished.stderr.startswith("error: ")
    assert finished.stdout == ""
