"""The engines a benchmark compares, toolscout's and its peers', behind one small interface.

Every engine is built from the same `toolscout.Tool` list and answers `search(query, k)` with
tool names, best first. What each one reads of a tool:

- toolscout gets the `Tool` objects and analyses their fields itself (name, description,
  parameter names and descriptions, enum values).
- FastMCP's transforms get FastMCP `Tool` objects with the same name, description and
  parameters schema, and search what they extract from them: name, description, and each
  top-level parameter's name and description.
- bm25s and rank_bm25 get `catalog_text(tool)`, which is exactly that same FastMCP text.

Regex engines receive a pattern made from the query's words (`query_pattern`), because a
sentence is not a regex. Engines that rank by a score drop tools that score 0 (no query word
matched), as FastMCP's BM25 does, so an empty answer from a peer means "nothing matched".
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from toolscout.catalog import Tool
from toolscout.search import BM25Options

if TYPE_CHECKING:
    from fastmcp.server.transforms.search.base import BaseSearchTransform

    from toolscout import ToolIndex
    from toolscout.search import EngineName


class Searcher(Protocol):
    """A built index: the one thing a benchmark asks of an engine."""

    def search(self, query: str, k: int) -> list[str]:
        """Names of up to `k` tools for `query`, best first; empty when it abstains."""
        ...


@runtime_checkable
class AbstainingSearcher(Searcher, Protocol):
    """A searcher that can decline to answer below a score threshold."""

    def without_threshold(self) -> Searcher:
        """The same index, answering with whatever matched, however weakly."""
        ...


@dataclass(frozen=True, slots=True)
class Engine:
    """One contender in the benchmark."""

    label: str
    build: Callable[[Sequence[Tool]], Searcher]
    reads: str
    """What text of a tool it searches, for the report."""
    namespaced: bool = False
    """It reads a tool's namespace (a `ToolscoutSearcher`, which can answer with tool ids);
    engines that do not are given a namespaced tool under its id as name instead."""


def catalog_text(tool: Tool) -> str:
    """Name, description, then each top-level parameter's name and description, space-joined:
    the text FastMCP's search transforms extract, so the plain-text peers read the same words."""
    parts = [tool.name]
    if tool.description:
        parts.append(tool.description)
    for name, schema in tool.input_schema.get("properties", {}).items():
        parts.append(name)
        if isinstance(schema, dict) and schema.get("description"):
            parts.append(schema["description"])
    return " ".join(parts)


def query_pattern(query: str) -> str:
    """A regex matching any word of `query`: its words, deduplicated, escaped, joined by `|`."""
    words = dict.fromkeys(re.findall(r"\w+", query))
    return "|".join(re.escape(word) for word in words)


class ToolscoutSearcher:
    """A `toolscout.ToolIndex`, searched at its default threshold unless told otherwise."""

    def __init__(
        self,
        index: ToolIndex,
        engine: EngineName,
        threshold: float | None = None,
        *,
        answer_ids: bool = False,
    ) -> None:
        self._index = index
        self._engine = engine
        self._threshold = threshold
        self._answer_ids = answer_ids

    @classmethod
    def build(cls, tools: Sequence[Tool], engine: EngineName, **options: Any) -> ToolscoutSearcher:
        """An index over `tools`; `options` go to `ToolIndex` (`semantic=...`)."""
        from toolscout import ToolIndex

        return cls(ToolIndex(list(tools), engine=engine, **options), engine)

    def search(self, query: str, k: int) -> list[str]:
        text = query_pattern(query) if self._engine == "regex" else query
        hits = self._index.search(text, k=k, threshold=self._threshold)
        return [hit.tool.id if self._answer_ids else hit.tool.name for hit in hits]

    def without_threshold(self) -> Searcher:
        return ToolscoutSearcher(self._index, self._engine, 0, answer_ids=self._answer_ids)

    def answering_ids(self) -> ToolscoutSearcher:
        """The same index, answering with tool ids (`server__tool`) instead of names, for
        catalogs where one name is in several namespaces."""
        return ToolscoutSearcher(self._index, self._engine, self._threshold, answer_ids=True)


