"""The framework examples run as a user would run them: scripted by default, and `--real`
without a key says what it needs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.limits import HANG

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FRAMEWORK_OF = {
    "pydantic_ai_agent.py": "pydantic_ai",
    "langchain_agent.py": "langchain",
    "openai_agents_agent.py": "agents",
}


def run_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip(FRAMEWORK_OF[name])
    environment = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
        env={**environment, "PYTHONIOENCODING": "utf-8"},
    )


@pytest.mark.parametrize("name", FRAMEWORK_OF)
def test_runs_search_load_call_with_the_scripted_model(name: str) -> None:
    finished = run_example(name)
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    assert lines[0] == "tools sent: current_time, search_tools, load_tool"
    assert '"name":"get_forecast"' in finished.stdout
    assert "tools sent: current_time, search_tools, load_tool, get_forecast" in lines
    assert "  -> Paris: sunny, 21°C, for the next 2 day(s)." in lines
    assert lines[-1] == "answer: Sunny in Paris for the next two days, around 21°C."


@pytest.mark.parametrize("name", FRAMEWORK_OF)
def test_real_without_a_key_says_what_it_needs(name: str) -> None:
    finished = run_example(name, "--real")
    assert finished.returncode == 1
    assert finished.stderr.startswith("--real needs OPENAI_API_KEY")
