"""Okapi BM25 over the fields of tool definitions.

Each field (name, description, parameters...) is scored with its own length normalisation and
term-frequency saturation, then weighted and summed: repeating a word fifty times in one field
is worth little more than saying it once. All tools live in one sparse tool × term matrix of
precomputed weights, so a query costs one column slice per query term, never a Python loop
over the tools.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import gc
import hashlib
import inspect
import itertools
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple, cast

import numpy as np
import numpy.typing as npt

from toolscout.catalog.tool import Tool
from toolscout.errors import SearchConfigError
from toolscout.search.analysis import (
    MAX_FIELD_CHARS,
    Analyzer,
    QueryTerm,
    is_cjk,
    single_words,
    word_pairs,
)
from toolscout.search.analysis_cache import AnalysisCache, CachedAnalysis, CatalogAnalysis
from toolscout.search.base import (
    FIELDS,
    Field,
    MatchedTerm,
    MatchKind,
    RankedCandidates,
    SearchEngine,
)
from toolscout.search.fields import tool_fields
from toolscout.search.questions import (
    CHANGING_VERBS,
    READING_VERBS,
    asks_to_read,
)
from toolscout.search.synonyms import SYNONYM_GROUPS, synonym_table

DEFAULT_FIELD_WEIGHTS: Mapping[Field, float] = MappingProxyType(
    {
        "name": 2.0,
        "namespace": 1.0,
        "description": 1.0,
        "parameter_names": 1.0,
        "parameter_descriptions": 1.0,
        "enum_values": 0.75,
        "tags": 1.5,
    }
)


# A query of this many words (stopwords aside) is held to the full `score_scale`; chosen
# on the BFCL dev split with short queries' recall in view.
_FULL_LENGTH_QUERY = 9

#: CJK terms are weighed by their rarity among the tools with CJK text, counted as at least
#: this many tools (see `_weigh_cjk_terms_among_their_tools`).
CJK_TOOLS_FLOOR = 10

# Query terms whose matches an index remembers (see `_MatchCache`).
_MATCHES_CACHE_LIMIT = 100_000

# Postings entries (tool, score pairs) the cache may hold as copies, merged or reweighted.
_POSTINGS_CACHE_LIMIT = 2_000_000

# Fields that support what a tool's name and description say (see `supporting_cap`).
_SUPPORTING_FIELDS: frozenset[Field] = frozenset(
    {"parameter_names", "parameter_descriptions", "enum_values", "tags"}
)
_SUPPORTING = np.array([name in _SUPPORTING_FIELDS for name in FIELDS])
_NAME_FIELD = FIELDS.index("name")

# Prose fields, where adjacent words form phrases; names count too (`get_current_weather`).
_PAIRED_FIELDS: frozenset[Field] = frozenset({"name", "description", "parameter_descriptions"})


@dataclass(frozen=True)
class BM25Options:
    """How BM25 scores tools. The defaults were tuned on the BFCL dev split."""

    k1: float = 1.5
    """Term-frequency saturation: higher lets repeats count for longer."""
    b: float = 0.75
    """Length normalisation: 0 ignores field length, 1 fully normalises by it."""
    field_weights: Mapping[Field, float] = field(default_factory=lambda: DEFAULT_FIELD_WEIGHTS)
    """Weight of each field's score; fields left out weigh 0 (not searched)."""
    synonyms: bool = True
    """Match words from the built-in synonym table (create/add/new, delete/remove...)."""
    synonym_weight: float = 0.6
    """A synonym match counts this fraction of an exact match."""
    unconfirmed_synonym_weight: float = 0.25
    """A synonym match counts this fraction of `synonym_weight` in a tool that matches no
    other word of the query: without a second word to confirm it, the synonym is as likely
    to be of another sense (`book` a flight for "schedule a meeting", an `issue` for "a plane
    ticket"). One-word queries have nothing to confirm with, and keep the full weight."""
    prefix_weight: float = 0.5
    """A prefix match (`weath` → `weather`) counts this fraction of an exact match."""
    word_pairs: bool = True
    """Also index adjacent words as pairs in names, descriptions and parameter descriptions,
    so a tool that says the query's phrase ("current weather", "area of a triangle") ranks
    above one that merely has its words somewhere."""
    coordination: bool = True
    """Multiply each tool's score by the number of the query's words it matches: a tool that
    matches four of five words outranks one that matches a single rare word, however
    strongly."""
    supporting_cap: float = 1.0
    """The most the supporting fields (parameter names and descriptions, enum values, tags)
    add for one query term, together, as a multiple of one mention in a description of
    average length: they tell tools apart, but a tool cannot outrank one whose name and
    description say the query by listing its words in fifty parameters or tags."""
    question_change_weight: float = 0.5
    """A question that says no verb of change ("what numbers are in the sheet") asks to read:
    the tools whose name says they change something (`write_range`, `slack_post_message`)
    score this fraction of their score for it (see `toolscout.search.questions`), with BM25
    and with hybrid search. English only; 1 turns it off."""
    pair_weight: float = 0.75
    """A word-pair match counts this fraction of a single-word match (on top of the words
    themselves, which match too)."""
    min_prefix_length: int = 3
    """Query words shorter than this never prefix-match, so `a` cannot match everything."""
    max_prefix_expansions: int = 64
    """At most this many catalog terms are tried for one partial word."""
    language: str = "english"
    """Snowball stemmer and stopword language."""
    cache: bool = True
    """Keep each tool's analysis in the cache file, so a new process indexes a catalog it
    has seen without analysing its tools again (a CLI search, a gateway's restart)."""
    cache_path: str | Path | None = None
    """The cache file; `None` for `embeddings.sqlite3` in the user cache directory, the file
    the embedding cache uses."""

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise SearchConfigError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got {self.k1}, {self.b}")
        unknown = set(self.field_weights) - set(FIELDS)
        if unknown:
            raise SearchConfigError(
                f"unknown field(s) in field_weights: {sorted(unknown)}; fields are {FIELDS}"
            )
        if any(weight < 0 for weight in self.field_weights.values()):
            raise SearchConfigError("field weights must be >= 0")
        if not self.field_weights.get("name") and not self.field_weights.get("description"):
            raise SearchConfigError(
                "the name or the description field must have a weight above 0: scores are "
                "measured against a match in them"
            )
        if self.supporting_cap < 0:
            raise SearchConfigError("supporting_cap must be >= 0")
        for name in (
            "synonym_weight",
            "unconfirmed_synonym_weight",
            "prefix_weight",
            "pair_weight",
            "question_change_weight",
        ):
            if not 0 <= getattr(self, name) <= 1:
                raise SearchConfigError(f"{name} must be between 0 and 1")
        if self.min_prefix_length < 2:
            raise SearchConfigError("min_prefix_length must be at least 2")


