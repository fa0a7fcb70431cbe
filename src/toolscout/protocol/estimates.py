"""Token estimates: what tool search would send per request for a catalog, against sending
every tool, measured by running a `ToolSearch` through one discovery."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tokens import catalog_tokens, count_tokens
from toolscout.catalog.tool import Tool
from toolscout.protocol.config import Mode, ResultFormat
from toolscout.protocol.modes import mode_strategy
from toolscout.protocol.processor import ToolSearch
from toolscout.protocol.results import Found, QueryResult
from toolscout.protocol.stats import definition_tokens
from toolscout.protocol.view import catalog_view

#: Groups of discovered tools the estimate averages over.
_ESTIMATE_GROUPS = 20


@dataclass(frozen=True)
class TokenEstimate:
    """Tokens per request for one catalog, mode and result format (`estimate_tokens`)."""

    mode: Mode
    result_format: ResultFormat
    tools: int
    """Tools in the catalog."""
    without_search: int
    """Every tool's definition, sent with each request."""
    first_request: int
    """The tool list before anything is discovered: pinned tools and meta-tools."""
    per_request: int
    """Once `discovered` tools are found: the tool list, plus the meta-tool results the
    conversation now carries."""
    discovered: int
    """Tools discovered in the estimate (one search's worth, `max_results`)."""

    @property
    def saving(self) -> float:
        """The share of tool tokens saved per request, 0–1."""
        return 1 - self.per_request / self.without_search if self.without_search else 0.0


def estimate_tokens(
    catalog: Catalog | Iterable[Any],
    *,
    mode: Mode = "load",
    result_format: ResultFormat = "json",
    max_results: int = 5,
    pinned: Iterable[str] = (),
) -> TokenEstimate:
    """Tokens per request with tool search, against sending every tool, for one discovery.

    The scenario: one search finds `max_results` tools and (in `load` mode) the model loads
    them; in `lazy` mode it asks for them by name. The request that follows sends the tool
    list of that step and carries the meta-tools' results in its messages. Both are measured
    with toolscout's own code paths, averaged over groups of tools spread evenly through the
    catalog, so a few very large or very small tools do not decide the figure.

    Args:
        pinned: Ids of tools sent with every request besides those the catalog pins
            (`ToolSearchConfig.pinned`).
    """
    search = ToolSearch(
        catalog,
        mode=mode,
        result_format=result_format,
        max_results=max_results,
        pinned=tuple(pinned),
    )
    config = search.config
    view = catalog_view(search.catalog, config)
    every = catalog_tokens([*view.pinned, *view.deferred], "openai_chat")
    first = sum(map(definition_tokens, search.prepare()))
    per_request = []
    strategy = mode_strategy(mode)
    for group in _spread_groups(view.deferred, max_results):
        messages: list[dict[str, Any]] = []
        if strategy.discovers_by_search:
            # The search result as the mode words it, as if the search had found the group.
            found = [Found(view.definition(tool, "discovered"), 0.5) for tool in group]
            text = strategy.search_text(config, [QueryResult("a request", found)])
            messages.append({"role": "tool", "tool_call_id": "search", "content": text})
        names = [view.wire_name(tool) for tool in group]
        for call in strategy.discovery_calls(config, names):
            result = search.execute(call)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
        tools = sum(map(definition_tokens, search.prepare(None, messages)))
        results = sum(count_tokens(message["content"]) for message in messages)
        per_request.append(tools + results)
    return TokenEstimate(
        mode,
        result_format,
        len(view.pinned) + len(view.deferred),
        every,
        first,
        round(sum(per_request) / len(per_request)) if per_request else first,
        min(max_results, len(view.deferred)),
    )


def _spread_groups(tools: Sequence[Tool], size: int) -> list[list[Tool]]:
    """Up to `_ESTIMATE_GROUPS` groups of `size` tools, spread evenly through `tools`."""
    if not tools:
        return []
    size = min(size, len(tools))
    count = min(_ESTIMATE_GROUPS, max(1, len(tools) // size))
    step = len(tools) / (count * size)
    picks = [tools[int(i * step)] for i in range(count * size)]
    return [picks[i : i + size] for i in range(0, len(picks), size)]
