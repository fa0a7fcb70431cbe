"""Bad and extreme ids: every store refuses the same bad input with a clear error, before
recording anything, and stores any text at all as an id."""

from __future__ import annotations

from typing import Any

import pytest

from toolscout.errors import StateStoreError
from toolscout.state import ThreadStore

ODD_THREAD_IDS = [
    "会话-42",
    "🧵 thread",
    "user:42:thread:7",
    "tenant/alice\\bob",
    "*?[glob]\\",
    "'; DROP TABLE threads; --",
    "\x00nul\x00",
    " ",
    "\n",
    "t" * 100_000,
    "threads",
]


class TestBadThreadIds:
    @pytest.mark.parametrize("thread_id", [42, 4.2, b"thread", ["thread"], object()])
    def test_a_thread_id_that_is_not_text_is_refused(
        self, store: ThreadStore, thread_id: Any
    ) -> None:
        for call in (
            lambda: store.load(thread_id),
            lambda: store.save(thread_id, ["a"]),
            lambda: store.clear(thread_id),
        ):
            with pytest.raises(StateStoreError, match="thread_id must be a string or None, got"):
                call()

    def test_a_thread_id_with_a_lone_surrogate_is_refused(self, store: ThreadStore) -> None:
        with pytest.raises(StateStoreError, match="lone surrogate at position 3"):
            store.save("abc\ud800", ["a"])

    def test_odd_thread_ids_are_kept_apart(self, store: ThreadStore) -> None:
        for number, thread_id in enumerate(ODD_THREAD_IDS):
            store.save(thread_id, [f"tool-{number}"])
        for number, thread_id in enumerate(ODD_THREAD_IDS):
            assert store.load(thread_id) == [f"tool-{number}"], thread_id
        assert store.stats().threads == len(ODD_THREAD_IDS)
        store.clear("*?[glob]\\")
        assert store.stats().threads == len(ODD_THREAD_IDS) - 1


class TestBadToolIds:
    def test_a_single_string_is_refused_not_split_into_letters(self, store: ThreadStore) -> None:
        with pytest.raises(StateStoreError, match=r"not a single string; wrap it in a list: \["):
            store.save("t", "send_email")

    @pytest.mark.parametrize("tool_ids", [42, None, b"send_email"])
    def test_something_that_is_not_a_list_is_refused(
        self, store: ThreadStore, tool_ids: Any
    ) -> None:
        with pytest.raises(StateStoreError, match="tool_ids must be a list of tool ids"):
            store.save("t", tool_ids)

    @pytest.mark.parametrize(
        ("bad", "got"),
        [(None, "NoneType"), (42, "int"), (b"a", "bytes"), ("", "an empty string")],
    )
    def test_an_id_that_is_not_text_is_refused_and_nothing_is_saved(
        self, store: ThreadStore, bad: Any, got: str
    ) -> None:
        store.save("t", ["a"])
        with pytest.raises(
            StateStoreError, match=rf"tool_ids\[2\] must be a non-empty string, got {got}"
        ):
            store.save("t", ["b", "c", bad, "d"])
        assert store.load("t") == ["a"]

    def test_an_id_with_a_lone_surrogate_is_refused(self, store: ThreadStore) -> None:
        with pytest.raises(StateStoreError, match=r"tool_ids\[0\] is not valid Unicode"):
            store.save("t", ["\udfff"])

    def test_odd_and_huge_ids_come_back_as_they_were(self, store: ThreadStore) -> None:
        ids = ["工具", "🔧", "x" * 10_000, "a:b:c", "'", '"', "\x00", " ", "github__search"]
        store.save("t", ids)
        store.save("t", list(reversed(ids)))
        assert store.load("t") == ids

    def test_a_thousand_ids_in_one_save(self, store: ThreadStore) -> None:
        ids = [f"tool_{number}" for number in range(1_000)]
        store.save("t", ids)
        assert store.load("t") == ids