@dataclass(frozen=True, slots=True)
class _AnalysedTool:
    """One tool's terms, field after field, with repeats; kept per tool id so unchanged
    tools are never analysed again. Repeats are counted for all tools at once, in
    `_build_state`: far cheaper than a count per field of each tool."""

    term_ids: npt.NDArray[np.int32]
    field_lengths: npt.NDArray[np.int32]
    """How many of `term_ids` each field has, in `FIELDS` order."""

    def field_ids(self) -> npt.NDArray[np.intp]:
        """The field of each of `term_ids`."""
        return np.repeat(np.arange(len(FIELDS)), self.field_lengths)


# _Alternative and _TermMatches are named tuples, made at a third of a frozen dataclass's cost:
# each query term new to the index makes one of each.
class _Alternative(NamedTuple):
    column: int
    weight: float
    kind: MatchKind


class _TermMatches(NamedTuple):
    """What one query term matches in one index state."""

    alternatives: tuple[_Alternative, ...]
    """The catalog terms it matches (exactly, as synonyms, as prefixes), for explanations."""
    rows: npt.NDArray[np.int32]
    """The tools it matches, each once..."""
    scores: npt.NDArray[np.float64]
    """...and its weighted score in each, its best alternative's: a word counts once."""
    synonym_rows: npt.NDArray[np.int32]
    """The tools of `rows` it matches only through a synonym..."""
    synonym_scores: npt.NDArray[np.float64]
    """...and its score in each (which a query may lower, see `unconfirmed_synonym_weight`)."""


_NO_ROWS = np.zeros(0, dtype=np.int32)
_NO_SCORES = np.zeros(0)
_NO_POSITIONS: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)
_NO_MATCHES = _TermMatches((), _NO_ROWS, _NO_SCORES, _NO_ROWS, _NO_SCORES)


# A query term, whether it may prefix-match, and the synonyms it must leave out (those the query
# has itself, as a word of its own).
_MatchKey = tuple[str, bool] | tuple[str, bool, frozenset[str]]


class _MatchCache:
    """Query term (and whether it may prefix-match) → its matches in one index state: common
    words recur in almost every query. Bounded in terms, and in the postings entries held as
    copies (merged synonyms and prefixes); an exact match's postings are views of the matrix."""

    def __init__(self) -> None:
        self.matches: dict[_MatchKey, _TermMatches] = {}
        self._copied_entries = 0

    def add(self, key: _MatchKey, matches: _TermMatches, *, copied: bool) -> None:
        if len(self.matches) >= _MATCHES_CACHE_LIMIT:
            return
        if copied:
            entries = len(matches.rows) + len(matches.synonym_rows)  # both copies
            if self._copied_entries + entries > _POSTINGS_CACHE_LIMIT:
                return
            self._copied_entries += entries
        self.matches[key] = matches


@dataclass(frozen=True, slots=True)
class _Columns:
    """A tools × terms matrix, column by column (compressed sparse columns): the tools that
    have term `c` are `indices[indptr[c]:indptr[c + 1]]`, ascending, with their `data`."""

    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int32]
    data: npt.NDArray[np.float64]

    @classmethod
    def from_cells(
        cls,
        cells: npt.NDArray[np.int64],
        values: npt.NDArray[np.float64],
        n_tools: int,
        n_terms: int,
    ) -> _Columns:
        """The matrix of `values` at `cells` (term × n_tools + tool, sorted and distinct)."""
        columns, rows = np.divmod(cells, n_tools)
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(np.bincount(columns, minlength=n_terms), out=indptr[1:])
        return cls(indptr, rows.astype(np.int32), values)


@dataclass(frozen=True, slots=True)
class _IndexState:
    """Everything a query reads, swapped in whole so searches never see a half-built index."""

    tools: tuple[_AnalysedTool, ...]
    matrix: _Columns  # tools × terms, BM25 weight × idf
    # Column → its postings (tools, scores times `synonym_weight`) in names, namespaces and
    # descriptions alone, for the terms that are some query word's synonym: a synonym is
    # matched there only.
    synonym_postings: dict[int, tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]]
    idf: npt.NDArray[np.float64]
    terms: list[str]  # by column
    sorted_terms: list[str]  # terms present in the current tools, for prefix look-up
    sorted_columns: npt.NDArray[np.int64]
    sorted_lengths: npt.NDArray[np.int64]  # length of each of `sorted_terms`
    score_scale: float  # the raw score that normalises to 0.5
    # The rows of the tools whose name says they change something, ascending
    # (`toolscout.search.questions`).
    changing_rows: npt.NDArray[np.intp]
    cache: _MatchCache = field(default_factory=_MatchCache)


