"""What only `InMemoryStore` does: a bound on the number of threads."""

from __future__ import annotations

from typing import Any

import pytest

from toolscout.errors import StateStoreError
from toolscout.state import InMemoryStore

from .conftest import FakeClock


class TestMaxThreads:
    def test_a_new_thread_beyond_the_bound_forgets_the_least_recently_used(self) -> None:
        store = InMemoryStore(max_threads=2)
        store.save("a", ["x"])
        store.save("b", ["y"])
        store.load("a")  # now "b" is the least recently used
        store.save("c", ["z"])
        assert store.load("b") == []
        assert store.load("a") == ["x"]
        assert store.load("c") == ["z"]
        assert store.stats().threads == 2

    def test_saving_to_a_known_thread_evicts_nothing(self) -> None:
        store = InMemoryStore(max_threads=2)
        store.save("a", ["x"])
        store.save("b", ["y"])
        store.save("a", ["z"])
        assert store.stats().threads == 2
        assert store.load("b") == ["y"]

    def test_no_bound_by_default(self) -> None:
        store = InMemoryStore()
        for number in range(1_000):
            store.save(f"thread-{number}", ["x"])
        assert store.stats().threads == 1_000
        assert store.max_threads is None

    @pytest.mark.parametrize("max_threads", [0, -1, 1.5, "10", True])
    def test_an_impossible_bound_is_refused(self, max_threads: Any) -> None:
        with pytest.raises(StateStoreError, match="max_threads must be a positive integer"):
            InMemoryStore(max_threads=max_threads)


class TestClock:
    def test_a_clock_that_went_back_never_revives_an_expired_thread(self) -> None:
        clock = FakeClock()
        store = InMemoryStore(ttl=10, clock=clock)
        store.save("old", ["a"])
        clock.advance(-4)
        store.save("recent", ["b"])  # used last, yet at an earlier time than "old"
        clock.advance(11)
        assert store.load("recent") == []
        assert store.load("old") == ["a"]
