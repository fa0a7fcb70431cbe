"""What every search engine returns, and the interface each engine implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, get_args

from toolscout.catalog.tool import Tool

Field = Literal[
    "name",
    "namespace",
    "description",
    "parameter_names",
    "parameter_descriptions",
    "enum_values",
    "tags",
]
"""A searchable part of a tool; each is indexed separately."""

FIELDS: tuple[Field, ...] = get_args(Field)
"""The fields in index order (engines number them by position here)."""

MatchKind = Literal["exact", "synonym", "prefix", "pattern"]

ToolFilter = Callable[[Tool], bool]
"""Keeps a tool in the results when it returns True."""


@dataclass(frozen=True, slots=True)
class MatchedTerm:
    """One query term that contributed to a hit."""

    query_term: str
    """The word as it appeared in the query (casefolded)."""
    index_term: str
    """The analysed term that matched in the tool (stemmed; for prefix and synonym matches,
    the tool's term, which differs from the query's)."""
    fields: tuple[Field, ...]
    """The fields of the tool the term was found in."""
    kind: MatchKind
    """`exact` (same stem), `synonym` (from the built-in synonym table), `prefix` (the query
    word is the start of the tool's word) or `pattern` (a regex match)."""


@dataclass(frozen=True)
class SearchHit:
    """A tool found by a search, with how well and why it matched."""

    tool: Tool
    """The tool as it is in the catalog now (never a stale copy)."""
    score: float
    """The engine's raw score, which orders the hits of one ranking: comparable within one
    query, not across queries or engines. A request of several needs ranks the whole request
    and each need (see `need`), and its hits take turns among those rankings, so its raw scores
    may rise down the results where one need's hit follows another's. For BM25, the
    field-weighted BM25 sum times the number of the query's words the tool matches."""
    normalized_score: float
    """0–1, comparable across queries and catalogs: how strong the match is. It never rises
    down the ranking. A search answers only when its best hit reaches the threshold, and then
    with the hits that reach half of it and a third of the best hit's.

    For BM25 it is `score / (score + scale)`, never 1: it follows the raw score. The score is
    the BM25 sum times the number of query words the tool matches, and the scale is the score of
    a tool that matches one query word that no other tool has, found once in both its name and
    description; so 0.5 is that much, 0.8 four times as much (as strong a match of four words,
    or of two words twice as strong), 0.2 a quarter of it (a common word, or a word only in a
    parameter). Queries of fewer than nine words (stopwords aside) are held to less, by the
    square root of their length: a one-word query needs a third of that score, so "rain" still
    finds the tool whose description says "rain". For regex: always 1.

    For semantic search it is the cosine similarity of the query's and the tool's embeddings,
    mapped linearly from 0.1 (unrelated texts) to 0.8 onto 0–1 for all-MiniLM-L6-v2 (an
    embedder's `cosine_range` for others). For hybrid search it is also the score: `w ×
    semantic + (1 − w) × lexical`, `w` being the semantic weight (0.65 by default), semantic
    the semantic normalized score, and lexical the tool's BM25 score as a share of the query's
    best, times that best tool's BM25 normalized score. A tool the query names, or whose text
    neither model can read, scores at least its lexical score. For a question that asks to
    read (see Scoring), a tool whose name changes something scores half of that."""
    rank: int = 0
    """1-based position in the results."""
    need: str | None = None
    """The part of a request of several needs that found this tool (see `split_needs`);
    None when the request is one need, or the whole request ranked it best."""
    explain: Callable[[], tuple[MatchedTerm, ...]] = field(
        default=lambda: (), repr=False, compare=False
    )
    """Computes `matched_terms`; searches that never look at explanations never pay for them."""
    prerequisite_of: str | None = None
    """The id of the tool just above that needs a value this one gives, as its parameters'
    descriptions say ("the library id, from resolve-library-id"): an agent calls this one
    first. None for a tool found for the request itself. Its scores are that tool's."""

    @cached_property
    def matched_terms(self) -> tuple[MatchedTerm, ...]:
        """Which query terms hit which fields, for explanations and highlighting."""
        return self.explain()

    @property
    def matched_fields(self) -> dict[str, tuple[Field, ...]]:
        """Query term → fields it matched in, merged over match kinds."""
        merged: dict[str, set[Field]] = {}
        for term in self.matched_terms:
            merged.setdefault(term.query_term, set()).update(term.fields)
        return {term: tuple(f for f in FIELDS if f in found) for term, found in merged.items()}


class SearchResults(list[SearchHit]):
    """The hits of one search, best first: a plain list, plus a `notice` for the model.

    `notice` explains an empty or cut-short result (an invalid pattern, a query with no
    searchable words, nothing above the threshold) in words fit to show a model.
    """

    def __init__(
        self, hits: Iterable[SearchHit] = (), *, query: str = "", notice: str | None = None
    ) -> None:
        super().__init__(hits)
        self.query = query
        self.notice = notice

    def __repr__(self) -> str:
        return f"SearchResults({list.__repr__(self)}, query={self.query!r}, notice={self.notice!r})"


class SearchEngine(ABC):
    """A ranking over a fixed list of tools. `ToolIndex` keeps engines in step with the
    catalog, applies thresholds and filters, and resolves hits to current tools."""

    @abstractmethod
    def rebuild(self, tools: Sequence[Tool]) -> None:
        """Index these tools, in this order; reuse whatever earlier work still applies."""

    @abstractmethod
    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        """Candidates for `query`, best first, at least `limit` of them when there are, leaving
        out those whose raw score is below `min_score`."""

    def prefetch(self, queries: Sequence[str]) -> None:  # noqa: B027 (most engines need none)
        """`queries` are about to be ranked one after another (a request and its needs): an
        engine that sends each query to a model may send them all at once. Ranking is the
        same with or without it."""


@dataclass(frozen=True, slots=True)
class RankedCandidates:
    """An engine's answer before thresholds, filters and `k` are applied."""

    positions: Sequence[int]
    """Indexes into the tool list given to `rebuild`, best first."""
    scores: Sequence[float]
    normalized_scores: Sequence[float]
    notice: str | None = None
    exhaustive: bool = True
    """False when more candidates exist beyond those returned (ask again with a larger limit)."""
    explain: Callable[[int], tuple[MatchedTerm, ...]] = lambda position: ()
    """Which query terms matched the tool at a position, in which fields; called only for
    the hits kept, so explaining costs nothing for the candidates a search drops."""
