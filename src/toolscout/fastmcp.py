"""`ToolScoutSearchTransform`: FastMCP's search transform with toolscout's engines.

For people who build their own FastMCP server: a drop-in for FastMCP's `BM25SearchTransform`
(same arguments, same `search_tools` and `call_tool`, same result format), ranked by
toolscout's field-weighted BM25 or RE2 regex, with a threshold below which nothing is
returned. Needs the `mcp` extra: `pip install 'toolscout[mcp]'`.

```python
from fastmcp import FastMCP
from toolscout.fastmcp import ToolScoutSearchTransform

mcp = FastMCP("Server")
mcp.add_transform(ToolScoutSearchTransform(max_results=5))
```

What it keeps from FastMCP's base transform: search runs over the tools the caller may see
(the server's auth and visibility pipeline), `call_tool` re-checks that the tool is visible
and refuses the synthetic tools, and hits resolve by name to the current tool. What it
changes: tools are indexed once and re-analysed only when their text changes (FastMCP's BM25
rebuilds its index whenever the catalog's hash changes, and hashes the catalog at every
search); identifiers are split (camelCase, snake_case); and a query no tool serves returns a
notice that tells the model not to retry, rather than the least bad tools.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Annotated, Any

from toolscout.errors import ToolScoutError, require_extra

with require_extra("mcp", feature="toolscout.fastmcp"):
    from fastmcp.server.context import Context
    from fastmcp.server.transforms.search.base import BaseSearchTransform, SearchResultSerializer
    from fastmcp.tools.base import Tool as FastMCPTool

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.search import BM25Options, EngineName, ToolIndex

__all__ = ["ToolScoutSearchTransform"]

logger = logging.getLogger("toolscout.fastmcp")


class ToolScoutSearchTransform(BaseSearchTransform):
    """Replace the tool listing with `search_tools` and `call_tool`, ranked by toolscout.

    Args:
        max_results: Most tools returned per search.
        always_visible: Tool names listed alongside the synthetic tools, never searched.
        search_tool_name: Name of the search tool.
        call_tool_name: Name of the call-tool proxy.
        search_result_serializer: Renders the found tools; FastMCP's JSON by default
            (`serialize_tools_for_output_markdown` costs fewer tokens).
        engine: `bm25` (a query in words) or `regex` (an RE2 pattern).
        threshold: Lowest normalized score (0–1) a hit needs; toolscout's default if None,
            0 to return every match.
        bm25: Options of the BM25 engine (`toolscout.search.BM25Options`).
    """

    def __init__(
        self,
        *,
        max_results: int = 5,
        always_visible: list[str] | None = None,
        search_tool_name: str = "search_tools",
        call_tool_name: str = "call_tool",
        search_result_serializer: SearchResultSerializer | None = None,
        engine: EngineName = "auto",
        threshold: float | None = None,
        bm25: BM25Options | None = None,
    ) -> None:
        super().__init__(
            max_results=max_results,
            always_visible=always_visible,
            search_tool_name=search_tool_name,
            call_tool_name=call_tool_name,
            search_result_serializer=search_result_serializer,
        )
        self._catalog = Catalog()
        self._index = ToolIndex(self._catalog, engine=engine, threshold=threshold, bm25=bm25)
        self._indexed: dict[str, FastMCPTool] = {}
        """The FastMCP tool each catalog entry was made from, by name."""
        self._lock = threading.Lock()

    def _make_search_tool(self) -> FastMCPTool:
        transform = self

        async def search_tools(
            query: Annotated[str, "Natural language query to search for tools"],
            ctx: Context = None,  # type: ignore[assignment]  # FastMCP injects it
        ) -> str | list[dict[str, Any]]:
            """Search for tools using natural language.

            Returns matching tool definitions ranked by relevance,
            in the same format as list_tools.
            """
            visible = await transform._get_visible_tools(ctx)
            found, notice = transform._find(visible, query)
            if not found and notice:
                return notice
            rendered: str | list[dict[str, Any]] = await transform._render_results(found)
            return rendered

        return FastMCPTool.from_function(fn=search_tools, name=self._search_tool_name)

    async def _search(self, tools: Sequence[FastMCPTool], query: str) -> Sequence[FastMCPTool]:
        return self._find(tools, query)[0]

    def _find(
        self, tools: Sequence[FastMCPTool], query: str
    ) -> tuple[list[FastMCPTool], str | None]:
        """The best visible tools for `query`, as the caller sees them now, and the notice
        that explains an empty result."""
        visible = {tool.name: tool for tool in tools}
        self._catch_up(visible)
        hits = self._index.search(
            query, k=self._max_results, filter=lambda tool: tool.name in visible
        )
        return [visible[hit.tool.name] for hit in hits], hits.notice

    def _catch_up(self, visible: dict[str, FastMCPTool]) -> None:
        """Index the tools not indexed yet, and re-index those whose text changed.

        The index keeps tools this caller cannot see (another caller may), and searches
        filter them out; it is trimmed to the visible tools when it holds more than twice as
        many, so tools removed from the server do not pile up.
        """
        with self._lock:
            fresh: dict[str, tuple[FastMCPTool, Tool]] = {}
            for name, tool in visible.items():
                known = self._indexed.get(name)
                if known is tool or (known is not None and _same_text(known, tool)):
                    continue
                converted = _as_toolscout(tool)
                if converted is not None:
                    fresh[name] = (tool, converted)
            limit = 2 * max(len(visible), 16)
            if not fresh and len(self._indexed) <= limit:
                return
            indexed = self._indexed | {name: tool for name, (tool, _) in fresh.items()}
            stale = (
                [name for name in indexed if name not in visible] if len(indexed) > limit else []
            )
            wanted = {tool.name: tool for tool in self._catalog}
            wanted |= {name: converted for name, (_, converted) in fresh.items()}
            for name in stale:
                del indexed[name], wanted[name]
            self._catalog.sync(list(wanted.values()))
            self._indexed = indexed


def _same_text(old: FastMCPTool, new: FastMCPTool) -> bool:
    return (
        old.description == new.description
        and old.parameters == new.parameters
        and old.tags == new.tags
        and old.title == new.title
    )


def _as_toolscout(tool: FastMCPTool) -> Tool | None:
    try:
        return Tool(
            name=tool.name,
            description=tool.description or tool.title or "",
            input_schema=tool.parameters,
            tags=tuple(sorted(tool.tags)),
        )
    except (ToolScoutError, ValueError) as error:
        logger.warning("tool %r cannot be searched: %s", tool.name, error)
        return None
