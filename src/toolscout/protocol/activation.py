"""`enabled: auto`: tool search only when the tools would take too much of the model's context.

A small catalog is better sent whole (no search round trip, nothing to miss); a large one
must be searched. The rule: search is on when the catalog's tool tokens (every definition,
o200k_base) exceed `auto_share` of the model's context window. The window comes from
`context_window` when it is given, else from `CONTEXT_WINDOWS` by the model's name.

`AutoActivation` decides once per catalog version, so a host whose tools arrive late (a
gateway whose servers connect one by one) asks again on every change and gets the decision
that fits the catalog as it is now.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import ValidationError, ValidatorFunctionWrapHandler, WrapValidator

from toolscout.errors import ToolSearchConfigError

# Reading a config file's settings needs neither: a decision imports them.
if TYPE_CHECKING:
    from toolscout.catalog.catalog import Catalog
    from toolscout.catalog.tool import Tool


def _on_off_or_auto(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    # One message for the union: pydantic would report its two members' errors apart.
    try:
        return handler(value)
    except ValidationError:
        raise ValueError(f"must be true, false or auto (got {value!r})") from None


Enabled: TypeAlias = Annotated[bool | Literal["auto"], WrapValidator(_on_off_or_auto)]
"""Whether hosts put tool search in the loop: always, never, or `auto` (`AutoActivation`)."""

DEFAULT_AUTO_SHARE = 0.1
"""Search turns on when the tools take more than this share of the context window."""

#: Context windows in tokens, by model-name prefix; the longest prefix that matches wins
#: (`gpt-4o` before `gpt-4`). Names are compared in lower case, without a provider prefix
#: (`openai:`, `anthropic/`, `models/`). Values are the providers' published input limits.
CONTEXT_WINDOWS: Mapping[str, int] = MappingProxyType(
    {
        # OpenAI
        "gpt-5": 400_000,
        "gpt-4.1": 1_047_576,
        "gpt-4o": 128_000,
        "gpt-4-turbo": 128_000,
        "gpt-4": 8_192,
        "gpt-3.5-turbo": 16_385,
        "o1": 200_000,
        "o3": 200_000,
        "o4-mini": 200_000,
        # Anthropic
        "claude-opus-4": 200_000,
        "claude-sonnet-4": 200_000,
        "claude-haiku-4": 200_000,
        "claude-3-7-sonnet": 200_000,
        "claude-3-5": 200_000,
        "claude-3": 200_000,
        # Google
        "gemini-3": 1_048_576,
        "gemini-2.5": 1_048_576,
        "gemini-2.0": 1_048_576,
        "gemini-1.5-pro": 2_097_152,
        "gemini-1.5-flash": 1_048_576,
        # Meta
        "llama-4-scout": 10_000_000,
        "llama-4-maverick": 1_048_576,
        "llama-3.1": 131_072,
        "llama-3.2": 131_072,
        "llama-3.3": 131_072,
        "llama3.1": 131_072,
        "llama3.2": 131_072,
        "llama3.3": 131_072,
        # Others
        "mistral-large": 131_072,
        "deepseek-chat": 131_072,
        "deepseek-reasoner": 131_072,
        "qwen3": 131_072,
    }
)

WindowSource: TypeAlias = Literal["context_window", "model"]
"""Where a context window came from: the `context_window` setting, or the model's name."""


def context_window_of(model: str) -> int | None:
    """The context window of `model` from `CONTEXT_WINDOWS`, or None for a model it does
    not know. `openai:gpt-4o`, `anthropic/claude-sonnet-4-5` and `models/gemini-2.5-pro`
    are read without their provider prefix."""
    for name in _candidates(model):
        matches = [prefix for prefix in CONTEXT_WINDOWS if name.startswith(prefix)]
        if matches:
            return CONTEXT_WINDOWS[max(matches, key=len)]
    return None


def _candidates(model: str) -> list[str]:
    name = model.strip().lower()
    bare = name.rsplit("/", 1)[-1]
    provider, colon, rest = bare.partition(":")
    # `llama3.1:8b` is a tag after the name, `openai:gpt-4o` a provider before it.
    is_provider = not any(provider.startswith(prefix) for prefix in CONTEXT_WINDOWS)
    return [name, bare, *([rest] if colon and is_provider else [])]


