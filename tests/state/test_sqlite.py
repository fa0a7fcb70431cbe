"""What only `SQLiteStore` does: its file, its schema, forked children."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from tests.limits import HANG
from toolscout.errors import StateStoreError, StoreUnavailableError
from toolscout.state import SQLiteStore
from toolscout.state.sqlite import SCHEMA_VERSION

from .stalled import locked_by_another_process


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

    def test_a_device_is_refused(self) -> None:
        with pytest.raises(StateStoreError, match="cannot use /dev/null as a SQLite store"):
            SQLiteStore("/dev/null")

    def test_someone_elses_threads_table_is_refused(self, tmp_path: Path) -> None:
        path = tmp_path / "app.db"
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE threads (subject TEXT, author TEXT)")
        with pytest.raises(
            StateStoreError,
            match=r"app\.db has a table 'threads' that toolscout did not make \(columns "
            r"subject, author\)",
        ):
            SQLiteStore(path)
        with sqlite3.connect(path) as connection:  # and the file is left as it was
            assert connection.execute("SELECT name FROM sqlite_master").fetchall() == [("threads",)]

    def test_a_damaged_page_is_one_clear_error(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        with SQLiteStore(path) as store:
            for number in range(300):
                store.save(f"t{number}", [f"tool-{tool}" for tool in range(20)])
        damaged = bytearray(path.read_bytes())
        damaged[4096 * 3 : 4096 * 3 + 100] = b"\xff" * 100
        path.write_bytes(bytes(damaged))
        with (
            pytest.raises(StateStoreError, match=r"state\.db as a SQLite store: database disk"),
            SQLiteStore(path) as store,
        ):
            for number in range(300):
                store.load(f"t{number}")

    def test_a_file_locked_too_long_is_unavailable(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        with SQLiteStore(path, timeout=0.2) as store, locked_by_another_process(path):
            for call in (lambda: store.load("t"), lambda: store.save("t", ["a"])):
                with pytest.raises(
                    StoreUnavailableError,
                    match=r"state\.db stayed locked by another connection for more than 0\.2 s",
                ):
                    call()
        with SQLiteStore(path) as store:
            assert store.load("t") == []

    def test_closing_while_another_thread_waits_for_the_lock(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        store = SQLiteStore(path, timeout=60)
        outcome: list[object] = []
        with locked_by_another_process(path):
            waiting = threading.Thread(target=lambda: outcome.append(store.load("t")))
            waiting.start()
            waiting.join(0.5)  # now inside SQLite, waiting for the lock
            store.close()  # must not close the connection under the waiting thread's feet
        waiting.join(60)
        assert outcome == [[]]
        with pytest.raises(StateStoreError, match="is closed"):
            store.load("t")

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
