"""The cores the local model spreads a batch over: those the process may run on, capped by a
container's CPU quota."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolscout.search import _cores


def affinity() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@pytest.mark.parametrize(
    ("quota", "cores"), [("50000 100000", 1), ("150000 100000", 2), ("100000 100000", 1)]
)
def test_a_container_quota_caps_them(
    quota: str, cores: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quota_file = tmp_path / "cpu.max"
    quota_file.write_text(quota + "\n")
    monkeypatch.setattr(_cores, "_CPU_QUOTA_FILE", quota_file)
    assert _cores.usable_cores() == min(cores, affinity())


@pytest.mark.parametrize(
    "text", ["max 100000", "", "garbage", "1 2 3", "100000 0", "-1 100000", "10 -5"]
)
def test_no_quota_or_an_unreadable_one_leaves_the_cores_it_may_run_on(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quota_file = tmp_path / "cpu.max"
    quota_file.write_text(text)
    monkeypatch.setattr(_cores, "_CPU_QUOTA_FILE", quota_file)
    assert _cores.usable_cores() == affinity()
    monkeypatch.setattr(_cores, "_CPU_QUOTA_FILE", tmp_path / "absent")
    assert _cores.usable_cores() == affinity()
