"""The SQLite file that search's caches share: embeddings, and BM25's analyses of tools.

WAL mode makes the file safe for several processes and threads at once. A cache that cannot
open or write its file (a read-only disk, a corrupt file) warns once and then acts as an empty
cache: search still works, it only computes again.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: The cache file's name in the user cache directory.
CACHE_FILE_NAME = "embeddings.sqlite3"

#: Keys per SQL statement: well under SQLite's limit on bound parameters.
KEYS_PER_STATEMENT = 500


def default_cache_path() -> Path:
    """`embeddings.sqlite3` in the user cache directory (platformdirs): for example
    `~/.cache/toolscout/` on Linux, `~/Library/Caches/toolscout/` on macOS."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolscout", appauthor=False)) / CACHE_FILE_NAME


def rows_for_keys(
    connection: sqlite3.Connection, query: str, leading: Sequence[object], keys: Sequence[bytes]
) -> Iterator[tuple[Any, ...]]:
    """The rows `query` selects for `keys`: `{keys}` in the query takes their placeholders
    (`IN ({keys})`), bound after the `leading` parameters, `KEYS_PER_STATEMENT` at a time."""
    for start in range(0, len(keys), KEYS_PER_STATEMENT):
        chunk = keys[start : start + KEYS_PER_STATEMENT]
        yield from connection.execute(
            query.format(keys=",".join("?" * len(chunk))), [*leading, *chunk]
        )


class CacheFile:
    """One connection to the cache file, opened at first use, with the tables of `schema`.

    Args:
        path: the file; `None` for `default_cache_path()`.
        schema: the SQL that creates the tables (if they are missing).
        label: what the cache is, in the warning (`"embedding cache"`).
        fallback: what happens without it, in the warning (`"embedding without it"`).
        timeout: seconds to wait for another process's write lock.
    """

    def __init__(
        self,
        path: str | Path | None,
        schema: str,
        *,
        label: str,
        fallback: str,
        timeout: float = 30.0,
    ) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.timeout = timeout
        self._schema = schema
        self._label = label
        self._fallback = fallback
        self._connection: sqlite3.Connection | None = None
        self._broken = False
        self._lock = threading.Lock()

    @contextmanager
    def session(self) -> Iterator[sqlite3.Connection | None]:
        """The connection, held by this thread; `None` once the file proved unusable. A
        SQLite error inside warns (once) and ends the cache's use of the file."""
        with self._lock:
            connection = self._connect()
            try:
                yield connection
            except sqlite3.Error as error:
                self._give_up(error)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _connect(self) -> sqlite3.Connection | None:
        if self._connection is not None or self._broken:
            return self._connection
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=self.timeout, check_same_thread=False, isolation_level=None
            )
            # Before the first table: large pages hold several vectors each, even long ones.
            connection.execute("PRAGMA page_size=16384")
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(self._schema)
        except (OSError, sqlite3.Error) as error:
            self._give_up(error)
            return None
        # Transactions are opened by `with connection:` only around writes.
        connection.isolation_level = "DEFERRED"
        self._connection = connection
        return connection

    def _give_up(self, error: Exception) -> None:
        if not self._broken:
            warnings.warn(
                f"{self._label} {self.path} is unusable ({error}); {self._fallback}",
                RuntimeWarning,
                # The cache's caller: past this method, `_connect` or `session`, and the
                # cache's own method.
                stacklevel=5,
            )
        self._broken = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None