class FastMCPSearcher:
    """A FastMCP search transform, driven the way its `search_tools` tool drives it.

    `search_tools` lists the tools the caller may see, then awaits `transform._search(tools,
    query)`. This passes the tool list straight to `_search`, skipping the server's catalog
    listing (which would only add time), so the ranking and its cost are FastMCP's own.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        transform: Callable[[int], BaseSearchTransform],
        *,
        regex: bool = False,
    ) -> None:
        from fastmcp.tools.base import Tool as FastMCPTool

        self._tools = [
            FastMCPTool(name=tool.name, description=tool.description, parameters=tool.input_schema)
            for tool in tools
        ]
        self._make_transform = transform
        self._regex = regex
        # `max_results` is fixed when a transform is made, so keep one per k asked for.
        self._transforms: dict[int, BaseSearchTransform] = {}

    def search(self, query: str, k: int) -> list[str]:
        if k not in self._transforms:
            self._transforms[k] = self._make_transform(k)
        text = query_pattern(query) if self._regex else query
        found = _event_loop().run_until_complete(self._transforms[k]._search(self._tools, text))
        return [tool.name for tool in found]


class BM25sSearcher:
    """bm25s (default BM25 variant and parameters) with PyStemmer's English stemmer and
    bm25s's English stopwords."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        import bm25s
        import Stemmer

        self._tokenize = bm25s.tokenize
        self._stemmer = Stemmer.Stemmer("english")
        self._names = [tool.name for tool in tools]
        self._retriever = bm25s.BM25()
        corpus = bm25s.tokenize(
            [catalog_text(tool) for tool in tools],
            stopwords="en",
            stemmer=self._stemmer,
            show_progress=False,
        )
        self._retriever.index(corpus, show_progress=False)

    def search(self, query: str, k: int) -> list[str]:
        (words,) = self._tokenize(
            query, stopwords="en", stemmer=self._stemmer, return_ids=False, show_progress=False
        )
        ids = self._retriever.get_tokens_ids(words)
        if not ids:
            return []
        return _top_names(self._retriever.get_scores_from_ids(ids), self._names, k)


class RankBM25Searcher:
    """rank_bm25's `BM25Okapi` (default parameters) over lowercased, whitespace-split text:
    the tokenization its README shows."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        from rank_bm25 import BM25Okapi

        self._names = [tool.name for tool in tools]
        self._bm25 = BM25Okapi([catalog_text(tool).lower().split() for tool in tools])

    def search(self, query: str, k: int) -> list[str]:
        return _top_names(self._bm25.get_scores(query.lower().split()), self._names, k)


def _fastmcp_bm25(tools: Sequence[Tool]) -> Searcher:
    from fastmcp.server.transforms.search import BM25SearchTransform

    return FastMCPSearcher(tools, lambda k: BM25SearchTransform(max_results=k))


def _fastmcp_regex(tools: Sequence[Tool]) -> Searcher:
    from fastmcp.server.transforms.search import RegexSearchTransform

    return FastMCPSearcher(tools, lambda k: RegexSearchTransform(max_results=k), regex=True)


_FASTMCP_TEXT = "name, description, top-level parameter names and descriptions"

TOOLSCOUT_ENGINES: tuple[Engine, ...] = (
    Engine(
        "toolscout bm25",
        # Without the analysis cache, so that its index is built as the peers' are: from
        # nothing (the warm start table measures the cache).
        lambda tools: ToolscoutSearcher.build(tools, "bm25", bm25=BM25Options(cache=False)),
        "its own fields of the Tool (name, description, parameters, enums)",
        namespaced=True,
    ),
    Engine(
        "toolscout regex",
        lambda tools: ToolscoutSearcher.build(tools, "regex"),
        "its own fields of the Tool; query words joined by `|`",
        namespaced=True,
    ),
)

PEER_ENGINES: tuple[Engine, ...] = (
    Engine("fastmcp bm25", _fastmcp_bm25, _FASTMCP_TEXT),
    Engine("fastmcp regex", _fastmcp_regex, f"{_FASTMCP_TEXT}; query words joined by `|`"),
    Engine("bm25s", BM25sSearcher, f"{_FASTMCP_TEXT}; English stems, stopwords removed"),
    Engine("rank_bm25", RankBM25Searcher, f"{_FASTMCP_TEXT}; lowercased, split on whitespace"),
)


def toolscout_unavailable() -> str | None:
    """Why `toolscout.ToolIndex` cannot be imported, or None when it can."""
    try:
        from toolscout import ToolIndex  # noqa: F401
    except ImportError as error:
        return str(error)
    return None


def _top_names(scores: np.ndarray, names: Sequence[str], k: int) -> list[str]:
    # A stable sort breaks ties by catalog order, as FastMCP's `sorted` does.
    best = np.argsort(-scores, kind="stable")[:k]
    return [names[i] for i in best if scores[i] > 0]


@cache
def _event_loop() -> asyncio.AbstractEventLoop:
    # One loop for the process: FastMCP's `_search` awaits no I/O, so each call runs to the
    # end in one step, and a fresh loop per query would add its own setup time to FastMCP's.
    return asyncio.new_event_loop()
