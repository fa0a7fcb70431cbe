"""`SQLiteStore`: discovered tools per thread in a SQLite file, shared by the processes of
one machine and kept across restarts."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from toolscout.errors import StateStoreError, StoreUnavailableError
from toolscout.state.base import DEFAULT_TTL, AnonymousPolicy, StoreStats, ThreadStore

SCHEMA_VERSION = 1
"""Stored in the file's `user_version`; a file written by a later toolscout is refused."""

_COLUMNS = {
    "threads": ("id", "thread_id", "last_access"),
    "discovered_tools": ("thread", "position", "tool_id", "discovered_at"),
}
"""The columns of each table, to tell our tables from someone else's of the same name."""

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS threads (
        id INTEGER PRIMARY KEY,
        thread_id TEXT NOT NULL UNIQUE,
        last_access REAL NOT NULL  -- seconds since the epoch, refreshed by loads and saves
    )""",
    "CREATE INDEX IF NOT EXISTS threads_by_last_access ON threads (last_access)",
    """CREATE TABLE IF NOT EXISTS discovered_tools (
        thread INTEGER NOT NULL,  -- threads.id
        position INTEGER NOT NULL,  -- 1 for the thread's first discovery, then 2, 3...
        tool_id TEXT NOT NULL,
        discovered_at REAL NOT NULL,
        PRIMARY KEY (thread, position),
        UNIQUE (thread, tool_id)
    )""",
)


class SQLiteStore(ThreadStore):
    """Each thread's discovered tools in a SQLite file: kept across restarts, and shared
    safely by every thread and process of one machine that opens the same file.

    The file is in WAL mode, so readers never wait for a writer. Each load or save is one
    short transaction that takes the write lock first (a load refreshes the thread's last
    access), so concurrent saves to one thread never lose or repeat an id; a process that
    finds the file locked waits up to `timeout` seconds. Each thread of a process gets its
    own connection, opened on first use; a child process made by `fork` opens new ones.
    Don't put the file on a network file system: SQLite's locks are not reliable there.

    A thread's state expires `ttl` seconds after its last access; expired threads are
    deleted at each load and save, and by `cleanup_now()`.

    Args:
        path: the database file, created with its tables if missing.
        ttl: seconds a thread's state lives after its last access; 0 keeps it until cleared.
        anonymous: `"refuse"` raises `MissingThreadError` for a request without a thread id,
            `"isolate"` gives it an empty state that is never saved.
        timeout: seconds to wait for another connection's write lock before failing.
        clock: seconds since the epoch, `time.time` by default; tests pass a fake one.

    Raises:
        StateStoreError: the file cannot be a store: not a SQLite database, damaged, a
            device such as `/dev/null`, or holding tables of the same names that toolscout
            did not make. Raised when the store is made or when the damage is met.
        StoreUnavailableError: another connection held the file's lock for more than
            `timeout` seconds (any method).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        ttl: float = DEFAULT_TTL,
        anonymous: AnonymousPolicy = "refuse",
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(ttl=ttl, anonymous=anonymous)
        self.path = Path(path)
        if str(path) == ":memory:" or str(path).startswith("file:"):
            raise StateStoreError(
                "SQLiteStore needs a file path; for a store in memory, use InMemoryStore"
            )
        self.timeout = timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._local = threading.local()
        self._pid = os.getpid()
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        self._in_use: set[sqlite3.Connection] = set()
        self._closed = False
        try:
            with self._transaction() as connection:
                self._create_schema(connection)
        except BaseException:
            self.close()
            raise

    def clear_all(self) -> None:
        with self._transaction() as connection:
            connection.execute("DELETE FROM discovered_tools")
            connection.execute("DELETE FROM threads")

    def stats(self) -> StoreStats:
        with self._errors(), self._using() as connection:
            rows = connection.execute(
                "SELECT count(*), min(last_access) FROM threads WHERE last_access > ?",
                (self._cutoff(),),
            )
            count, oldest = rows.fetchone()
        return StoreStats(
            threads=count,
            oldest_access=None if oldest is None else datetime.fromtimestamp(oldest, UTC),
        )

    def cleanup_now(self) -> int:
        with self._transaction() as connection:
            return self._delete_expired(connection)

    def close(self) -> None:
        """Close every connection this store opened; using the store afterwards is an error.
        A connection another thread is using (waiting for a lock) is closed by that thread
        when it is done: closing it under its feet could crash the process."""
        with self._lock:
            self._closed = True
            mine = self._pid == os.getpid()
            idle = [c for c in self._connections.values() if c not in self._in_use] if mine else []
            self._connections = {t: c for t, c in self._connections.items() if c in self._in_use}
        for connection in idle:
            connection.close()

    def _load(self, thread_id: str) -> list[str]:
        with self._transaction() as connection:
            self._delete_expired(connection)
            thread = self._touch(connection, thread_id)
            if thread is None:
                return []
            rows = connection.execute(
                "SELECT tool_id FROM discovered_tools WHERE thread = ? ORDER BY position",
                (thread,),
            )
            return [tool_id for (tool_id,) in rows]

    def _save(self, thread_id: str, tool_ids: list[str]) -> None:
        with self._transaction() as connection:
            self._delete_expired(connection)
            thread = self._touch(connection, thread_id)
            if thread is None:
                if not tool_ids:
                    return
                cursor = connection.execute(
                    "INSERT INTO threads (thread_id, last_access) VALUES (?, ?)",
                    (thread_id, self._clock()),
                )
                thread = cursor.lastrowid
            (position,) = connection.execute(
                "SELECT coalesce(max(position), 0) FROM discovered_tools WHERE thread = ?",
                (thread,),
            ).fetchone()
            now = self._clock()
            for tool_id in tool_ids:
                cursor = connection.execute(
                    "INSERT OR IGNORE INTO discovered_tools (thread, position, tool_id, "
                    "discovered_at) VALUES (?, ?, ?, ?)",
                    (thread, position + 1, tool_id, now),
                )
                position += cursor.rowcount  # 0 when the thread already had this id

    def _clear(self, thread_id: str) -> None:
        with self._transaction() as connection:
            connection.execute(
                "DELETE FROM discovered_tools WHERE thread IN "
                "(SELECT id FROM threads WHERE thread_id = ?)",
                (thread_id,),
            )
            connection.execute("DELETE FROM threads WHERE thread_id = ?", (thread_id,))

    def _touch(self, connection: sqlite3.Connection, thread_id: str) -> int | None:
        """The thread's row id after refreshing its last access; None if it has no state."""
        row = connection.execute("SELECT id FROM threads WHERE thread_id = ?", (thread_id,))
        found = row.fetchone()
        if found is None:
            return None
        thread = int(found[0])
        connection.execute(
            "UPDATE threads SET last_access = ? WHERE id = ?", (self._clock(), thread)
        )
        return thread

    def _delete_expired(self, connection: sqlite3.Connection) -> int:
        """Deletes the expired threads; cheap when there are none (an index lookup)."""
        if self.ttl == 0:
            return 0
        cutoff = self._cutoff()
        connection.execute(
            "DELETE FROM discovered_tools WHERE thread IN "
            "(SELECT id FROM threads WHERE last_access <= ?)",
            (cutoff,),
        )
        return connection.execute("DELETE FROM threads WHERE last_access <= ?", (cutoff,)).rowcount

    def _cutoff(self) -> float:
        """Threads whose last access is at or before this have expired."""
        return self._clock() - self.ttl if self.ttl > 0 else float("-inf")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: it takes the write lock at once, so that two connections
        never both read a thread and then both append to it."""
        with self._errors(), self._using() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                if connection.in_transaction:
                    connection.rollback()
                raise
            connection.execute("COMMIT")

    @contextmanager
    def _using(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, marked in use so that `close()` leaves it alone; closed
        here if the store was closed meanwhile."""
        connection = self._connection()
        with self._lock:
            self._in_use.add(connection)
        try:
            yield connection
        finally:
            with self._lock:
                self._in_use.discard(connection)
                close = self._closed
                if close:
                    self._connections.pop(threading.current_thread(), None)
            if close:
                connection.close()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's errors as toolscout's: a lock held too long makes the store unavailable;
        anything else the file does wrong makes it unusable."""
        try:
            yield
        except sqlite3.OperationalError as error:
            code = getattr(error, "sqlite_errorcode", 0) & 0xFF
            if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise StoreUnavailableError(
                    f"the SQLite store {self.path} stayed locked by another connection for "
                    f"more than {self.timeout:g} s"
                ) from None
            raise StateStoreError(f"cannot use {self.path} as a SQLite store: {error}") from None
        except sqlite3.DatabaseError as error:
            raise StateStoreError(
                f"cannot use {self.path} as a SQLite store: {error}; give the path of a "
                "toolscout store, or of a file to create"
            ) from None

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        if self._pid != os.getpid():
            # A forked child must not use, or even close, its parent's connections.
            with self._lock:
                self._pid = os.getpid()
                self._connections = {}
                self._in_use = set()
                self._local = threading.local()
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None and not self._closed:
            return connection
        with self._lock:
            if self._closed:
                raise StateStoreError(f"this SQLiteStore of {self.path} is closed")
            # Connections of threads that have ended are never used again.
            for thread in [thread for thread in self._connections if not thread.is_alive()]:
                self._connections.pop(thread).close()
            connection = self._connect()
            self._connections[threading.current_thread()] = connection
        self._local.connection = connection
        return connection

    def _connect(self) -> sqlite3.Connection:
        try:
            connection = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.OperationalError as error:
            raise StateStoreError(f"cannot open the SQLite store {self.path}: {error}") from None
        try:
            self._set_wal_mode(connection)
            connection.execute("PRAGMA synchronous = NORMAL")  # durable with WAL, and faster
        except BaseException:
            connection.close()
            raise  # told apart by `_errors`: a lock held too long, or a file that is no store
        return connection

    def _set_wal_mode(self, connection: sqlite3.Connection) -> None:
        # Switching to WAL needs a moment alone with the file, and SQLite does not wait for it
        # when another process is opening the same new file, so wait here.
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _create_schema(self, connection: sqlite3.Connection) -> None:
        (version,) = connection.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise StateStoreError(
                f"{self.path} was written by a newer toolscout (schema {version}, this one "
                f"reads {SCHEMA_VERSION}); upgrade toolscout or use another file"
            )
        for table, expected in _COLUMNS.items():
            columns = tuple(row[1] for row in connection.execute(f"PRAGMA table_info({table})"))
            if columns and columns != expected:
                raise StateStoreError(
                    f"{self.path} has a table {table!r} that toolscout did not make (columns "
                    f"{', '.join(columns)}); give the path of a toolscout store, or of a new "
                    "file"
                )
        for statement in _SCHEMA:
            connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