class BM25Engine(SearchEngine):
    """Field-weighted Okapi BM25 with synonyms and prefix matching."""

    def __init__(self, options: BM25Options | None = None) -> None:
        self.options = options or BM25Options()
        self.analyzer = Analyzer(self.options.language)
        self.cache = AnalysisCache(self.options.cache_path) if self.options.cache else None
        self._synonyms = (
            synonym_table(self.analyzer, SYNONYM_GROUPS) if self.options.synonyms else {}
        )
        self._synonym_targets = sorted({t for others in self._synonyms.values() for t in others})
        english = self.options.language == "english"
        self._reading_terms = frozenset(
            self.analyzer.terms(" ".join(READING_VERBS)) if english else ()
        )
        self._changing_terms = frozenset(
            self.analyzer.terms(" ".join(CHANGING_VERBS)) if english else ()
        )
        self._field_weights = np.array(
            [self.options.field_weights.get(name, 0.0) for name in FIELDS], dtype=np.float64
        )
        self._vocabulary: dict[str, int] = {}
        # Word pairs with synonyms ("web page") are looked up like the pairs tools have.
        _term_ids(self._vocabulary, [term for term in self._synonyms if " " in term])
        self._initial_terms = list(self._vocabulary)
        self._analysed: dict[str, tuple[Tool, _AnalysedTool]] = {}
        self._state = _empty_state()
        searched = [name for name in FIELDS if self.options.field_weights.get(name)]
        # Everything the terms of a tool depend on, besides the tool itself.
        self._analyzer_key = (
            f"{_analysis_code_version()} {self.options.language} "
            f"pairs={self.options.word_pairs} fields={','.join(searched)}"
        )

    def rebuild(self, tools: Sequence[Tool]) -> None:
        with _collection_paused():
            if self._analysed or self.cache is None or not tools:
                analysed = self._analyses_of(tools)
            else:
                analysed = self._first_analyses_of(tools, self.cache)
        self._analysed = analysed  # forget tools that left the catalog
        analysed_tools = tuple(entry[1] for entry in analysed.values())
        if len(analysed_tools) == len(self._state.tools) and all(
            new is old for new, old in zip(analysed_tools, self._state.tools, strict=True)
        ):
            return  # nothing searchable changed (a pinned flag, metadata...)
        state = self._build_state(analysed_tools)
        self._merge_synonyms(state)
        self._state = state

    def _merge_synonyms(self, state: _IndexState) -> None:
        """Match each word of the synonym table with its synonyms while the index is built, not
        at the first search that says it: merging their postings costs as much as a whole
        search, and most requests say such a word (find, get, create, show...). It takes 5 ms
        for 500 tools, 17 ms for 50,000; the merged postings are bounded like any others."""
        for term in self._synonyms:
            if " " not in term:  # the key of a query word of three letters or more
                self._match((term, True), state)

    def _analyses_of(self, tools: Sequence[Tool]) -> dict[str, tuple[Tool, _AnalysedTool]]:
        """Each tool's analysis by id: the one it had if it is unchanged, else from the cache
        or made afresh."""
        previous = [self._previous_analysis(tool) for tool in tools]
        new_tools = [tool for tool, known in zip(tools, previous, strict=True) if not known]
        fresh = iter(self._analyse_all(new_tools))
        return {
            tool.id: (tool, analysis if analysis is not None else next(fresh))
            for tool, analysis in zip(tools, previous, strict=True)
        }

    def _first_analyses_of(
        self, tools: Sequence[Tool], cache: AnalysisCache
    ) -> dict[str, tuple[Tool, _AnalysedTool]]:
        """The analyses of a first index, read back whole when this catalog was indexed from
        scratch before (with this analysis, in this order), and kept whole otherwise."""
        key = self._catalog_key(tools)
        kept = cache.get_catalog(key, len(tools))
        # The terms every index starts with (the synonyms' word pairs) keep their ids.
        starts_as_new = kept is not None and self._initial_terms == list(
            itertools.islice(kept.vocabulary, len(self._initial_terms))
        )
        if kept is not None and starts_as_new:
            self._vocabulary = kept.vocabulary
            ends = np.cumsum(kept.field_lengths.sum(axis=1))
            return {
                tool.id: (tool, _AnalysedTool(term_ids, field_lengths))
                for tool, term_ids, field_lengths in zip(
                    tools, np.split(kept.term_ids, ends[:-1]), kept.field_lengths, strict=True
                )
            }
        analysed = self._analyses_of(tools)
        if len(analysed) == len(tools):  # no id said twice
            analyses = [analysis for _, analysis in analysed.values()]
            whole = CatalogAnalysis(
                dict(self._vocabulary),
                np.concatenate([analysis.term_ids for analysis in analyses]),
                np.stack([analysis.field_lengths for analysis in analyses]),
            )
            cache.put_catalog(key, whole)
        return analysed

    def _catalog_key(self, tools: Sequence[Tool]) -> bytes:
        """What a whole catalog's analyses are kept under: the analysis, and each tool's
        fingerprint in order."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(self._analyzer_key.encode())
        digest.update("\n".join(self._initial_terms).encode())
        digest.update("".join(tool.fingerprint for tool in tools).encode())
        return digest.digest()

    def _previous_analysis(self, tool: Tool) -> _AnalysedTool | None:
        # Tools are immutable: the same object needs no check, and a new object for the same
        # id is re-analysed only if its fingerprint (the searchable text) changed.
        previous = self._analysed.get(tool.id)
        if previous is not None and (
            previous[0] is tool or previous[0].fingerprint == tool.fingerprint
        ):
            return previous[1]
        return None

    def _analyse_all(self, tools: Sequence[Tool]) -> list[_AnalysedTool]:
        """The analysis of each tool: from the cache where it has one, made (and cached)
        otherwise."""
        if not tools:
            return []
        if self.cache is None:
            analyses = [self._analyse(tool) for tool in tools]
        else:
            fingerprints = [tool.fingerprint for tool in tools]
            cached = self.cache.get(self._analyzer_key, fingerprints)
            made: dict[str, CachedAnalysis] = {}
            analyses = []
            for tool, fingerprint in zip(tools, fingerprints, strict=True):
                analysis = cached.get(fingerprint) or made.get(fingerprint)
                if analysis is None:
                    analysis = made[fingerprint] = self._analyse(tool)
                analyses.append(analysis)
            if made:
                self.cache.put(self._analyzer_key, made)
        return [
            _AnalysedTool(_term_ids(self._vocabulary, analysis.terms), analysis.field_lengths)
            for analysis in analyses
        ]

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        state = self._state
        n_tools = len(state.tools)
        groups, words_in_catalog, query_words = self._query_groups(query, state)
        if not groups or n_tools == 0:
            notice = _no_terms_notice(query, n_tools, query_words)
            return RankedCandidates((), (), (), notice=notice)
        # Each query term's postings (its best match per tool) are cached per index state, so
        # scoring is a few passes over them all, whatever the number of terms and synonyms.
        # A NumPy call costs a microsecond or more however small its arrays, most of what a
        # search of a small catalog costs: the few best candidates are put in order with as
        # few calls as can be, and their normalized scores computed in Python.
        row_arrays = [matches.rows for _, matches in groups]
        if len(groups) == 1:
            rows, weights = row_arrays[0], groups[0][1].scores
        else:
            rows = np.concatenate(row_arrays)
            weights = np.concatenate([matches.scores for _, matches in groups])
        # With weights, bincount sums floats (its stubs say integers).
        scores = cast("npt.NDArray[np.float64]", np.bincount(rows, weights, minlength=n_tools))
        matched_words = None
        by_synonym: list[_TermMatches] = []
        if words_in_catalog > 1:
            # The words (not word pairs) come first, and each word's rows are distinct, so
            # counting their rows counts the words a tool matched.
            word_rows = (
                rows
                if words_in_catalog == len(groups)
                else rows[: sum(map(len, row_arrays[:words_in_catalog]))]
            )
            # A word pair matched through its synonym is a word the tool matches: the tool
            # says "timezone" where the query says "time zone", "URL" for "web page".
            if pair_synonyms := [
                m.synonym_rows for _, m in groups[words_in_catalog:] if len(m.synonym_rows)
            ]:
                word_rows = np.concatenate([word_rows, *pair_synonyms])
            matched_words = np.bincount(word_rows, minlength=n_tools)
            by_synonym = [m for _, m in groups[:words_in_catalog] if len(m.synonym_rows)]
            if self.options.coordination:
                # Times the number of the query's words the tool matches.
                scores *= matched_words
        # A question that asks for no change asks to read: the tools that change things weigh
        # less (a cheap check of the first word before any array is touched).
        change_weight = self.options.question_change_weight
        reading_question = self._asks_to_read(query, state)
        if reading_question:
            scores[state.changing_rows] *= change_weight
        # Short queries can only gather a little evidence, so they are held to less of it.
        scale = state.score_scale * min(1.0, query_words / _FULL_LENGTH_QUERY) ** 0.5
        candidates, candidate_scores, exhaustive = _best_candidates(scores, min_score, limit)
        if (
            by_synonym
            and matched_words is not None
            and min(matched_words[candidates].tolist(), default=2) < 2
        ):
            # A word matched only through a synonym counts in full where the tool matches
            # another query word too, and `unconfirmed_synonym_weight` of that elsewhere. Only
            # tools that match a single word lose by it, so while none is among the best, the
            # others' place is what it was.
            synonym_rows = np.concatenate([m.synonym_rows for m in by_synonym])
            unconfirmed = matched_words[synonym_rows] < 2
            if unconfirmed.any():
                cut_rows = synonym_rows[unconfirmed]
                cut = np.concatenate([m.synonym_scores for m in by_synonym])[unconfirmed]
                cut *= 1 - self.options.unconfirmed_synonym_weight  # times one word matched
                if reading_question:  # as the scores it is cut from
                    cut[np.isin(cut_rows, state.changing_rows)] *= change_weight
                np.subtract.at(scores, cut_rows, cut)
                candidates, candidate_scores, exhaustive = _best_candidates(
                    scores, min_score, limit
                )
        # `candidates` are in catalog order, and a stable sort keeps it for equal scores.
        order = (-candidate_scores).argsort(kind="stable")
        ranked_scores: list[float] = candidate_scores[order].tolist()
        return RankedCandidates(
            positions=candidates[order].tolist(),
            scores=ranked_scores,
            # score / (score + scale) follows the score, so it never rises down the ranking.
            normalized_scores=[score / (score + scale) for score in ranked_scores],
            exhaustive=exhaustive,
            explain=lambda position: _explain(groups, state, position),
        )

    def rows_a_question_weighs(self, query: str) -> npt.NDArray[np.intp]:
        """The positions of the tools that `query` weighs at `question_change_weight`: those
        whose name says they change something, if `query` is a question that asks for no
        change; none otherwise. For engines that rank with other scores too (hybrid)."""
        state = self._state
        return state.changing_rows if self._asks_to_read(query, state) else _NO_POSITIONS

    def _asks_to_read(self, query: str, state: _IndexState) -> bool:
        """Whether `question_change_weight` applies to `query` (`questions.asks_to_read`)."""
        return (
            self.options.question_change_weight != 1
            and len(state.changing_rows) > 0
            and asks_to_read(query)
        )

    def _analyse(self, tool: Tool) -> CachedAnalysis:
        all_terms: list[str] = []
        lengths = [0] * len(FIELDS)
        texts_by_field = tool_fields(tool)
        for field_id, field_name in enumerate(FIELDS):
            texts = texts_by_field[field_name]
            if not texts or not self._field_weights[field_id]:
                continue
            paired = self.options.word_pairs and field_name in _PAIRED_FIELDS
            terms = self._field_terms(texts, paired=paired)
            lengths[field_id] = len(terms)
            all_terms += terms
        return CachedAnalysis(all_terms, np.array(lengths, dtype=np.int32))

    def _field_terms(self, texts: list[str], *, paired: bool) -> list[str]:
        """The terms of one field's texts, then, if `paired`, their word pairs. A pair is
        two words of one text: two parameters' descriptions make no phrase, and the order of
        a schema's properties, which a tool's fingerprint ignores, must not change what the
        tool matches (nor make an index read from the cache rank unlike a fresh one)."""
        if not paired or len(texts) == 1:
            # Newlines keep the texts apart: no identifier spans two of them.
            terms = self.analyzer.terms("\n".join(texts))
            return terms + word_pairs(terms) if paired else terms
        per_text = [self.analyzer.terms(text) for text in _within_field_limit(texts)]
        return list(itertools.chain.from_iterable(per_text)) + [
            pair for text_terms in per_text for pair in word_pairs(text_terms)
        ]

    def _build_state(self, tools: tuple[_AnalysedTool, ...]) -> _IndexState:
        # Ids are insertion positions, so the vocabulary's keys in order are the terms by id.
        terms = list(self._vocabulary)
        n_tools, n_terms = len(tools), len(terms)
        if n_tools == 0:
            return _empty_state()
        k1, b = self.options.k1, self.options.b
        n_fields = len(FIELDS)
        lengths = np.stack([t.field_lengths for t in tools])
        # Each term's repeats in each field of each tool, ordered by term, then tool, then
        # field: one sort, after which every step is a pass in the matrix's own order.
        term_ids = np.concatenate([t.term_ids for t in tools])
        field_rows = np.repeat(np.arange(n_tools * n_fields), lengths.ravel())
        tool_of_term, field_of_term = np.divmod(field_rows, n_fields)
        entries, repeats = np.unique(
            (term_ids * np.int64(n_tools) + tool_of_term) * n_fields + field_of_term,
            return_counts=True,
        )
        cells, field_ids = np.divmod(entries, n_fields)  # cell: term × n_tools + tool
        rows = cells % n_tools
        supporting = _SUPPORTING[field_ids]
        # A supporting field says a word or it does not: fifty parameters that repeat it say
        # it once.
        frequencies = np.where(supporting, 1.0, repeats)
        lengths = lengths.astype(np.float64)
        # Average over the tools that have the field: most tools have no tags or namespace,
        # and counting them would make every tagged tool look long.
        present = (lengths > 0).sum(axis=0)
        average = np.where(present > 0, lengths.sum(axis=0) / np.maximum(present, 1), 1.0)
        norm = 1 - b + b * lengths[rows, field_ids] / average[field_ids]
        weights = (
            self._field_weights[field_ids] * frequencies * (k1 + 1) / (frequencies + k1 * norm)
        )
        # Sum each cell's fields, the main ones and, capped, what the supporting ones add.
        first_of_cell = np.empty(len(cells), dtype=bool)
        first_of_cell[:1] = True
        np.not_equal(cells[1:], cells[:-1], out=first_of_cell[1:])
        cell_of_entry = np.cumsum(first_of_cell) - 1
        distinct_cells = cells[first_of_cell]
        main = ~supporting
        n_cells = len(distinct_cells)
        main_weights = _group_sums(cell_of_entry[main], weights[main], n_cells)
        has_main = np.zeros(n_cells, dtype=bool)
        has_main[cell_of_entry[main]] = True
        main_matrix = _Columns.from_cells(
            distinct_cells[has_main], main_weights[has_main], n_tools, n_terms
        )
        extra_weights = np.minimum(
            _group_sums(cell_of_entry[supporting], weights[supporting], n_cells),
            self.options.supporting_cap,
        )
        matrix = _Columns.from_cells(distinct_cells, main_weights + extra_weights, n_tools, n_terms)
        document_frequency = np.diff(matrix.indptr)
        idf = _rarity(n_tools, document_frequency)
        _weigh_cjk_terms_among_their_tools(idf, terms, matrix.indices, document_frequency, n_tools)
        idf[document_frequency == 0] = 0.0
        # A new array: the synonym postings are read from `main_matrix`, before idf.
        matrix = dataclasses.replace(matrix, data=matrix.data * np.repeat(idf, document_frequency))
        present_columns = np.flatnonzero(document_frequency)
        # Prefix matching completes single words: word pairs are left out of the look-up.
        words = [column for column in present_columns.tolist() if " " not in terms[column]]
        order = sorted(words, key=terms.__getitem__)
        return _IndexState(
            tools=tools,
            matrix=matrix,
            synonym_postings=self._synonym_postings(main_matrix, idf),
            idf=idf,
            terms=terms,
            sorted_terms=[terms[c] for c in order],
            sorted_columns=np.array(order, dtype=np.int64),
            sorted_lengths=np.array([len(terms[c]) for c in order], dtype=np.int64),
            score_scale=self._score_scale(n_tools),
            changing_rows=self._changing_rows(term_ids, tool_of_term, field_of_term),
        )

    def _changing_rows(
        self,
        term_ids: npt.NDArray[np.int32],
        tool_of_term: npt.NDArray[np.intp],
        field_of_term: npt.NDArray[np.intp],
    ) -> npt.NDArray[np.intp]:
        """The rows, ascending, of the tools whose name says they change something: the
        first of its words that is a reading or a changing verb is a changing one."""
        verb_kind = np.zeros(len(self._vocabulary), dtype=np.int8)
        for kind, verbs in ((1, self._reading_terms), (2, self._changing_terms)):
            verb_kind[[self._vocabulary[v] for v in verbs if v in self._vocabulary]] = kind
        in_name = field_of_term == _NAME_FIELD
        kinds = verb_kind[term_ids[in_name]]
        said = kinds > 0
        # The name's terms are in order, so a tool's first verb is its first entry here.
        tools, first = np.unique(tool_of_term[in_name][said], return_index=True)
        changing: npt.NDArray[np.intp] = tools[kinds[said][first] == 2]
        return changing

    def _synonym_postings(
        self, main_matrix: _Columns, idf: npt.NDArray[np.float64]
    ) -> dict[int, tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]]:
        """The postings in names, namespaces and descriptions of the terms that are some
        word's synonym, weighted as synonyms: a synonym is matched where a tool says what it
        does, not in its parameters, where "end" is a time and "text" a field."""
        postings = {}
        indptr, indices, data = main_matrix.indptr, main_matrix.indices, main_matrix.data
        for term in self._synonym_targets:
            column = self._vocabulary.get(term)
            if column is None or column >= len(idf) or idf[column] == 0:
                continue
            start, end = indptr[column], indptr[column + 1]
            if start < end:
                weighted = data[start:end] * idf[column]
                weighted *= self.options.synonym_weight
                postings[column] = (indices[start:end], weighted)
        return postings

    def _score_scale(self, n_tools: int) -> float:
        """The score of one query word that only this tool has, found once in both its name
        and its description: what `normalized_score` maps to 0.5. Raw scores grow with the
        catalog (rarer words, higher idf); dividing by this keeps thresholds portable."""
        rare_idf = float(np.log1p((n_tools - 0.5) / 1.5))
        return max(rare_idf * float(self._field_weights[0] + self._field_weights[2]), 1e-9)

    def _query_groups(
        self, query: str, state: _IndexState
    ) -> tuple[list[tuple[QueryTerm, _TermMatches]], int, int]:
        """Each query term the catalog matches with its matches, words first, then word pairs;
        how many of them are words; and how many distinct words the query has, matched or
        not."""
        groups: list[tuple[QueryTerm, _TermMatches]] = []
        cached = state.cache.matches
        min_prefix_length = self.options.min_prefix_length
        query_terms = self.analyzer.query_terms(query)
        synonyms = self._synonyms
        all_terms = {term for _, term in query_terms}
        seen: set[str] = set()
        for query_term in query_terms:
            word, term = query_term
            if term in seen:
                continue
            seen.add(term)
            # Prefix matching is for partial words (`weath`), not short words or numbers.
            key: _MatchKey = (term, len(word) >= min_prefix_length and not word.isdigit())
            if (others := synonyms.get(term)) and (said := all_terms.intersection(others)):
                # A synonym the query says itself is that word's match, not this one's: "user
                # profile" must not count a tool's "user" twice.
                key = (*key, frozenset(said))
            matches = cached.get(key) or self._match(key, state)
            if matches.alternatives:
                groups.append((query_term, matches))
        query_words = len(seen)
        words_in_catalog = len(groups)
        if self.options.word_pairs:
            pairs = list(itertools.pairwise(single_words(query_terms, ascii_only=query.isascii())))
            pair_terms = [f"{first.term} {second.term}" for first, second in pairs]
            # Most adjacent words never meet in a tool: one pass over the vocabulary finds the
            # pairs that do, before any is cached.
            known = map(self._vocabulary.__contains__, pair_terms)
            for (first, second), term, in_vocabulary in zip(pairs, pair_terms, known, strict=True):
                if not in_vocabulary or term in seen:
                    continue
                seen.add(term)
                key = (term, False)  # a word pair is matched whole or not at all
                matches = cached.get(key) or self._match(key, state)
                if matches.alternatives:
                    groups.append((QueryTerm(f"{first.word} {second.word}", term), matches))
        return groups, words_in_catalog, query_words

    def _match(self, key: _MatchKey, state: _IndexState) -> _TermMatches:
        """What a query term matches in the index, remembered for the next query."""
        term = key[0]
        exact = self._present_column(term, state)
        if exact is not None and term not in self._synonyms:
            # Most terms: a word (or word pair) the catalog has, with no synonym to merge.
            rows, scores = _column_postings(state.matrix, exact)
            if " " in term:  # a word pair, weighted: a copy
                alternative = _Alternative(exact, self.options.pair_weight, "exact")
                scores = self.options.pair_weight * scores
            else:  # the matrix's own scores: a view
                alternative = _Alternative(exact, 1.0, "exact")
            matches = _TermMatches((alternative,), rows, scores, _NO_ROWS, _NO_SCORES)
            state.cache.add(key, matches, copied=" " in term)
            return matches
        alternatives = self._alternatives(
            term, exact, key[1], state, excluded=key[2] if len(key) == 3 else frozenset()
        )
        if not alternatives:
            matches, copied = _NO_MATCHES, False
        elif len(alternatives) == 1 and alternatives[0].kind != "synonym":
            column, weight, _ = alternatives[0]
            rows, scores = _column_postings(state.matrix, column)
            copied = weight != 1  # an exact word's scores are the matrix's own: a view
            if copied:
                scores = weight * scores
            matches = _TermMatches(alternatives, rows, scores, _NO_ROWS, _NO_SCORES)
        else:
            matches, copied = _merged_matches(alternatives, state), True
        state.cache.add(key, matches, copied=copied)
        return matches

    def _alternatives(
        self,
        term: str,
        exact: int | None,
        may_prefix_match: bool,
        state: _IndexState,
        *,
        excluded: frozenset[str] = frozenset(),
    ) -> tuple[_Alternative, ...]:
        """What `term` matches: its own column `exact` (`_present_column`), its synonyms'
        and, for a word the catalog lacks, its completions."""
        found: dict[int, _Alternative] = {}
        if exact is not None:
            weight = self.options.pair_weight if " " in term else 1.0
            found[exact] = _Alternative(exact, weight, "exact")
        for synonym in self._synonyms.get(term, ()):
            if synonym in excluded:
                continue
            column = self._vocabulary.get(synonym)
            if column in state.synonym_postings and column not in found:
                found[column] = _Alternative(column, self.options.synonym_weight, "synonym")
        # Prefix matching is for partial words: a word the catalog has is matched exactly.
        if exact is None and may_prefix_match:
            for column in self._prefix_columns(term, state):
                found.setdefault(column, _Alternative(column, self.options.prefix_weight, "prefix"))
        return tuple(found.values())

    def _present_column(self, term: str, state: _IndexState) -> int | None:
        column = self._vocabulary.get(term)
        if column is None or column >= len(state.idf) or state.idf[column] == 0:
            return None
        return column

    def _prefix_columns(self, prefix: str, state: _IndexState) -> list[int]:
        start = bisect.bisect_left(state.sorted_terms, prefix)
        if start == len(state.sorted_terms) or not state.sorted_terms[start].startswith(prefix):
            return []  # most words the catalog lacks complete none of its words either
        end = bisect.bisect_left(state.sorted_terms, prefix + "\U0010ffff", start)
        candidates = state.sorted_columns[start:end]
        if len(candidates) > self.options.max_prefix_expansions:
            # Keep the closest completions (the shortest words), not the first in the alphabet.
            lengths = state.sorted_lengths[start:end]
            closest = np.argsort(lengths, kind="stable")[: self.options.max_prefix_expansions]
            candidates = candidates[np.sort(closest)]
        columns: list[int] = candidates.tolist()
        return columns


def _rarity(n_tools: int, document_frequency: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """BM25's idf: how rare each term is among `n_tools` tools."""
    return np.log1p((n_tools - document_frequency + 0.5) / (document_frequency + 0.5))


