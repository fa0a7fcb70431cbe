"""Whether the machine has a core to spare for a query: an answer on every platform, and
"busy" (one BLAS thread, the safe choice) where the platform tells nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolscout.search import _bert, _machine_load
from toolscout.search._machine_load import _IdleCoreWatch


def test_answers_on_this_machine_again_and_again() -> None:
    watch = _IdleCoreWatch()
    assert all(isinstance(watch(), bool) for _ in range(100))


def test_without_proc_files_the_load_average_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_machine_load, "_machine_busy_seconds", lambda: None)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert _IdleCoreWatch()() is (_machine_load._CORES > 1)
    monkeypatch.setattr(os, "getloadavg", lambda: (float(_machine_load._CORES), 0.0, 0.0))
    assert _IdleCoreWatch()() is False


def test_with_nothing_to_read_the_machine_counts_as_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable() -> tuple[float, float, float]:
        raise OSError("no load average")

    monkeypatch.setattr(_machine_load, "_machine_busy_seconds", lambda: None)
    monkeypatch.setattr(os, "getloadavg", unreadable)
    assert _IdleCoreWatch()() is False
    monkeypatch.delattr(os, "getloadavg")  # as on Windows
    assert _IdleCoreWatch()() is False


class TestUsableCores:
    def affinity(self) -> int:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1

    @pytest.mark.parametrize(
        ("quota", "cores"), [("50000 100000", 1), ("150000 100000", 2), ("100000 100000", 1)]
    )
    def test_a_container_quota_caps_them(
        self, quota: str, cores: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        quota_file = tmp_path / "cpu.max"
        quota_file.write_text(quota + "\n")
        monkeypatch.setattr(_machine_load, "_CPU_QUOTA_FILE", quota_file)
        assert _machine_load.usable_cores() == min(cores, self.affinity())

    @pytest.mark.parametrize(
        "text", ["max 100000", "", "garbage", "1 2 3", "100000 0", "-1 100000", "10 -5"]
    )
    def test_no_quota_or_an_unreadable_one_leaves_the_cores_it_may_run_on(
        self, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        quota_file = tmp_path / "cpu.max"
        quota_file.write_text(text)
        monkeypatch.setattr(_machine_load, "_CPU_QUOTA_FILE", quota_file)
        assert _machine_load.usable_cores() == self.affinity()
        monkeypatch.setattr(_machine_load, "_CPU_QUOTA_FILE", tmp_path / "absent")
        assert _machine_load.usable_cores() == self.affinity()


def test_a_query_is_not_spread_over_more_blas_threads_than_usable_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In a container with a CPU quota BLAS counts the host's cores.
    monkeypatch.setattr(_bert, "_blas_own_threads", _bert._THREADS + 1)
    assert _bert._blas_threads_fit() is False
    monkeypatch.setattr(_bert, "_blas_own_threads", _bert._THREADS)
    assert _bert._blas_threads_fit() is True
