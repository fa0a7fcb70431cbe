"""A file of vectors already computed, so that no text is embedded twice, across restarts.

Vectors are keyed by the embedder's `model_id` and a hash of the text embedded, so a tool
whose text is unchanged is never embedded again, whichever catalog, index or process asks;
a changed text, or another model, is a different key. The file is SQLite (WAL mode), safe for
several processes and threads at once.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.errors import require_extra

#: The cache file's name in the user cache directory.
CACHE_FILE_NAME = "embeddings.sqlite3"

# Keys per SQL statement: well under SQLite's limit on bound parameters.
_CHUNK = 500

# A rowid table, not WITHOUT ROWID: a vector (1.5 kB for 384 dimensions) is too large for the
# latter's pages and would take an overflow page of its own.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    text_hash BLOB NOT NULL,
    vector BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_key ON vectors (model, text_hash);
"""


def default_cache_path() -> Path:
    """`embeddings.sqlite3` in the user cache directory (platformdirs): for example
    `~/.cache/toolscout/` on Linux, `~/Library/Caches/toolscout/` on macOS."""
    require_extra("semantic", "platformdirs", feature="the embedding cache")
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolscout", appauthor=False)) / CACHE_FILE_NAME


def text_hash(text: str) -> bytes:
    """The key of a text in the cache (BLAKE2b, 16 bytes)."""
    return hashlib.blake2b(text.encode("utf-8", errors="surrogatepass"), digest_size=16).digest()


class EmbeddingCache:
    """Vectors by model and text hash, in one SQLite file.

    The file and its folder are created at first use. If the file cannot be opened or
    written (a read-only disk, a corrupt file), the cache warns once and carries on as an
    empty cache: search still works, it only embeds again.

    Args:
        path: the file; `None` for `default_cache_path()`.
        timeout: seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | Path | None = None, *, timeout: float = 30.0) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.timeout = timeout
        self._connection: sqlite3.Connection | None = None
        self._broken = False
        self._lock = threading.Lock()

    def get(self, model_id: str, texts: Sequence[str]) -> list[npt.NDArray[np.float32] | None]:
        """The cached vector of each text, or None where there is none."""
        hashes = [text_hash(text) for text in texts]
        found: dict[bytes, bytes] = {}
        with self._session() as connection:
            if connection is not None:
                for start in range(0, len(hashes), _CHUNK):
                    chunk = hashes[start : start + _CHUNK]
                    rows = connection.execute(
                        "SELECT text_hash, vector FROM vectors WHERE model = ? AND text_hash IN "
                        f"({','.join('?' * len(chunk))})",
                        [model_id, *chunk],
                    )
                    found.update(rows)
        return [
            np.frombuffer(found[key], dtype=np.float32) if key in found else None for key in hashes
        ]

    def put(self, model_id: str, texts: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        """Store a vector per text (replacing any stored for the same model and text)."""
        rows = [
            (model_id, text_hash(text), np.ascontiguousarray(vector, dtype=np.float32).tobytes())
            for text, vector in zip(texts, vectors, strict=True)
        ]
        with self._session() as connection:
            if connection is not None:
                with connection:
                    connection.executemany(
                        "INSERT OR REPLACE INTO vectors (model, text_hash, vector) "
                        "VALUES (?, ?, ?)",
                        rows,
                    )

    def count(self, model_id: str | None = None) -> int:
        """How many vectors are stored, for one model or for all."""
        with self._session() as connection:
            if connection is None:
                return 0
            if model_id is None:
                row = connection.execute("SELECT COUNT(*) FROM vectors").fetchone()
            else:
                row = connection.execute(
                    "SELECT COUNT(*) FROM vectors WHERE model = ?", (model_id,)
                ).fetchone()
            return int(row[0])

    def clear(self, model_id: str | None = None) -> None:
        """Forget the vectors of one model, or every vector."""
        with self._session() as connection:
            if connection is not None:
                with connection:
                    if model_id is None:
                        connection.execute("DELETE FROM vectors")
                    else:
                        connection.execute("DELETE FROM vectors WHERE model = ?", (model_id,))

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    @contextmanager
    def _session(self) -> Iterator[sqlite3.Connection | None]:
        with self._lock:
            connection = self._connect()
            try:
                yield connection
            except sqlite3.Error as error:
                self._give_up(error)

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
            connection.executescript(_SCHEMA)
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
                f"embedding cache {self.path} is unusable ({error}); embedding without it",
                RuntimeWarning,
                stacklevel=4,
            )
        self._broken = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.path)!r})"
