"""`ToolIndex`: search a live catalog with any engine, behind one interface."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.errors import SearchConfigError
from toolscout.search.base import (
    MatchedTerm,
    RankedCandidates,
    SearchEngine,
    SearchHit,
    SearchResults,
    ToolFilter,
)
from toolscout.search.choices import (
    DEFAULT_THRESHOLDS,
    MAX_K,
    EngineName,
    RankingEngine,
)
from toolscout.search.coordinates import with_coordinate_words
from toolscout.search.file_names import with_file_words
from toolscout.search.glosses import with_english_glosses
from toolscout.search.messaging import with_channel_words, with_send_words, without_addresses
from toolscout.search.needs import is_step_list, split_needs
from toolscout.search.prerequisites import Prerequisites

# Each engine is imported when an index runs it: BM25 alone needs no model code.
if TYPE_CHECKING:
    from toolscout.search.bm25 import BM25Options
    from toolscout.search.hybrid import HybridOptions
    from toolscout.search.regex import RegexOptions
    from toolscout.search.semantic import SemanticOptions


@dataclass(frozen=True)
class EngineChoice:
    """The engine an index runs, and why."""

    name: RankingEngine
    """The engine that ranks."""
    reason: str | None = None
    """Why `auto` chose it; None when it was asked for by name."""

    def __str__(self) -> str:
        return f"engine: {self.name}" + (f" ({self.reason})" if self.reason else "")


def choose_engine(engine: EngineName, hybrid: HybridOptions | None = None) -> EngineChoice:
    """Resolve `auto` (hybrid when the semantic extra and its model are installed, BM25
    otherwise); any other name stands as it is. `hybrid`, the options hybrid would run with,
    decides whether the reason mentions a multilingual model."""
    if engine != "auto":
        return EngineChoice(engine)
    from toolscout.search.embedders import local_model_unavailable

    unavailable = local_model_unavailable()
    if unavailable is None:
        multilingual = ", with a multilingual model" if _reads_other_scripts(hybrid) else ""
        return EngineChoice("hybrid", f"auto: semantic search is installed{multilingual}")
    return EngineChoice("bm25", f"auto: hybrid would need semantic search; {unavailable}")


def _reads_other_scripts(hybrid: HybridOptions | None) -> bool:
    """Whether hybrid search with these options has a multilingual model for the tools its
    main model cannot read (`HybridOptions.multilingual`)."""
    from toolscout.search.embedders import multilingual_model_available

    if hybrid is None:
        return multilingual_model_available()
    if hybrid.readability is None or hybrid.multilingual is None:
        return False
    return hybrid.multilingual != "auto" or multilingual_model_available()


#: Queries longer than this are cut before analysis; a tool request is a sentence or two.
MAX_QUERY_CHARS = 4_000

#: What every engine but regex ranks a request as, in order: "email" for each e-mail address,
#: "file" after each file name, "send" before each message named as a verb, "channel" after
#: each "#name", "coordinates" after each latitude and longitude, and the English senses of
#: its Chinese words (`toolscout.search.glosses`). Each returns its text itself when it has
#: nothing to do, as most requests leave them.
REQUEST_REWRITES: tuple[Callable[[str], str], ...] = (
    without_addresses,
    with_file_words,
    with_send_words,
    with_channel_words,
    with_coordinate_words,
    with_english_glosses,
)

# A tool a ranking found, before its hit is made: the tool, its score and normalized score,
# its rank in that ranking, and what explains the match. A plain tuple: a search makes a hit
# only for what it returns, and a request of several needs ranks several times.
_Found = tuple[Tool, float, float, int, Callable[[], tuple[MatchedTerm, ...]]]


class ToolIndex:
    """Ranked, explained search over a catalog's tools.

    The index follows its catalog: tools added, removed or replaced are searchable (or gone)
    at the next search; BM25 re-analyses and semantic search re-embeds only the tools whose
    text changed (regex lays out the catalog's text anew, which is cheap). It searches every
    tool of its catalog, whatever the tool's flags: which tools a search may *return* is the
    caller's question, asked with `filter` (tool search keeps its pinned tools out that way,
    `toolscout.protocol.view`).

    Args:
        catalog: a `Catalog`, or tool definitions in any shape a `Catalog` accepts.
        engine: `"bm25"` for ranked keyword search, `"regex"` for patterns, `"semantic"` for
            search by meaning (embeddings), `"hybrid"` for BM25 and semantic fused. The
            last two need the `toolscout[semantic]` extra. `"auto"`, the default, is hybrid
            where that extra is installed and BM25 elsewhere; `engine_choice` says which
            and why.
        threshold: default lowest `normalized_score` (0–1) the best hit of a search must
            have, or the search returns nothing; other hits need half of it and a third of
            the best's (`score_floor`). 0 answers every
            query that matches anything; `None` takes the engine's default
            (`DEFAULT_THRESHOLDS`). Regex hits all score 1.
        bm25: options for the BM25 engine (and BM25 within hybrid).
        regex: options for the regex engine.
        semantic: options for semantic search (and semantic within hybrid).
        hybrid: how hybrid fuses its two engines.
        split_needs: search each need of a request of several ("get the weather, then book
            a table") on its own as well as the whole, and interleave the rankings, so that
            every need's best tools reach the top k (`toolscout.search.needs`). Patterns
            (regex) are never split.
        prerequisites: follow a strong hit with the tool that gives it a value it needs, as
            its parameters' descriptions say (`toolscout.search.prerequisites`,
            `SearchHit.prerequisite_of`). Not for patterns (regex).
    """

    def __init__(
        self,
        catalog: Catalog | Iterable[Any],
        engine: EngineName = "auto",
        *,
        threshold: float | None = None,
        bm25: BM25Options | None = None,
        regex: RegexOptions | None = None,
        semantic: SemanticOptions | None = None,
        hybrid: HybridOptions | None = None,
        split_needs: bool = True,
        prerequisites: bool = True,
    ) -> None:
        self.engine_choice = choose_engine(engine, hybrid)
        self.engine_name: RankingEngine = self.engine_choice.name
        self._engine = _make_engine(self.engine_name, bm25, regex, semantic, hybrid)
        self.catalog = catalog if isinstance(catalog, Catalog) else Catalog(catalog)
        self.threshold = effective_threshold(self.engine_name, threshold)
        self.split_needs = split_needs and self.engine_name != "regex"
        self.prerequisites = prerequisites and self.engine_name != "regex"
        self._prerequisites = Prerequisites([])
        self._lock = threading.RLock()
        self._version = -1
        self._tools: list[Tool] = []

    def search(
        self,
        query: str,
        k: int = 5,
        *,
        min_score: float | None = None,
        threshold: float | None = None,
        filter: ToolFilter | None = None,
    ) -> SearchResults:
        """The `k` best tools for `query`, best first.

        Args:
            query: words describing the tool needed (BM25) or a pattern (regex).
            k: how many results at most (1–100).
            min_score: drop hits whose raw `score` is below this.
            threshold: return nothing when the best hit's `normalized_score` is below this
                (0–1), and otherwise the hits that score at least half of it and a third of
                the best (`score_floor`); `None` uses the index default, 0 disables it. The
                threshold decides whether the catalog has a tool for the query; the ranking,
                which tools come first. A request of several needs (`split_needs`) is judged
                need by need, the whole request too: a need whose best tool scores less than
                another need's keeps its tools all the same.
            filter: keep only tools for which it returns True; applied before `k`, so a
                filtered search still returns up to `k` tools.

        An empty result carries a `notice` explaining why, fit to show a model.
        """
        return self.search_many(
            [query], k, min_score=min_score, threshold=threshold, filter=filter
        )[0]

    def search_many(
        self,
        queries: Sequence[str],
        k: int = 5,
        *,
        min_score: float | None = None,
        threshold: float | None = None,
        filter: ToolFilter | None = None,
    ) -> list[SearchResults]:
        """`search` for each query, all against the same state of the catalog: a change
        made while the batch runs shows in the next search, not halfway through this one."""
        k = _check_k(k)
        threshold = effective_threshold(self.engine_name, self.threshold, threshold)
        min_score = _check_min_score(min_score)
        for query in queries:
            if not isinstance(query, str):
                raise SearchConfigError(f"query must be a string, got {type(query).__name__}")
        with self._lock:  # the engine's positions refer to this exact tool list
            tools = self._current_tools()
            return [
                self._search(tools, query[:MAX_QUERY_CHARS], k, min_score, threshold, filter)
                for query in queries
            ]

    def _search(
        self,
        tools: list[Tool],
        query: str,
        k: int,
        min_score: float | None,
        threshold: float,
        tool_filter: ToolFilter | None,
    ) -> SearchResults:
        needs = split_needs(query) if self.split_needs else [query]
        several = len(needs) > 1
        texts = [self._ranked_text(text) for text in ([query, *needs] if several else [query])]
        if several:
            self._engine.prefetch(texts)
        whole, notice = self._ranking(tools, texts[0], k, min_score, threshold, tool_filter)
        if not several:
            hits = [
                SearchHit(tool, score, normalized, rank, None, explain)
                for tool, score, normalized, rank, explain in whole
            ]
            hits = self._with_prerequisites(hits, k, tool_filter)
            return SearchResults(hits, query=query, notice=notice)
        rankings = [whole] + [
            self._ranking(tools, text, k, min_score, threshold, tool_filter)[0]
            for text in texts[1:]
        ]
        whole_first = 0 if is_step_list(needs) else WHOLE_REQUEST_FIRST
        hits = _interleaved(rankings, [None, *needs], k, whole_first)
        hits = self._with_prerequisites(hits, k, tool_filter)
        return SearchResults(hits, query=query, notice=notice if not hits else None)

    def _with_prerequisites(
        self, hits: list[SearchHit], k: int, tool_filter: ToolFilter | None
    ) -> list[SearchHit]:
        """`hits`, each of the first `PREREQUISITES_OF_TOP` that scores at least
        `PREREQUISITE_SHARE` of the best followed by its first prerequisite not above it (moved
        up if it is below), as long as the filter keeps it; the first `k` of them."""
        top = [hit.tool for hit in hits[:PREREQUISITES_OF_TOP]]
        if not self.prerequisites or not self._prerequisites.any_of(top):
            return hits
        strong = PREREQUISITE_SHARE * hits[0].normalized_score
        kept: list[SearchHit] = []
        seen: set[str] = set()
        brought = False
        for position, hit in enumerate(hits):
            if hit.tool.id in seen:  # brought up above by a hit before it
                continue
            kept.append(hit)
            seen.add(hit.tool.id)
            if position >= PREREQUISITES_OF_TOP or hit.normalized_score < strong:
                continue
            needed = next(
                (
                    tool
                    for tool in self._prerequisites.of(hit.tool)
                    if tool.id not in seen and (tool_filter is None or tool_filter(tool))
                ),
                None,
            )
            if needed is not None:
                brought = True
                seen.add(needed.id)
                kept.append(
                    SearchHit(
                        needed,
                        hit.score,
                        hit.normalized_score,
                        need=hit.need,
                        prerequisite_of=hit.tool.id,
                    )
                )
        if not brought:
            return hits  # the hits and their ranks as they were
        return [replace(hit, rank=rank) for rank, hit in enumerate(kept[:k], 1)]

    def _ranked_text(self, text: str) -> str:
        """What the engine ranks for a request or need: the text as `REQUEST_REWRITES` leave
        it; a regex pattern as it is."""
        if self.engine_name == "regex":
            return text
        for rewrite in REQUEST_REWRITES:
            text = rewrite(text)
        return text

    def _ranking(
        self,
        tools: list[Tool],
        query: str,
        k: int,
        min_score: float | None,
        threshold: float,
        tool_filter: ToolFilter | None,
    ) -> tuple[list[_Found], str | None]:
        """The tools found for one query, best first, and the notice for an empty result."""
        limit = k
        while True:
            candidates = self._engine.rank(query, limit, min_score=min_score)
            found, filtered_out = self._accept(tools, candidates, k, tool_filter)
            # Fewer candidates than asked for means the engine has no more to give
            # (regex out of time): asking again would only repeat the same work.
            if len(found) >= k or candidates.exhaustive or len(candidates.positions) < limit:
                break
            limit *= 4  # the filter rejected some: look further down
        notice = candidates.notice
        if found:
            floor = score_floor(found[0][2], threshold)
            found = [entry for entry in found if entry[2] >= floor]
        if not found and notice is None:
            notice = _nothing_relevant_notice(filtered_out)
        return found, notice

    def refresh(self) -> bool:
        """Catch up with the catalog now instead of at the next search; True if it changed."""
        before = self._version
        self._current_tools()
        return self._version != before

    @property
    def tools(self) -> list[Tool]:
        """The searched tools: the catalog's, in catalog order."""
        return list(self._current_tools())

    def _current_tools(self) -> list[Tool]:
        with self._lock:
            if self.catalog.version == self._version:
                return self._tools
            version, tools = self.catalog.snapshot()
            if version != self._version:
                self._engine.rebuild(tools)
                self._tools, self._version = tools, version
                if self.prerequisites:
                    self._prerequisites = Prerequisites(tools)
            return self._tools

    def _accept(
        self,
        tools: list[Tool],
        candidates: RankedCandidates,
        k: int,
        tool_filter: ToolFilter | None,
    ) -> tuple[list[_Found], bool]:
        """The first `k` of `candidates` (already above the score floors) that the filter
        keeps, and whether the filter turned any tool away."""
        found: list[_Found] = []
        filtered_out = False
        explain = candidates.explain
        for position, score, normalized in zip(
            candidates.positions, candidates.scores, candidates.normalized_scores, strict=True
        ):
            tool = tools[position]
            if tool_filter is not None and not tool_filter(tool):
                filtered_out = True
                continue
            found.append((tool, score, normalized, len(found) + 1, partial(explain, position)))
            if len(found) == k:
                break
        return found, filtered_out

    def __repr__(self) -> str:
        return f"ToolIndex({self.catalog!r}, engine={self.engine_name!r})"


