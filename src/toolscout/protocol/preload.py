"""Preloading: the deferred tools that best serve the latest user message, sent with the
request before the model asks for them, so that most conversations reach their tool without
a search call.

A turn runs from one user message to the next. The tools preloaded for a turn are the
ranking of its user message, the same ranking `search_tools` runs, held to a threshold at
least as high (`PreloadConfig.threshold`: tools sent unasked must be surer than search
results, and a message no tool serves preloads nothing), kept to the tools the request's
filter lets be found, loaded and sent, within `PreloadConfig.max_tools` and `max_tokens`.
The same message ranks the same way at every step, so the set is stable within a turn.

They are listed like discovered tools, in an order that only grows within a turn: the tools
discovered before the turn, then the preloaded ones, then those the turn's own tool results
made available. The next user message preloads afresh; a tool the model only called, without
discovering it, stays callable by name (unless `require_discovery`) and may be preloaded
again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout.catalog.tool import Tool
from toolscout.protocol.config import PreloadConfig
from toolscout.protocol.context_store import ContextStore, as_dict
from toolscout.protocol.find import SearchScope
from toolscout.protocol.stats import definition_tokens
from toolscout.protocol.view import CatalogView
from toolscout.search import DEFAULT_PRELOAD_THRESHOLDS

_TEXT_PARTS = frozenset({"text", "input_text"})


@dataclass(frozen=True)
class Turn:
    """The conversation's latest turn: its user message and what came after it."""

    text: str
    """The user message's text."""
    before: Sequence[Any]
    """The messages before it."""
    since: Sequence[Any]
    """The messages after it (the model's calls and their results so far)."""

    def discovered_during(self) -> set[str]:
        """Names of the tools that this turn's tool results made available, and no result
        before it."""
        store = ContextStore()
        return set(store.load(None, self.since)) - set(store.load(None, self.before))


def latest_turn(messages: Sequence[Any]) -> Turn | None:
    """The latest user message with text, in the shapes `ContextStore` reads (OpenAI Chat
    Completions and Responses, Anthropic, as dicts or SDK objects); None when there is none.
    An Anthropic user message that only carries tool results is not a turn."""
    for position in range(len(messages) - 1, -1, -1):
        message = as_dict(messages[position])
        if message.get("role") != "user":
            continue
        text = _text_of(message.get("content")).strip()
        if text:
            return Turn(text, messages[:position], messages[position + 1 :])
    return None


async def preloaded_tools(
    scope: SearchScope, view: CatalogView, text: str, config: PreloadConfig
) -> list[Tool]:
    """The best deferred tools for `text` that `scope` may return and send, best first,
    within `config`'s budget. Tools `scope.known` holds (already discovered) are left out:
    they are sent anyway. A preloaded tool passes every filter phase a discovered tool
    passes before it is sent: `search`, `load` and `active`."""
    sendable = dataclasses.replace(
        scope, phases=("search", "load", "active"), threshold=preload_threshold(scope, config)
    )
    found, _ = await sendable.found(text, config.max_tools, set(scope.known))
    chosen: list[Tool] = []
    tokens = 0
    for entry in found:
        cost = definition_tokens(view.definition(entry.tool, "preloaded"))
        if tokens + cost > config.max_tokens:
            continue  # a smaller tool further down may still fit
        tokens += cost
        chosen.append(entry.tool)
    return chosen


def preload_threshold(scope: SearchScope, config: PreloadConfig) -> float:
    """The threshold a message's ranking must reach to preload: `config.threshold`, else the
    higher of the engine's preload default and the threshold searches run with."""
    if config.threshold is not None:
        return config.threshold
    index = scope.index
    search = index.threshold if scope.threshold is None else scope.threshold
    return max(search, DEFAULT_PRELOAD_THRESHOLDS[index.engine_name])


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = (as_dict(part) for part in content)
        return "\n".join(
            part["text"]
            for part in parts
            if part.get("type") in _TEXT_PARTS and isinstance(part.get("text"), str)
        )
    if isinstance(content, Mapping):
        return _text_of([content])
    return ""
