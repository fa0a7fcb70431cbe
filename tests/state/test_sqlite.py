"""What only `SQLiteStore` does: its file, its schema, forked children."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from tests.limits import HANG
from toolscout.errors import StateStoreError
from toolscout.state import SQLiteStore
from toolscout.state.sqlite import SCHEMA_VERSION


class TestFile:
    def test_the_file_and_its_tables_are_created(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        with SQLiteStore(path) as store:
            store.save("t", ["a", "b"])
        with sqlite3.connect(path) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            rows = connection.execute(
                "SELECT thread_id, position, tool_id, discovered_at FROM discovered_tools "
                "JOIN threads ON threads.id = discovered_tools.thread ORDER BY position"
            ).fetchall()
        assert [row[:3] for row in rows] == [("t", 1, "a"), ("t", 2, "b")]
        assert all(isinstance(row[3], float) for row in rows)

    def test_the_file_survives_a_restart_of_the_store(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        store = SQLiteStore(path)
        store.save("t", ["a", "b"])
        store.close()
        with SQLiteStore(str(path)) as reopened:
            assert reopened.load("t") == ["a", "b"]

    def test_a_file_that_is_not_a_database_is_refused(self, tmp_path: Path) -> None:
        path = tmp_path / "notes.db"
        path.write_text("these are not the tables you are looking for " * 100)
        with pytest.raises(StateStoreError, match=r"cannot use .*notes\.db as a SQLite store"):
            SQLiteStore(path)

    def test_a_folder_that_does_not_exist_is_refused(self, tmp_path: Path) -> None:
        with pytest.raises(StateStoreError, match="cannot open the SQLite store"):
            SQLiteStore(tmp_path / "missing" / "state.db")

    def test_a_file_from_a_newer_toolscout_is_refused(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        with sqlite3.connect(path) as connection:
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        with pytest.raises(StateStoreError, match="written by a newer toolscout"):
            SQLiteStore(path)

    @pytest.mark.parametrize("path", [":memory:", "file:state.db?mode=memory"])
    def test_a_database_in_memory_is_refused(self, path: str) -> None:
        with pytest.raises(StateStoreError, match="use InMemoryStore"):
            SQLiteStore(path)

    def test_a_closed_store_says_so(self, tmp_path: Path) -> None:
        store = SQLiteStore(tmp_path / "state.db")
        store.close()
        with pytest.raises(StateStoreError, match="is closed"):
            store.load("t")


class TestConnections:
    def test_each_thread_uses_its_own_connection(self, tmp_path: Path) -> None:
        with SQLiteStore(tmp_path / "state.db") as store:
            store.save("main", ["a"])
            seen: list[list[str]] = []
            worker = threading.Thread(target=lambda: seen.append(store.load("main")))
            worker.start()
            worker.join()
            assert seen == [["a"]]
            store.save("main", ["b"])  # the main thread's connection still works
            assert store.load("main") == ["a", "b"]

    def test_a_forked_child_opens_its_own_connection(self, tmp_path: Path) -> None:
        store = SQLiteStore(tmp_path / "state.db")
        store.save("t", ["from-parent"])
        child = multiprocessing.get_context("fork").Process(target=_save_in_child, args=(store,))
        child.start()
        child.join(timeout=HANG)
        assert child.exitcode == 0
        assert store.load("t") == ["from-parent", "from-child"]
        store.close()


def _save_in_child(store: SQLiteStore) -> None:
    store.save("t", ["from-child"])
    store.close()
