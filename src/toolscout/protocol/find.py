"""What `search_tools` returns for a query, and what it leaves out and why.

`search_tools` itself and `ToolSearch.find` run the same `SearchScope.found`; `find` adds
`SearchScope.left_out`, which ranks the query again with no threshold and no filter and says
why each tool of that ranking is not a result. So the dashboard, the CLI, the integrations and
the token estimates read the protocol's own answer instead of re-deriving threshold, k and
visibility.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from toolscout.catalog.tool import Tool
from toolscout.protocol.policy import Phase, PolicyCheck
from toolscout.protocol.view import CatalogView
from toolscout.search import MAX_K, SearchHit, SearchResults, ToolIndex, score_floor

NOTHING_FOUND = (
    "No tool is relevant enough to this query. Do not retry the same words: describe the task "
    "differently, or go on without a tool."
)

LeftOutReason: TypeAlias = Literal[
    "pinned", "filtered", "earlier_query", "below_threshold", "past_max_results"
]
"""Why a tool the ranking has is not a result: it is `pinned` (always sent, so never a search
result), the filter denies it for this request (`filtered`), an earlier query of the same
call returned it (`earlier_query`), its score is `below_threshold`, or the results were full
(`past_max_results`, which includes tools already discovered: new tools come first)."""


@dataclass(frozen=True)
class FoundTool:
    """A tool `search_tools` returns for a query."""

    tool: Tool
    """The catalog tool."""
    name: str
    """The name the model calls it by."""
    normalized_score: float
    """0–1, as the result shows it; 1 for a query that is exactly the tool's name."""
    already_discovered: bool
    """Already callable in the conversation: returned because slots were left after the
    new tools."""
    hit: SearchHit | None
    """The ranking's hit (raw score, matched terms, explanation); None when the query names
    the tool exactly and the ranking does not have it."""


@dataclass(frozen=True)
class LeftOutTool:
    """A tool the ranking has for a query that `search_tools` does not return."""

    tool: Tool
    """The catalog tool."""
    reason: LeftOutReason
    """Why it is left out."""
    detail: str
    """The reason in a sentence, with the scores that decided it."""
    hit: SearchHit
    """Its place in the ranking with no threshold and no filter (`hit.rank`)."""


@dataclass(frozen=True)
class QueryAnswer:
    """One query: what `search_tools` returns for it, and what it leaves out."""

    query: str
    found: tuple[FoundTool, ...]
    """The results, in order, at most `max_results`."""
    left_out: tuple[LeftOutTool, ...]
    """The other tools of the ranking with no threshold (up to 100), best first."""
    notice: str | None
    """What the result tells the model when nothing is found."""


@dataclass(frozen=True)
class SearchAnswer:
    """`ToolSearch.find`: what one `search_tools` call would return, query by query."""

    queries: tuple[QueryAnswer, ...]
    max_results: int
    """Results per query."""
    threshold: float
    """The threshold the search ran with (the configured one, or the engine's default)."""

    @property
    def found(self) -> list[FoundTool]:
        """Every result, query after query."""
        return [entry for answer in self.queries for entry in answer.found]