#: How many of the whole request's best tools come before any need's: a request that only
#: looks like several needs ("..., and round to 3 decimals") keeps its best tool first. One,
#: not more: the whole request's second best mostly serves the step its best serves, where a
#: need's best serves a step not yet covered (MCP tasks dev, hybrid nDCG@10 0.723 at two,
#: 0.728 at one; BFCL dev 0.833 and 0.832). A list of steps (`is_step_list`) has no such
#: first: there the whole request's best is often a tool that matches words of several steps
#: and serves none, and it takes its turn among the needs' (MCP tasks dev, hybrid nDCG@10
#: 0.734 → 0.744, BM25 0.694 → 0.698; BFCL dev unchanged).
WHOLE_REQUEST_FIRST = 1

#: A search brings the prerequisites (`toolscout.search.prerequisites`) of its first this many
#: hits that score at least `PREREQUISITE_SHARE` of the best, one each, right after the hit
#: that needs it. A weak hit's would take a place from the request's own tools. Measured on
#: the dev splits (nDCG@10, hybrid): ComplexFuncBench 0.571 → 0.653, whose travel APIs say
#: which API gives each id and whose tasks need those; NESTFUL 0.883 → 0.880; the MCP tasks
#: 0.786 → 0.787; BFCL's pool unchanged. BM25: 0.494 → 0.613, 0.854 → 0.850, 0.729 → 0.730.
PREREQUISITES_OF_TOP = 5
PREREQUISITE_SHARE = 0.6