def _weigh_cjk_terms_among_their_tools(
    idf: npt.NDArray[np.float64],
    terms: list[str],
    tool_of_entry: npt.NDArray[np.int32],
    document_frequency: npt.NDArray[np.int64],
    n_tools: int,
) -> None:
    """Give the CJK terms (characters and their pairs) the rarity they have among the tools
    whose text has any, in place. Against a catalog described mostly in English every Chinese
    character looks rare, "什么" (what) as rare as a tool's name: a request in Chinese, which
    also carries English glosses, would find the tools described in Chinese by its function
    words before the English tools that its glosses name."""
    cjk_columns = np.array([is_cjk(term) for term in terms], dtype=bool)
    if not cjk_columns.any():
        return
    cjk_tools = len(np.unique(tool_of_entry[np.repeat(cjk_columns, document_frequency)]))
    # A handful of such tools is too few to tell a rare word from a common one.
    among = min(max(cjk_tools, CJK_TOOLS_FLOOR), n_tools)
    idf[cjk_columns] = _rarity(among, document_frequency[cjk_columns])


@contextmanager
def _collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while analysing a catalog: analysis allocates
    millions of small objects and no reference cycles, and each full collection it would
    trigger walks every object the process holds (the catalog's schemas too)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@functools.cache
def _analysis_code_version() -> str:
    """A hash of the code that turns a tool into terms, so that a cached analysis made by other
    code (another release, a changed checkout) is never read back."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(f"PyStemmer {_version_of('PyStemmer')}".encode())
    for module_name in (Analyzer.__module__, tool_fields.__module__, __name__):
        try:
            digest.update(Path(inspect.getfile(sys.modules[module_name])).read_bytes())
        except (OSError, TypeError):  # no source file (a frozen application)
            digest.update(f"toolscout {_version_of('toolscout')}".encode())
    return digest.hexdigest()


def _version_of(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "unknown"


def _within_field_limit(texts: list[str]) -> list[str]:
    """`texts` cut where their join by newlines reaches `MAX_FIELD_CHARS`, the most analysed
    of one field."""
    kept: list[str] = []
    room = MAX_FIELD_CHARS
    for text in texts:
        if room <= 0:
            break
        kept.append(text[:room])
        room -= len(text) + 1
    return kept


def _term_ids(vocabulary: dict[str, int], terms: list[str]) -> npt.NDArray[np.int32]:
    """The ids of `terms`, adding the new ones to `vocabulary` (a new term's id is the
    vocabulary's size before it is added, so ids are insertion positions)."""
    # Whole passes in C: most terms are known, and the new ones are added in one update.
    new_terms = dict.fromkeys(itertools.filterfalse(vocabulary.__contains__, terms))
    vocabulary.update(zip(new_terms, itertools.count(len(vocabulary))))
    return np.fromiter(map(vocabulary.__getitem__, terms), dtype=np.int32, count=len(terms))


def _best_candidates(
    scores: npt.NDArray[np.float64], min_score: float | None, limit: int
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64], bool]:
    """The tools scoring above 0 and at least `min_score`, in catalog order: all of them, or
    the `limit` best and those tied with the last; and whether that is all of them."""
    # A boolean mask is much faster to search than floats.
    candidates = (scores != 0).nonzero()[0]
    if min_score is not None:
        candidates = candidates[scores[candidates] >= min_score]
    candidate_scores = scores[candidates]
    if len(candidates) <= limit:
        return candidates, candidate_scores, True
    cut = len(candidates) - limit
    # The array's own partition: `np.partition` adds Python-level checks and a copy anyway.
    partitioned = candidate_scores.copy()
    partitioned.partition(cut)
    best = candidate_scores >= partitioned[cut]
    return candidates[best], candidate_scores[best], False


def _column_postings(
    matrix: _Columns, column: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """The tools a column's term is in, and its scores there: views of the matrix."""
    start, end = matrix.indptr[column], matrix.indptr[column + 1]
    return matrix.indices[start:end], matrix.data[start:end]


def _merged_matches(alternatives: tuple[_Alternative, ...], state: _IndexState) -> _TermMatches:
    """The matches of a term with several alternatives (synonyms, prefixes): each tool's best
    one, so that a word counts once."""
    # The term's own alternatives share one weight: they are the word itself, or its
    # completions when the catalog lacks it. Synonyms come weighted, from names, namespaces
    # and descriptions only.
    own = [alt for alt in alternatives if alt.kind != "synonym"]
    postings = [_column_postings(state.matrix, alt.column) for alt in own]
    postings += [
        state.synonym_postings[alt.column] for alt in alternatives if alt.kind == "synonym"
    ]
    all_rows = np.concatenate([tools for tools, _ in postings])
    all_scores = np.concatenate([scores for _, scores in postings])
    own_entries = sum(len(tools) for tools, _ in postings[: len(own)])
    if own and own[0].weight != 1:
        all_scores[:own_entries] *= own[0].weight
    # Each tool's best score (scores are >= 0).
    best = np.full(len(state.tools), -1.0)
    np.maximum.at(best, all_rows, all_scores)
    rows = (best >= 0).nonzero()[0].astype(np.int32)
    scores = best[rows]
    if len(own) == len(alternatives):  # prefixes, no synonym
        return _TermMatches(alternatives, rows, scores, _NO_ROWS, _NO_SCORES)
    if not own:  # only synonyms: the catalog lacks the word itself
        return _TermMatches(alternatives, rows, scores, rows, scores)
    # The tools no alternative but a synonym matches.
    synonym_only = np.ones(len(state.tools), dtype=bool)
    synonym_only[all_rows[:own_entries]] = False
    by_synonym = synonym_only[rows]
    return _TermMatches(alternatives, rows, scores, rows[by_synonym], scores[by_synonym])


def _group_sums(
    groups: npt.NDArray[np.intp], values: npt.NDArray[np.float64], n_groups: int
) -> npt.NDArray[np.float64]:
    """The sum of each group's values, added in the order given."""
    return np.bincount(groups, values, minlength=n_groups).astype(np.float64, copy=False)


def _explain(
    groups: list[tuple[QueryTerm, _TermMatches]], state: _IndexState, position: int
) -> tuple[MatchedTerm, ...]:
    tool = state.tools[position]
    fields_of_term: dict[int, set[int]] = {}
    for term_id, field_id in zip(tool.term_ids.tolist(), tool.field_ids().tolist(), strict=True):
        fields_of_term.setdefault(term_id, set()).add(field_id)
    return tuple(
        MatchedTerm(
            query_term=query_term.word,
            index_term=state.terms[alt.column],
            fields=fields,
            kind=alt.kind,
        )
        for query_term, matches in groups
        for alt in matches.alternatives
        if (found := fields_of_term.get(alt.column))
        # A synonym is matched in names, namespaces and descriptions only.
        and (
            fields := tuple(
                name
                for i, name in enumerate(FIELDS)
                if i in found and not (alt.kind == "synonym" and _SUPPORTING[i])
            )
        )
    )


def _empty_state() -> _IndexState:
    return _IndexState(
        tools=(),
        matrix=_Columns(np.zeros(1, dtype=np.int64), _NO_ROWS, _NO_SCORES),
        idf=np.zeros(0),
        terms=[],
        sorted_terms=[],
        sorted_columns=np.zeros(0, dtype=np.int64),
        sorted_lengths=np.zeros(0, dtype=np.int64),
        score_scale=1.0,
        synonym_postings={},
        changing_rows=np.zeros(0, dtype=np.intp),
    )


def _no_terms_notice(query: str, n_tools: int, query_words: int) -> str:
    if not query.strip():
        return "The query is empty: describe the tool you need in a few words."
    if n_tools == 0:
        return "The catalog is empty: there are no tools to search."
    if query_words == 0:
        return (
            "The query has only common words (the, of, to...), which match nothing: name the "
            "action and the object, e.g. 'send email'."
        )
    return (
        "No tool matches any word of this query. Do not retry the same words: describe the "
        "task differently (an action and an object, e.g. 'send email')."
    )
