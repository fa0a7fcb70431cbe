"""A file of vectors already computed, so that no text is embedded twice, across restarts.

Vectors are keyed by the embedder's `model_id` and a hash of the text embedded, so a tool
whose text is unchanged is never embedded again, whichever catalog, index or process asks;
a changed text, or another model, is a different key. The file is SQLite (WAL mode), safe for
several processes and threads at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.search._cache_file import (
    CACHE_FILE_NAME,
    CacheFile,
    default_cache_path,
    rows_for_keys,
)

__all__ = ["CACHE_FILE_NAME", "EmbeddingCache", "default_cache_path", "text_hash"]

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
        self._file = CacheFile(
            path, _SCHEMA, label="embedding cache", fallback="embedding without it", timeout=timeout
        )
        self.path = self._file.path
        self.timeout = timeout

    def get(self, model_id: str, texts: Sequence[str]) -> list[npt.NDArray[np.float32] | None]:
        """The cached vector of each text, or None where there is none."""
        hashes = [text_hash(text) for text in texts]
        found: dict[bytes, bytes] = {}
        with self._file.session() as connection:
            if connection is not None:
                rows = rows_for_keys(
                    connection,
                    "SELECT text_hash, vector FROM vectors "
                    "WHERE model = ? AND text_hash IN ({keys})",
                    [model_id],
                    hashes,
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
        with self._file.session() as connection:
            if connection is not None:
                with connection:
                    connection.executemany(
                        "INSERT OR REPLACE INTO vectors (model, text_hash, vector) "
                        "VALUES (?, ?, ?)",
                        rows,
                    )

    def count(self, model_id: str | None = None) -> int:
        """How many vectors are stored, for one model or for all."""
        with self._file.session() as connection:
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
        with self._file.session() as connection:
            if connection is not None:
                with connection:
                    if model_id is None:
                        connection.execute("DELETE FROM vectors")
                    else:
                        connection.execute("DELETE FROM vectors WHERE model = ?", (model_id,))

    def close(self) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.path)!r})"
