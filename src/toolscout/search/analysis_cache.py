"""BM25's analysis of each tool (its terms, field by field) kept in the cache file, so that a new
process indexes a catalog it has seen without analysing it again: for 5,000 tools, reading the
terms back costs a fifth of analysing them.

Analyses are keyed by what produced them (`analyzer`: the analysis code, the language, the
fields searched...) and the tool's `fingerprint`, which changes exactly when its searchable
text does. They live in the same SQLite file as the embedding cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.search._cache_file import CacheFile, rows_for_keys
from toolscout.search.base import FIELDS

__all__ = ["AnalysisCache", "CachedAnalysis"]

# Terms are words and word pairs: neither ever holds a newline.
_TERM_SEPARATOR = "\n"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS analyses (
    analyzer TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    terms TEXT NOT NULL,
    field_lengths BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS analyses_by_key ON analyses (analyzer, fingerprint);
"""


@dataclass(frozen=True, slots=True)
class CachedAnalysis:
    """A tool's terms, field after field, with repeats."""

    terms: list[str]
    field_lengths: npt.NDArray[np.int32]
    """How many of `terms` each field has, in `FIELDS` order."""


class AnalysisCache:
    """Tools' BM25 analyses by analyzer and fingerprint, in one SQLite file.

    If the file cannot be opened or written, the cache warns once and carries on as an empty
    cache: search still works, it only analyses again.

    Args:
        path: the file; `None` for `default_cache_path()`, the embedding cache's file.
        timeout: seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | Path | None = None, *, timeout: float = 30.0) -> None:
        self._file = CacheFile(
            path, _SCHEMA, label="analysis cache", fallback="analysing without it", timeout=timeout
        )
        self.path = self._file.path

    def get(self, analyzer: str, fingerprints: Sequence[str]) -> dict[str, CachedAnalysis]:
        """The cached analyses of the tools with these fingerprints, by fingerprint."""
        found: dict[str, CachedAnalysis] = {}
        keys = [bytes.fromhex(fingerprint) for fingerprint in fingerprints]
        with self._file.session() as connection:
            if connection is None:
                return found
            rows = rows_for_keys(
                connection,
                "SELECT fingerprint, terms, field_lengths FROM analyses "
                "WHERE analyzer = ? AND fingerprint IN ({keys})",
                [analyzer],
                keys,
            )
            for key, terms, lengths in rows:
                analysis = _read(terms, lengths)
                if analysis is not None:
                    found[key.hex()] = analysis
        return found

    def put(self, analyzer: str, analyses: dict[str, CachedAnalysis]) -> None:
        """Store analyses by fingerprint (replacing any stored for the same key)."""
        rows = [
            (
                analyzer,
                bytes.fromhex(fingerprint),
                _TERM_SEPARATOR.join(analysis.terms),
                np.ascontiguousarray(analysis.field_lengths, dtype=np.int32).tobytes(),
            )
            for fingerprint, analysis in analyses.items()
        ]
        with self._file.session() as connection:
            if connection is not None:
                with connection:
                    connection.executemany(
                        "INSERT OR REPLACE INTO analyses "
                        "(analyzer, fingerprint, terms, field_lengths) VALUES (?, ?, ?, ?)",
                        rows,
                    )

    def count(self) -> int:
        """How many analyses are stored."""
        with self._file.session() as connection:
            if connection is None:
                return 0
            return int(connection.execute("SELECT COUNT(*) FROM analyses").fetchone()[0])

    def clear(self) -> None:
        """Forget every analysis."""
        with self._file.session() as connection:
            if connection is not None:
                with connection:
                    connection.execute("DELETE FROM analyses")

    def close(self) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"AnalysisCache({str(self.path)!r})"


def _read(terms: object, lengths: object) -> CachedAnalysis | None:
    """A stored analysis, or `None` if the row is not one (the file is another program's to
    damage): the tool is then analysed again."""
    if not isinstance(terms, str) or not isinstance(lengths, bytes):
        return None
    if len(lengths) != len(FIELDS) * 4:
        return None
    field_lengths = np.frombuffer(lengths, dtype=np.int32)
    term_list = terms.split(_TERM_SEPARATOR) if terms else []
    if (field_lengths < 0).any() or int(field_lengths.sum()) != len(term_list):
        return None
    return CachedAnalysis(term_list, field_lengths)
