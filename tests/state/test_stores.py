"""What every discovered-tool store does, in memory, in SQLite and in Redis alike."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from toolscout.errors import MissingThreadError, StateStoreError, ToolScoutError
from toolscout.state import StateStore, StoreStats, ThreadStore

from .conftest import Stores, run_writers

TTL = 600.0
"""The TTL of the expiry tests: long beside the test's own run time, so that a busy machine
changes nothing (`Stores.advance` moves the time, no test waits for it)."""


class TestDiscoveryOrder:
    def test_a_new_thread_has_discovered_nothing(self, store: ThreadStore) -> None:
        assert store.load("thread-1") == []

    def test_ids_come_back_in_first_discovery_order(self, store: ThreadStore) -> None:
        store.save("t", ["search_inbox", "send_email"])
        store.save("t", ["read_file"])
        store.save("t", ["create_issue", "delete_file"])
        assert store.load("t") == [
            "search_inbox",
            "send_email",
            "read_file",
            "create_issue",
            "delete_file",
        ]

    def test_an_id_found_again_keeps_its_first_place(self, store: ThreadStore) -> None:
        store.save("t", ["a", "b"])
        store.save("t", ["c", "a", "d", "b"])
        assert store.load("t") == ["a", "b", "c", "d"]

    def test_repeats_within_one_save_are_recorded_once(self, store: ThreadStore) -> None:
        store.save("t", ["a", "b", "a", "c", "b", "a"])
        assert store.load("t") == ["a", "b", "c"]

    def test_saving_the_same_ids_again_changes_nothing(self, store: ThreadStore) -> None:
        store.save("t", ["a", "b"])
        store.save("t", ["a", "b"])
        store.save("t", ["b"])
        assert store.load("t") == ["a", "b"]

    def test_saving_nothing_to_a_new_thread_creates_no_state(self, store: ThreadStore) -> None:
        store.save("t", [])
        assert store.load("t") == []
        assert store.stats().threads == 0

    def test_loading_an_unknown_thread_creates_no_state(self, store: ThreadStore) -> None:
        store.load("t")
        assert store.stats() == StoreStats(threads=0, oldest_access=None)

    @pytest.mark.parametrize(
        "make_ids", [lambda: ("a", "b"), lambda: iter(["a", "b"]), lambda: {"a": 1, "b": 2}.keys()]
    )
    def test_any_iterable_of_ids_is_accepted(self, store: ThreadStore, make_ids: Any) -> None:
        store.save("t", make_ids())
        assert store.load("t") == ["a", "b"]

    def test_the_loaded_list_is_a_copy(self, store: ThreadStore) -> None:
        store.save("t", ["a"])
        store.load("t").append("b")
        assert store.load("t") == ["a"]

    def test_messages_are_not_read(self, store: ThreadStore) -> None:
        store.save("t", ["a"])
        assert store.load("t", [{"role": "user", "content": "anything"}]) == ["a"]

    def test_every_store_follows_the_state_store_protocol(self, store: ThreadStore) -> None:
        assert isinstance(store, StateStore)


class TestIsolationBetweenThreads:
    def test_one_threads_discoveries_never_appear_in_anothers(self, store: ThreadStore) -> None:
        store.save("alice", ["send_email", "read_file"])
        store.save("bob", ["delete_file"])
        store.save("alice", ["create_issue"])
        assert store.load("alice") == ["send_email", "read_file", "create_issue"]
        assert store.load("bob") == ["delete_file"]
        assert store.load("carol") == []

    @pytest.mark.parametrize(
        ("first", "second"),
        [
            ("user:1", "user:1:thread:2"),  # one id starts with the other
            ("a", "A"),
            ("thread", "thread:"),
            ("é", "e\u0301"),  # the same letter, composed and decomposed
            ("x", "x "),
            ("threads", "thread:threads"),  # the Redis index's suffix, and a key's
        ],
    )
    def test_similar_ids_are_different_threads(
        self, store: ThreadStore, first: str, second: str
    ) -> None:
        store.save(first, ["one"])
        store.save(second, ["two"])
        assert store.load(first) == ["one"]
        assert store.load(second) == ["two"]

    def test_clearing_a_thread_leaves_the_others(self, store: ThreadStore) -> None:
        store.save("alice", ["a"])
        store.save("bob", ["b"])
        store.clear("alice")
        store.clear("nobody")
        assert store.load("alice") == []
        assert store.load("bob") == ["b"]
        store.save("alice", ["c"])
        assert store.load("alice") == ["c"]

    def test_clear_all_forgets_every_thread(self, store: ThreadStore) -> None:
        for thread in ("alice", "bob", "carol"):
            store.save(thread, ["a"])
        store.clear_all()
        assert [store.load(thread) for thread in ("alice", "bob", "carol")] == [[], [], []]
        assert store.stats() == StoreStats(threads=0, oldest_access=None)

    def test_concurrent_threads_see_only_their_own_ids(self, store: ThreadStore) -> None:
        def converse(number: int) -> list[str]:
            for step in range(20):
                store.save(f"thread-{number}", [f"tool-{number}-{step}"])
            return store.load(f"thread-{number}")

        with ThreadPoolExecutor(8) as pool:
            loaded = list(pool.map(converse, range(8)))
        for number, ids in enumerate(loaded):
            assert ids == [f"tool-{number}-{step}" for step in range(20)]


class TestAnonymous:
    @pytest.mark.parametrize("thread_id", [None, ""])
    def test_refused_by_default(self, store: ThreadStore, thread_id: str | None) -> None:
        for call in (
            lambda: store.load(thread_id),
            lambda: store.save(thread_id, ["a"]),
            lambda: store.clear(thread_id),
        ):
            with pytest.raises(MissingThreadError, match=r"pass the conversation's thread id"):
                call()
        assert store.stats().threads == 0

    def test_the_refusal_is_a_value_error_of_toolscout(self, store: ThreadStore) -> None:
        with pytest.raises(MissingThreadError) as refusal:
            store.load(None)
        assert isinstance(refusal.value, ToolScoutError)
        assert isinstance(refusal.value, ValueError)
        assert "anonymous='isolate'" in str(refusal.value)

    def test_isolated_requests_start_empty_and_save_nothing(self, stores: Stores) -> None:
        store = stores.make(anonymous="isolate")
        store.save(None, ["secret_tool"])
        store.save("", ["other_secret"])
        assert store.load(None) == []
        assert store.load("") == []
        assert store.stats().threads == 0
        store.clear(None)

    def test_isolation_leaves_named_threads_alone(self, stores: Stores) -> None:
        store = stores.make(anonymous="isolate")
        store.save("alice", ["a"])
        store.save(None, ["b"])
        assert store.load("alice") == ["a"]

    def test_isolated_requests_still_check_their_ids(self, stores: Stores) -> None:
        store = stores.make(anonymous="isolate")
        with pytest.raises(StateStoreError, match="not a single string"):
            store.save(None, "send_email")

    @pytest.mark.parametrize("policy", ["share", "REFUSE", None])
    def test_an_unknown_policy_is_refused(self, stores: Stores, policy: Any) -> None:
        with pytest.raises(StateStoreError, match="anonymous must be 'refuse' or 'isolate'"):
            stores.make(anonymous=policy)


class TestTTL:
    def test_state_lives_until_the_ttl_has_passed(self, stores: Stores) -> None:
        store = stores.make(ttl=TTL)
        store.save("t", ["a"])
        stores.advance(0.5 * TTL)
        assert store.load("t") == ["a"]

    def test_state_expires_ttl_seconds_after_the_last_access(self, stores: Stores) -> None:
        store = stores.make(ttl=TTL)
        store.save("t", ["a"])
        stores.advance(1.1 * TTL)
        assert store.load("t") == []
        assert store.stats().threads == 0

    def test_each_load_and_save_starts_the_ttl_again(self, stores: Stores) -> None:
        store = stores.make(ttl=TTL)
        store.save("t", ["a"])
        stores.advance(0.6 * TTL)
        assert store.load("t") == ["a"]
        stores.advance(0.6 * TTL)
        store.save("t", [])  # an access, even with nothing new
        stores.advance(0.6 * TTL)
        assert store.load("t") == ["a"]

    def test_an_expired_thread_starts_again_empty(self, stores: Stores) -> None:
        store = stores.make(ttl=TTL)
        store.save("t", ["a", "b"])
        stores.advance(1.1 * TTL)
        store.save("t", ["c"])
        assert store.load("t") == ["c"]

    def test_ttl_0_never_expires(self, stores: Stores) -> None:
        store = stores.make(ttl=0)
        store.save("t", ["a"])
        stores.advance(10 * 365 * 86_400)
        assert store.cleanup_now() == 0
        assert store.load("t") == ["a"]
        assert store.stats().threads == 1

    def test_cleanup_now_deletes_the_expired_threads_and_counts_them(self, stores: Stores) -> None:
        store = stores.make(ttl=TTL)
        for thread in ("old-1", "old-2", "recent"):
            store.save(thread, ["a"])
        stats = store.stats()
        assert stats.threads == 3
        stores.advance(0.6 * TTL)
        store.load("recent")
        stores.advance(0.6 * TTL)
        assert store.stats().threads == 1  # stats counts only live threads...
        assert store.cleanup_now() == 2  # ...and deletes nothing: cleanup_now does
        assert store.cleanup_now() == 0
        assert store.load("recent") == ["a"]

    def test_using_the_store_deletes_expired_threads(self, stores: Stores) -> None:
        store = stores.make(ttl=TTL)
        store.save("old", ["a"])
        stores.advance(1.1 * TTL)
        store.save("new", ["b"])
        assert store.cleanup_now() == 0  # the save already deleted "old"
        assert store.stats().threads == 1

    def test_the_default_ttl_is_an_hour(self, store: ThreadStore) -> None:
        assert store.ttl == 3600

    @pytest.mark.parametrize("ttl", [-1, float("nan"), float("inf"), "60", True, None])
    def test_an_impossible_ttl_is_refused(self, stores: Stores, ttl: Any) -> None:
        with pytest.raises(StateStoreError, match="ttl must be"):
            stores.make(ttl=ttl)


class TestStats:
    def test_an_empty_store(self, store: ThreadStore) -> None:
        assert store.stats() == StoreStats(threads=0, oldest_access=None)

    def test_counts_threads_and_gives_the_oldest_access_in_utc(self, stores: Stores) -> None:
        store = stores.make()
        store.save("first", ["a"])
        stores.advance(0.05)
        store.save("second", ["a", "b"])
        stats = store.stats()
        assert stats.threads == 2
        assert stats.oldest_access is not None
        assert stats.oldest_access.tzinfo == UTC
        assert abs(stats.oldest_access - datetime.now(UTC)) < timedelta(minutes=1)
        store.load("first")  # now "second" is the least recently used
        later = store.stats().oldest_access
        assert later is not None
        assert later > stats.oldest_access

    def test_a_cleared_thread_is_not_counted(self, store: ThreadStore) -> None:
        store.save("a", ["x"])
        store.save("b", ["x"])
        store.clear("a")
        assert store.stats().threads == 1


class TestRestart:
    def test_a_new_store_on_the_same_backend_has_the_state(self, shared_stores: Stores) -> None:
        before = shared_stores.make()
        before.save("t", ["a", "b"])
        before.save("u", ["c"])
        before.close()
        after = shared_stores.make()
        assert after.load("t") == ["a", "b"]
        assert after.load("u") == ["c"]
        after.save("t", ["b", "d"])
        assert after.load("t") == ["a", "b", "d"]

    def test_state_written_by_another_process_is_read(self, shared_stores: Stores) -> None:
        run_writers(shared_stores, workers=1, count=3)
        store = shared_stores.make()
        assert store.load("own-0") == ["w0-0", "w0-1", "w0-2"]
        assert store.load("shared") == ["w0-0", "common-0", "w0-1", "common-1", "w0-2", "common-2"]

    def test_the_ttl_still_counts_from_the_last_access_before_the_restart(
        self, shared_stores: Stores
    ) -> None:
        before = shared_stores.make(ttl=TTL)
        before.save("t", ["a"])
        before.close()
        shared_stores.advance(1.1 * TTL)
        assert shared_stores.make(ttl=TTL).load("t") == []


class TestConcurrency:
    def test_threads_saving_to_one_thread_lose_and_repeat_nothing(self, stores: Stores) -> None:
        store = stores.make()
        start = threading.Barrier(8)

        def discover(worker: int) -> None:
            start.wait()
            for step in range(25):
                store.save("shared", [f"w{worker}-{step}", f"common-{step}"])

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(discover, range(8)))
        assert_merged(store.load("shared"), workers=8, count=25)

    def test_several_store_objects_on_one_backend(self, shared_stores: Stores) -> None:
        first, second = shared_stores.make(), shared_stores.make()
        start = threading.Barrier(2)

        def discover(worker: int) -> None:
            start.wait()
            store = (first, second)[worker]
            for step in range(25):
                store.save("shared", [f"w{worker}-{step}", f"common-{step}"])

        with ThreadPoolExecutor(2) as pool:
            list(pool.map(discover, range(2)))
        assert_merged(first.load("shared"), workers=2, count=25)
        assert second.load("shared") == first.load("shared")

    def test_processes_saving_at_once_lose_and_repeat_nothing(self, shared_stores: Stores) -> None:
        run_writers(shared_stores, workers=4, count=30)
        store = shared_stores.make()
        assert_merged(store.load("shared"), workers=4, count=30)
        for worker in range(4):
            assert store.load(f"own-{worker}") == [f"w{worker}-{step}" for step in range(30)]
        assert store.stats().threads == 5


def assert_merged(ids: list[str], workers: int, count: int) -> None:
    """`ids` holds, once each, what `workers` writers saved `count` times each (`w{worker}-{i}`,
    then `common-{i}`), every writer's ids in its own order."""
    assert len(ids) == len(set(ids)), "an id was recorded twice"
    expected = {f"w{worker}-{step}" for worker in range(workers) for step in range(count)}
    expected |= {f"common-{step}" for step in range(count)}
    assert set(ids) == expected, "an id was lost"
    for worker in range(workers):
        own = [tool_id for tool_id in ids if tool_id.startswith(f"w{worker}-")]
        assert own == [f"w{worker}-{step}" for step in range(count)]
    # common-i is first saved only after some writer saved common-(i-1).
    assert [tool_id for tool_id in ids if tool_id.startswith("common-")] == [
        f"common-{step}" for step in range(count)
    ]