#: A need whose best tool scores under this share of the whole request's best is most likely
#: a piece of context, not a step: "Today is November 25th, 2024.", "...and return it at the
#: same place five days later" of a car rental. Its hits join the rounds `WEAK_NEED_DELAY`
#: rounds late, after the steps that tools serve well have had their turns. Late, not left
#: out: a step in a user's words, far from any tool's, scores low too. Chosen on the dev
#: splits of ComplexFuncBench's long travel requests and NESTFUL (`benchmarks/nestful.py`),
#: public data of another kind than the rest: hybrid nDCG@10 0.545 → 0.571 and 0.882 → 0.883, BM25
#: 0.467 → 0.494 and 0.854 → 0.854; the MCP tasks' dev split 0.785 → 0.786 (hybrid) and BFCL's
#: unchanged. Leaving such needs out gains more on ComplexFuncBench (0.581) and loses on the
#: MCP tasks' test split.
WEAK_NEED_SHARE = 0.5
WEAK_NEED_DELAY = 3


def _interleaved(
    rankings: Sequence[list[_Found]], needs: Sequence[str | None], k: int, whole_first: int
) -> list[SearchHit]:
    """The whole request's first `whole_first` hits (`WHOLE_REQUEST_FIRST`, none for a list
    of steps), then rounds of the next hit of the whole request and the next of each need,
    each tool once, until there are k: every need gets its best tools in before any gets its
    fifth. Within a round the hits come in order of normalized score, so a need its best tool
    serves well comes before one whose best is a long shot (a sentence of details, a step no
    tool serves): on the MCP tasks' dev split, nDCG@10 0.727 → 0.734 (hybrid) and
    0.691 → 0.694 (BM25), BFCL dev unchanged. A need whose best is far weaker than the whole
    request's joins the rounds late (`WEAK_NEED_SHARE`, `WEAK_NEED_DELAY`).

    A hit's normalized score is capped by those of the hits above it, so that scores never
    rise down the results: a need's best tool can rank above a stronger match of the whole
    request, and then shows the lower score."""
    hits: list[SearchHit] = []
    seen: set[str] = set()
    ceiling = 1.0

    def add(found: _Found, need: str | None) -> bool:
        nonlocal ceiling
        tool, score, normalized, _, explain = found
        if tool.id not in seen:
            seen.add(tool.id)
            ceiling = min(ceiling, normalized)
            hits.append(SearchHit(tool, score, ceiling, len(hits) + 1, need, explain))
        return len(hits) == k

    whole, rest = rankings[0], rankings[1:]
    for found in whole[:whole_first]:
        if add(found, None):
            return hits
    queues = [whole[whole_first:], *rest]
    # The round each queue starts in: a weak need's comes `WEAK_NEED_DELAY` rounds late.
    weak = WEAK_NEED_SHARE * whole[0][2] if whole else 0.0
    starts = [0, *(WEAK_NEED_DELAY if found and found[0][2] < weak else 0 for found in rest)]
    rounds = max(len(queue) + start for queue, start in zip(queues, starts, strict=True))
    for depth in range(rounds):
        round_of_hits = [
            (queue[depth - start], need)
            for queue, need, start in zip(queues, needs, starts, strict=True)
            if 0 <= depth - start < len(queue)
        ]
        # Stable: on a tie, the whole request's hit, then the needs' in the request's order.
        round_of_hits.sort(key=lambda entry: -entry[0][2])
        for found, need in round_of_hits:
            if add(found, need):
                return hits
    return hits


