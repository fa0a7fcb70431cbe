"""Token accounting: what tool search sends per request, against sending every tool.

Counts are o200k_base tokens (`toolscout.catalog.tokens`) of each definition's compact JSON in
OpenAI's chat format, the measure `toolscout inspect` uses. Anthropic counts with its own
tokenizer, so for Anthropic these are estimates.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tokens import catalog_tokens, count_tokens
from toolscout.catalog.tool import Tool
from toolscout.protocol.config import Mode, ResultFormat, ToolSearchConfig
from toolscout.protocol.definitions import ToolCall, ToolDefinition

#: Groups of discovered tools the estimate averages over.
_ESTIMATE_GROUPS = 20


def definition_tokens(definition: ToolDefinition) -> int:
    """Tokens of one definition as sent: a pass-through one as given, the others in OpenAI's
    chat format."""
    if definition.raw is not None:
        payload: dict[str, Any] = definition.raw
    else:
        payload = {"type": "function", "function": definition.as_function()}
    return _cached_count(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))


_counts: dict[str, int] = {}
_counts_lock = threading.Lock()


def _cached_count(text: str) -> int:
    # A step resends the same few definitions; each is counted once.
    count = _counts.get(text)
    if count is None:
        count = count_tokens(text)
        with _counts_lock:
            if len(_counts) > 50_000:
                _counts.clear()
            _counts[text] = count
    return count


@dataclass(frozen=True)
class ToolSearchStats:
    """What a `ToolSearch` has sent so far (`ToolSearch.stats()`)."""

    mode: Mode
    result_format: ResultFormat
    requests: int
    """Steps prepared."""
    tool_tokens: int
    """Tokens of the tool lists sent, summed over the requests."""
    result_tokens: int
    """Tokens of the meta-tools' results (search results, definitions), which the
    conversation carries from then on."""
    tool_tokens_without_search: int
    """Tokens the same requests would have sent with every tool of the catalog (as it is
    now) in each tool list."""

    @property
    def per_request(self) -> float:
        """Average tokens of tools per request with tool search (results included)."""
        return (self.tool_tokens + self.result_tokens) / max(self.requests, 1)

    @property
    def per_request_without_search(self) -> float:
        """Average tokens of tools per request when every tool is sent."""
        return self.tool_tokens_without_search / max(self.requests, 1)

    @property
    def saving(self) -> float:
        """The share of tool tokens tool search saved, 0–1 (negative if it cost more)."""
        if not self.tool_tokens_without_search:
            return 0.0
        return 1 - (self.tool_tokens + self.result_tokens) / self.tool_tokens_without_search


class StatsRecorder:
    """Counters a `ToolSearch` keeps; thread-safe, and cheap enough for every step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests = 0
        self._tool_tokens = 0
        self._passthrough_tokens = 0
        self._result_tokens = 0

    def record_request(
        self, definitions: Sequence[ToolDefinition], passthrough: Sequence[ToolDefinition]
    ) -> None:
        sent = sum(map(definition_tokens, definitions))
        outside = sum(map(definition_tokens, passthrough))
        with self._lock:
            self._requests += 1
            self._tool_tokens += sent
            self._passthrough_tokens += outside

    def record_result(self, content: str) -> None:
        tokens = count_tokens(content)
        with self._lock:
            self._result_tokens += tokens

    def snapshot(self, config: ToolSearchConfig, catalog_tools: Iterable[Tool]) -> ToolSearchStats:
        with self._lock:
            requests = self._requests
            counts = (self._tool_tokens, self._result_tokens, self._passthrough_tokens)
        tool_tokens, result_tokens, passthrough = counts
        every_tool = catalog_tokens(catalog_tools, "openai_chat") if requests else 0
        return ToolSearchStats(
            config.mode,
            config.result_format,
            requests,
            tool_tokens,
            result_tokens,
            requests * every_tool + passthrough,
        )


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
) -> TokenEstimate:
    """Tokens per request with tool search, against sending every tool, for one discovery.

    The scenario: one search finds `max_results` tools and (in `load` mode) the model loads
    them; in `lazy` mode it asks for them by name. The request that follows sends the tool
    list of that step and carries the meta-tools' results in its messages. Both are measured
    with toolscout's own code paths, averaged over groups of tools spread evenly through the
    catalog, so a few very large or very small tools do not decide the figure.
    """
    from toolscout.protocol.processor import ToolSearch
    from toolscout.protocol.results import Found, QueryResult

    search = ToolSearch(catalog, mode=mode, result_format=result_format, max_results=max_results)
    view = search._view()
    every = catalog_tokens([*view.always, *view.deferred], "openai_chat")
    first = sum(map(definition_tokens, search.prepare()))
    per_request = []
    for group in _spread_groups(view.deferred, max_results):
        messages: list[dict[str, Any]] = []
        names = [search._wire_name(tool) for tool in group]
        if mode == "lazy":
            reveal = search.execute(
                ToolCall(search.config.meta_tool_names.lazy, {"tool_names": names}, id="lazy")
            )
            messages.append({"role": "tool", "tool_call_id": "lazy", "content": reveal.content})
        else:
            found = [Found(search._definition(tool, "discovered"), 0.5) for tool in group]
            text = search._search_text([QueryResult("a request", found)], native=False)
            messages.append({"role": "tool", "tool_call_id": "search", "content": text})
        if mode == "load":
            load = search.execute(
                ToolCall(search.config.meta_tool_names.load, {"names": names}, id="load")
            )
            messages.append({"role": "tool", "tool_call_id": "load", "content": load.content})
        tools = sum(map(definition_tokens, search.prepare(None, messages)))
        results = sum(count_tokens(message["content"]) for message in messages)
        per_request.append(tools + results)
    return TokenEstimate(
        mode,
        result_format,
        len(view.always) + len(view.deferred),
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