@dataclass(frozen=True)
class SearchScope:
    """What one `search_tools` call searches over: the index, the catalog view, the
    request's filter and the tools the conversation already has."""

    index: ToolIndex
    view: CatalogView
    policy: PolicyCheck
    phases: tuple[Phase, ...]
    """The filter phases a result must pass (`ModeStrategy.search_phases`)."""
    known: Collection[str]
    """Ids of the tools the conversation has discovered."""
    threshold: float | None
    min_score: float | None

    async def found(
        self, query: str, k: int, shown: set[str]
    ) -> tuple[list[FoundTool], str | None]:
        """Up to `k` allowed deferred tools for `query`, and the notice when there are none:
        new ones first, then ones already available if slots are left; an exact tool name
        comes first. `shown` (tools an earlier query returned) is skipped and extended."""
        view = self.view
        fresh: list[FoundTool] = []
        again: list[FoundTool] = []

        async def consider(tool: Tool, score: float, hit: SearchHit | None) -> None:
            if tool.id in shown or not await self.policy.allows(tool, *self.phases):
                return
            shown.add(tool.id)
            known = tool.id in self.known
            entry = FoundTool(tool, view.wire_name(tool), score, known, hit)
            (again if known else fresh).append(entry)

        exact = view.resolve(query.strip())
        if exact is not None and view.is_deferred(exact):
            await consider(exact, 1.0, None)
        limit = min(MAX_K, 2 * k)
        while True:
            hits = await self._rank(query, limit, self.threshold, deferred_only=True)
            for hit in hits:
                if len(fresh) >= k:
                    break
                await consider(hit.tool, hit.normalized_score, hit)
            if len(fresh) >= k or len(hits) < limit or limit >= MAX_K:
                break
            limit = min(MAX_K, 4 * limit)
        found = (fresh + again)[:k]
        if found:
            return found, None
        return [], (hits.notice if not hits else None) or NOTHING_FOUND

    async def left_out(
        self, query: str, k: int, found: Sequence[FoundTool], earlier: Collection[str]
    ) -> tuple[list[FoundTool], list[LeftOutTool]]:
        """Why each tool of the ranking with no threshold and no filter is not in `found`;
        and `found` with the ranking's hit filled in for an exact-name result.

        Args:
            earlier: Ids that earlier queries of the same call returned.
        """
        ranking = await self._rank(query, MAX_K, 0.0, deferred_only=False)
        threshold = self.index.threshold if self.threshold is None else self.threshold
        found_ids = {entry.tool.id for entry in found}
        candidates: list[SearchHit] = []
        left_out: list[LeftOutTool] = []
        best: float | None = None
        for hit in ranking:
            tool = self.view.resolve(hit.tool.id)
            if tool is None:
                continue  # removed since the index last caught up
            if tool.id in found_ids:
                best = hit.normalized_score if best is None else best
            elif not self.view.is_deferred(tool):
                left_out.append(
                    LeftOutTool(
                        tool,
                        "pinned",
                        "pinned: sent with every request, so search never returns it",
                        hit,
                    )
                )
            elif tool.id in earlier:
                left_out.append(
                    LeftOutTool(
                        tool,
                        "earlier_query",
                        "an earlier query of the same search returned it",
                        hit,
                    )
                )
            elif not await self.policy.allows(tool, *self.phases):
                left_out.append(
                    LeftOutTool(
                        tool, "filtered", "the filter does not allow it for this request", hit
                    )
                )
            else:
                best = hit.normalized_score if best is None else best
                candidates.append(hit)
        floor = score_floor(best or 0.0, threshold)
        for hit in candidates:
            tool = hit.tool
            if hit.normalized_score < floor or len(found) < k:
                detail = _below(hit.normalized_score, best or 0.0, threshold)
                left_out.append(LeftOutTool(tool, "below_threshold", detail, hit))
            else:
                detail = f"past max_results: a search returns {k} tool{'s' if k > 1 else ''}"
                if tool.id in self.known:
                    detail += "; it is already discovered, and new tools come first"
                left_out.append(LeftOutTool(tool, "past_max_results", detail, hit))
        left_out.sort(key=lambda entry: entry.hit.rank)
        hits = {hit.tool.id: hit for hit in ranking}
        completed = [
            dataclasses.replace(entry, hit=hits.get(entry.tool.id)) if entry.hit is None else entry
            for entry in found
        ]
        return completed, left_out

    async def _rank(
        self, query: str, k: int, threshold: float | None, *, deferred_only: bool
    ) -> SearchResults:
        deferred_ids = self.view.deferred_ids
        search = functools.partial(
            self.index.search,
            query,
            k=k,
            threshold=threshold,
            min_score=self.min_score,
            filter=(lambda tool: tool.id in deferred_ids) if deferred_only else None,
        )
        # A pattern may cost RE2 its whole time budget, and the compilation before it
        # (`RegexOptions`): off the event loop, other sessions do not wait for it.
        if self.index.engine_name == "regex":
            return await asyncio.to_thread(search)
        return search()


def _below(score: float, best: float, threshold: float) -> str:
    """Why the threshold leaves out a tool scoring `score`, `best` being the best score a
    search may return."""
    if best < threshold:
        return (
            f"the best tool scores {best:.2f}, below the threshold {threshold:.2f}, so the "
            "search returns none"
        )
    floor = score_floor(best, threshold)
    if score < floor:
        return (
            f"scores {score:.2f}, below {floor:.2f} (half the threshold, or a third of the "
            "best tool's score)"
        )
    return f"scores {score:.2f}, below what each part of this request's best tools score"
