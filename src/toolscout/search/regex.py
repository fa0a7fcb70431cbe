"""Regular-expression search over tool text, with RE2: linear time, so no pattern can hang it.

Every tool's searchable fields are laid out one per line in one text, and the pattern runs
over that text case-insensitively with `^` / `$` matching at line ends; `^get` finds names
that start with "get". A pattern that is invalid, unsupported by RE2 (backreferences,
lookaround) or too long returns no tools and a notice saying why, never an exception.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

from toolscout.catalog.tool import Tool
from toolscout.errors import SearchConfigError
from toolscout.search.base import FIELDS, Field, MatchedTerm, RankedCandidates, SearchEngine
from toolscout.search.fields import tool_fields


@dataclass(frozen=True)
class RegexOptions:
    """Limits that keep a pattern from a model or a user cheap."""

    max_pattern_length: int = 200
    """Longer patterns are refused (Anthropic's tool search uses the same cap)."""
    time_budget: float = 0.1
    """Seconds a search may take before it stops and returns what it found."""
    max_memory: int = 8 << 20
    """Bytes RE2 may use for one compiled pattern."""

    def __post_init__(self) -> None:
        if self.max_pattern_length < 1 or self.time_budget <= 0 or self.max_memory < 1 << 16:
            raise SearchConfigError(
                "RegexOptions needs max_pattern_length >= 1, time_budget > 0 and "
                "max_memory >= 64 KiB"
            )


@dataclass(frozen=True, slots=True)
class _Layout:
    # UTF-8 bytes, because the RE2 binding encodes a str argument on every call: for a large
    # catalog that copy, not the matching, would be most of the time.
    text: bytes
    starts: list[int]  # byte offset of each tool's first line in `text`
    ends: list[int]  # byte offset just past each tool's last line
    lines: tuple[tuple[tuple[Field, bytes], ...], ...]  # per tool: (field, line)


class RegexEngine(SearchEngine):
    """Tools whose text matches a pattern, in catalog order."""

    def __init__(self, options: RegexOptions | None = None) -> None:
        self.options = options or RegexOptions()
        self._layout = _Layout(b"", [], [], ())

    def rebuild(self, tools: Sequence[Tool]) -> None:
        lines = tuple(_tool_lines(tool) for tool in tools)
        starts: list[int] = []
        ends: list[int] = []
        offset = 0
        for tool_lines in lines:
            starts.append(offset)
            length = sum(len(line) + 1 for _, line in tool_lines)
            ends.append(offset + max(length - 1, 0))
            offset += length
        text = b"\n".join(line for tool_lines in lines for _, line in tool_lines)
        self._layout = _Layout(text, starts, ends, lines)

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        # Every match scores 1: no threshold (at most 1) stops one; a min_score above 1 can.
        if min_score is not None and min_score > 1:
            return RankedCandidates((), (), (), notice="No match can score above 1.")
        compiled = self._compile(query)
        if isinstance(compiled, str):
            return RankedCandidates((), (), (), notice=compiled)
        layout = self._layout
        deadline = time.monotonic() + self.options.time_budget
        positions: list[int] = []
        position, exhaustive, notice = 0, True, None
        while position < len(layout.starts):
            if len(positions) >= limit:
                exhaustive = False
                break
            if time.monotonic() > deadline:
                exhaustive = False
                notice = (
                    f"The search stopped after {self.options.time_budget:g}s with "
                    f"{len(positions)} tools; use a more specific pattern."
                )
                break
            match = compiled.search(layout.text, layout.starts[position])
            if match is None:
                break
            position = bisect.bisect_right(layout.starts, match.start()) - 1
            start, end = layout.starts[position], layout.ends[position]
            # A match may run across the line that separates two tools: recheck inside one.
            if match.end() <= end or compiled.search(layout.text, start, end) is not None:
                positions.append(position)
            position += 1
        if not layout.starts:
            notice = "The catalog is empty: there are no tools to search."
        elif not positions and notice is None:
            notice = f"No tool matches the pattern {query!r}. Try a broader pattern."
        return RankedCandidates(
            positions=positions,
            scores=[1.0] * len(positions),
            normalized_scores=[1.0] * len(positions),
            notice=notice,
            exhaustive=exhaustive,
            explain=lambda position: _explain(query, compiled, layout.lines[position]),
        )

    def _compile(self, pattern: str) -> Any:
        """The compiled pattern, or a notice (str) saying why there is none."""
        return _compile(pattern, self.options.max_pattern_length, self.options.max_memory)


def _explain(
    query: str, compiled: Any, lines: tuple[tuple[Field, bytes], ...]
) -> tuple[MatchedTerm, ...]:
    matched: dict[str, set[Field]] = {}
    for field_name, line in lines:
        match = compiled.search(line)
        if match is not None:
            text = match.group(0).decode(errors="replace").casefold()
            matched.setdefault(text, set()).add(field_name)
    return tuple(
        MatchedTerm(
            query_term=query,
            index_term=text,
            fields=tuple(f for f in FIELDS if f in found),
            kind="pattern",
        )
        for text, found in matched.items()
    )


@lru_cache(maxsize=256)
def _compile(pattern: str, max_length: int, max_memory: int) -> Any:
    if not pattern.strip():
        return "The pattern is empty: give a regular expression such as 'weather|forecast'."
    if len(pattern) > max_length:
        return (
            f"The pattern is {len(pattern)} characters long; the limit is {max_length}. "
            "Use a shorter pattern."
        )
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = max_memory
    try:
        encoded = pattern.encode()
        re2.compile(encoded, options)  # validate as written, so errors quote the user's pattern
        # (?m): ^ and $ match at every line, that is at the start and end of every field.
        return re2.compile(b"(?m)" + encoded, options)
    except UnicodeEncodeError:
        return f"The pattern {pattern!r} is not valid text (it has a lone surrogate)."
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode(errors="replace")
        return (
            f"The pattern {pattern!r} is invalid or unsupported ({reason}). Patterns use RE2 "
            "syntax: no backreferences or lookaround."
        )


def _tool_lines(tool: Tool) -> tuple[tuple[Field, bytes], ...]:
    texts = tool_fields(tool)
    if tool.id != tool.name:
        # The id is how the model may know the tool (`github__create_issue`): findable too.
        texts["name"] = [*texts["name"], tool.id]
    return tuple(
        (field_name, " ".join(text.split()).encode(errors="replace"))
        for field_name, field_texts in texts.items()
        for text in field_texts
        if text.strip()
    )
