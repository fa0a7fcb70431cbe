"""Token accounting: what tool search has sent per request, against sending every tool
(`toolscout.protocol.estimates` predicts it for a catalog).

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

from toolscout.catalog.tokens import catalog_tokens, count_tokens
from toolscout.catalog.tool import Tool
from toolscout.protocol.config import Mode, ResultFormat, ToolSearchConfig
from toolscout.protocol.definitions import ToolDefinition


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
