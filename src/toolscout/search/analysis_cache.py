"""BM25's analysis of each tool (its terms, field by field) kept in the cache file, so that a new
process indexes a catalog it has seen without analysing it again: for 5,000 tools, reading the
terms back costs a fifth of analysing them.

Analyses are keyed by what produced them (`analyzer`: the analysis code, the language, the
fields searched...) and the tool's `fingerprint`, which changes exactly when its searchable
text does. They live in the same SQLite file as the embedding cache.

A catalog indexed from scratch is also kept whole, as one record of its vocabulary and its
tools' term ids (`CatalogAnalysis`): a process that indexes the same catalog again reads one
row instead of a row per tool, and maps no term to its id. Only the `KEPT_CATALOGS` last
written are kept.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.search._cache_file import CacheFile, rows_for_keys
from toolscout.search.base import FIELDS

__all__ = ["KEPT_CATALOGS", "AnalysisCache", "CachedAnalysis", "CatalogAnalysis"]

#: Whole catalogs' analyses kept in the file; the oldest written go first.
KEPT_CATALOGS = 8

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
CREATE TABLE IF NOT EXISTS catalog_analyses (
    key BLOB PRIMARY KEY,
    vocabulary TEXT NOT NULL,
    term_ids BLOB NOT NULL,
    field_lengths BLOB NOT NULL,
    written REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class CachedAnalysis:
    """A tool's terms, field after field, with repeats."""

    terms: list[str]
    field_lengths: npt.NDArray[np.int32]
    """How many of `terms` each field has, in `FIELDS` order."""


@dataclass(frozen=True, slots=True)
class CatalogAnalysis:
    """The analyses of a whole catalog: its vocabulary, and each tool's terms as ids in it."""

    vocabulary: dict[str, int]
    """Each term with its id; ids are the positions `0…n-1`, in order."""
    term_ids: npt.NDArray[np.int32]
    """Every tool's term ids, field after field, tool after tool."""
    field_lengths: npt.NDArray[np.int32]
    """How many of `term_ids` each field of each tool has: tools × `FIELDS`."""


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

    def get_catalog(self, key: bytes, tools: int) -> CatalogAnalysis | None:
        """The analyses of the catalog of `tools` tools stored under `key`, if any."""
        with self._file.session() as connection:
            if connection is None:
                return None
            row = connection.execute(
                "SELECT vocabulary, term_ids, field_lengths FROM catalog_analyses WHERE key = ?",
                [key],
            ).fetchone()
        return None if row is None else _read_catalog(*row, tools=tools)

    def put_catalog(self, key: bytes, analysis: CatalogAnalysis) -> None:
        """Store a catalog's analyses under `key`, and forget all but the `KEPT_CATALOGS`
        last written."""
        row = (
            key,
            _TERM_SEPARATOR.join(analysis.vocabulary),
            np.ascontiguousarray(analysis.term_ids, dtype=np.int32).tobytes(),
            np.ascontiguousarray(analysis.field_lengths, dtype=np.int32).tobytes(),
            time.time(),
        )
        with self._file.session() as connection:
            if connection is not None:
                with connection:
                    connection.execute(
                        "INSERT OR REPLACE INTO catalog_analyses "
                        "(key, vocabulary, term_ids, field_lengths, written) "
                        "VALUES (?, ?, ?, ?, ?)",
                        row,
                    )
                    connection.execute(
                        "DELETE FROM catalog_analyses WHERE key NOT IN "
                        "(SELECT key FROM catalog_analyses ORDER BY written DESC LIMIT ?)",
                        [KEPT_CATALOGS],
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
                    connection.execute("DELETE FROM catalog_analyses")

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


def _read_catalog(
    vocabulary: object, term_ids: object, field_lengths: object, *, tools: int
) -> CatalogAnalysis | None:
    """A stored catalog's analyses, or `None` if the row is not one for `tools` tools (the file
    is another program's to damage): the catalog is then analysed tool by tool."""
    if not (
        isinstance(vocabulary, str)
        and isinstance(term_ids, bytes)
        and isinstance(field_lengths, bytes)
        and len(term_ids) % 4 == 0
        and len(field_lengths) == tools * len(FIELDS) * 4
    ):
        return None
    terms = vocabulary.split(_TERM_SEPARATOR) if vocabulary else []
    ids = np.frombuffer(term_ids, dtype=np.int32)
    lengths = np.frombuffer(field_lengths, dtype=np.int32).reshape(tools, len(FIELDS))
    by_term = dict(zip(terms, range(len(terms)), strict=True))
    if (
        len(by_term) != len(terms)  # a term twice
        or (lengths < 0).any()
        or int(lengths.sum()) != len(ids)
        or (len(ids) and (int(ids.min()) < 0 or int(ids.max()) >= len(terms)))
    ):
        return None
    return CatalogAnalysis(by_term, ids, lengths)