@dataclass(frozen=True)
class Activation:
    """One `enabled: auto` decision, with the figures it used."""

    on: bool
    """Whether tool search is on: `tool_tokens` exceed `threshold_tokens`."""
    tool_tokens: int
    """Tokens of every tool's definition (o200k_base), as sent without search."""
    context_window: int
    """The model's context window, in tokens."""
    share: float
    """`auto_share`: the part of the window the tools may take before search turns on."""
    model: str | None
    """The model the window is for, when known."""
    window_source: WindowSource
    """Where `context_window` came from."""
    threshold_tokens: int
    """`share` of `context_window`: more tool tokens than this turn search on."""

    def summary(self) -> str:
        """The decision in one line, with its figures, for a log or a terminal."""
        whose = f"{self.model}'s" if self.model else "the"
        state = "on" if self.on else "off"
        relation = ">" if self.on else "<="
        return (
            f"tool search auto: {state}: {self.tool_tokens:,} tool tokens {relation} "
            f"{self.threshold_tokens:,} ({self.share * 100:g}% of {whose} "
            f"{self.context_window:,}-token context window)"
        )


class AutoActivation:
    """The `enabled: auto` rule for one model, deciding again for each catalog version.

    Args:
        share: `auto_share`, above 0 and at most 1.
        model: The model's name, for `CONTEXT_WINDOWS`.
        context_window: The window in tokens, for a model the table does not know (it
            wins over the table).

    Raises:
        ToolSearchConfigError: no window: `context_window` not given and `model` unknown or
            not given.
    """

    def __init__(
        self,
        *,
        share: float = DEFAULT_AUTO_SHARE,
        model: str | None = None,
        context_window: int | None = None,
    ) -> None:
        window = context_window
        source: WindowSource = "context_window"
        if window is None and model is not None:
            window, source = context_window_of(model), "model"
        if window is None:
            raise ToolSearchConfigError(unknown_window_message(model))
        self.share = share
        self.model = model
        self.context_window = window
        self.window_source = source
        self._decided: tuple[int, Activation] | None = None
        self._tool_tokens: dict[tuple[str, str, str], int] = {}

    def decide(self, catalog: Catalog) -> Activation:
        """The decision for `catalog` as it is now; counted again only when its version
        changed since the last call."""
        version, tools = catalog.snapshot()
        if self._decided is not None and self._decided[0] == version:
            return self._decided[1]
        activation = self.decide_for(tools)
        self._decided = (version, activation)
        return activation

    def decide_for(self, tools: Iterable[Tool]) -> Activation:
        """The decision for `tools`: their tokens as `catalog_tokens` counts them, each
        tool counted once and remembered while it is unchanged, so that a gateway deciding
        again after one server's listing counts only that server's new tools."""
        from toolscout.catalog.tokens import tool_tokens

        counted: dict[tuple[str, str, str], int] = {}
        for tool in tools:
            # Everything an export reads: the id, the searchable text and schema, metadata.
            key = (
                tool.id,
                tool.fingerprint,
                json.dumps(tool.metadata, sort_keys=True, default=str),
            )
            known = self._tool_tokens.get(key)
            counted[key] = tool_tokens(tool, "openai_chat") if known is None else known
        self._tool_tokens = counted
        return self.decide_tokens(sum(counted.values()))

    def decide_tokens(self, tokens: int) -> Activation:
        """The decision for tools whose definitions take `tokens` together."""
        threshold = int(self.context_window * self.share)
        return Activation(
            on=tokens > threshold,
            tool_tokens=tokens,
            context_window=self.context_window,
            share=self.share,
            model=self.model,
            window_source=self.window_source,
            threshold_tokens=threshold,
        )


def unknown_window_message(model: str | None) -> str:
    """Why `enabled: auto` has no context window to compare with, and what to set."""
    examples = "gpt-4o, gpt-5, claude-sonnet-4-5, gemini-2.5-pro, llama-3.3-70b"
    if model is None:
        return (
            "tool_search.enabled auto needs the model's context window: set model (a known "
            f"one, such as {examples}) or context_window (in tokens)"
        )
    return (
        f"the context window of the model {model!r} is not known; set context_window (in "
        f"tokens), or use a known model such as {examples}"
    )
