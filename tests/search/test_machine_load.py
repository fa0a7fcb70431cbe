"""Whether the machine has a core to spare for a query: an answer on every platform, and
"busy" (one BLAS thread, the safe choice) where the platform tells nothing."""

from __future__ import annotations

import os

import pytest

from toolscout.search import _machine_load
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