def _make_engine(
    engine: str,
    bm25: BM25Options | None,
    regex: RegexOptions | None,
    semantic: SemanticOptions | None,
    hybrid: HybridOptions | None,
) -> SearchEngine:
    if engine == "bm25":
        from toolscout.search.bm25 import BM25Engine

        return BM25Engine(bm25)
    if engine == "regex":
        from toolscout.search.regex import RegexEngine

        return RegexEngine(regex)
    if engine == "semantic":
        from toolscout.search.semantic import SemanticEngine

        return SemanticEngine(semantic)
    if engine == "hybrid":
        from toolscout.search.hybrid import HybridEngine

        return HybridEngine(bm25, semantic, hybrid)
    raise SearchConfigError(
        f"unknown engine {engine!r}; choose 'auto', 'bm25', 'regex', 'semantic' or 'hybrid'"
    )


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise SearchConfigError(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
    return k


def _check_min_score(min_score: object) -> float | None:
    if min_score is None:
        return None
    if (
        isinstance(min_score, bool)
        or not isinstance(min_score, int | float)
        or not math.isfinite(min_score)
    ):
        raise SearchConfigError(f"min_score must be a finite number or None, got {min_score!r}")
    return float(min_score)


def effective_threshold(engine: RankingEngine, *thresholds: float | None) -> float:
    """The threshold a search runs with: the last of `thresholds` that is not None (a
    search's own, over its index's), else `engine`'s default (`DEFAULT_THRESHOLDS`).

    Raises:
        SearchConfigError: a threshold outside 0–1.
    """
    for chosen in reversed(thresholds):
        if chosen is not None:
            return _check_threshold(chosen)
    return _check_threshold(DEFAULT_THRESHOLDS[engine])


def _check_threshold(threshold: object) -> float:
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not math.isfinite(threshold)
        or not 0 <= threshold <= 1
    ):
        raise SearchConfigError(f"threshold must be between 0 and 1, got {threshold!r}")
    return float(threshold)


def score_floor(best: float, threshold: float) -> float:
    """The lowest normalized score a hit needs to be returned, when the best hit a search may
    return scores `best`: infinite (nothing is returned) when the best is below the
    threshold; otherwise half the threshold or a third of the best, whichever is higher, so
    that the tools that come with a relevant best are more than noise. A threshold of 0
    keeps every hit."""
    if threshold <= 0:
        return 0.0
    if best < threshold:
        return math.inf
    return max(threshold / 2, best / 3)


def _nothing_relevant_notice(filtered_out: bool) -> str:
    if filtered_out:
        return "No tool you may use matches this query. Do not retry the same words."
    return (
        "No tool is relevant enough to this query. Do not retry the same words: describe "
        "the task differently, or go on without a tool."
    )
