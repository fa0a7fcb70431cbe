"""Regular-expression search over tool text, with RE2: linear time, so no pattern can hang it.

Every tool's searchable fields are laid out one per line in one text, and the pattern runs
over that text case-insensitively with `^` / `$` matching at line ends; `^get` finds names
that start with "get". A pattern that is invalid, unsupported by RE2 (backreferences,
lookaround) or too long returns no tools and a notice saying why, never an exception.

Linear is not enough on its own: a pattern that exhausts RE2's DFA (`(\\p{L}|\\d){60}#`)
makes RE2 fall back to simulating the automaton, which costs microseconds per byte: seconds
over a large catalog's text in one call. So the text is searched a few segments of
`SEGMENT_BYTES` at a time (whole tools, or pieces of a tool longer than that): as many per
call as keep a call short, and the time budget is checked between calls, so a search
overruns it by one short call at most.
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

SEGMENT_BYTES = 4 << 10
"""The unit of text RE2 calls search: whole tools, or pieces of a tool longer than this, cut
at line ends (or inside a longer line). A match that spans two pieces of one tool may not be
found."""

_MAX_SEGMENTS_PER_CALL = 64
# A call that computes longer than the first of these searches fewer segments next time; one
# shorter than the second, more. So a pattern RE2 runs fast is searched in few calls, and a
# slow one in calls too short to matter.
_SLOW_CALL, _FAST_CALL = 0.004, 0.001


@dataclass(frozen=True)
class RegexOptions:
    """Limits that keep a pattern from a model or a user cheap."""

    max_pattern_length: int = 200
    """Longer patterns are refused (Anthropic's tool search uses the same cap)."""
    time_budget: float = 0.1
    """Seconds a search may compute before it stops and returns what it found. Counted in
    the searching thread's CPU time, so a busy machine does not cut searches short."""
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
    segments: list[tuple[int, int]]  # (start, end) of the text each RE2 call searches


class RegexEngine(SearchEngine):
    """Tools whose text matches a pattern, in catalog order."""

    def __init__(self, options: RegexOptions | None = None) -> None:
        self.options = options or RegexOptions()
        self._layout = _Layout(b"", [], [], (), [])

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
        self._layout = _Layout(text, starts, ends, lines, _segments(text, starts, ends))

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        # Every match scores 1: no threshold (at most 1) stops one; a min_score above 1 can.
        if min_score is not None and min_score > 1:
            return RankedCandidates((), (), (), notice="No match can score above 1.")
        compiled = self._compile(query)
        if isinstance(compiled, str):
            return RankedCandidates((), (), (), notice=compiled)
        layout = self._layout
        scan = _Scan(compiled, layout, limit, time.thread_time() + self.options.time_budget)
        exhaustive = scan.run()
        notice = None
        if scan.out_of_time:
            notice = (
                f"The search stopped after {self.options.time_budget:g}s with "
                f"{len(scan.positions)} tools; use a more specific pattern."
            )
        positions = scan.positions
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


def pattern_problem(pattern: str, options: RegexOptions | None = None) -> str | None:
    """Why the regex engine cannot search `pattern` (empty, too long, invalid, or unsupported
    by RE2), in the words of the notice a search would return; None when it can search it."""
    options = options or RegexOptions()
    compiled = _compile(pattern, options.max_pattern_length, options.max_memory)
    return compiled if isinstance(compiled, str) else None


class _Scan:
    """One search of the layout's text, call after call, until `limit` tools match, the
    text ends, or the CPU time passes `deadline`."""

    def __init__(self, compiled: Any, layout: _Layout, limit: int, deadline: float) -> None:
        self.compiled = compiled
        self.layout = layout
        self.limit = limit
        self.deadline = deadline
        self.positions: list[int] = []
        self.out_of_time = False
        self._per_call = 1  # segments

    def run(self) -> bool:
        """Search; True if the whole text was searched."""
        segments, starts = self.layout.segments, self.layout.starts
        segment, offset = 0, 0
        while segment < len(segments):
            if not self._may_go_on():
                return False
            last = min(segment + self._per_call, len(segments)) - 1
            start, end = max(offset, segments[segment][0]), segments[last][1]
            match = self._search(start, end)
            if match is None:
                segment = last + 1
                continue
            position = bisect.bisect_right(starts, match.start()) - 1
            if match.end() <= self.layout.ends[position]:
                self.positions.append(position)
            elif not self._tool_by_tool(position, start, end):
                return False
            else:
                segment = last + 1
                continue
            if position + 1 == len(starts):
                break
            offset = starts[position + 1]
            while segments[segment][1] < offset:
                segment += 1
        return True

    def _tool_by_tool(self, position: int, start: int, end: int) -> bool:
        """Search each tool from `position` to `end` on its own: the pattern can match
        across the line between two tools, so a search of several would find, again and
        again, matches that are no tool's. False if it had to stop."""
        starts, ends = self.layout.starts, self.layout.ends
        while position < len(starts) and starts[position] < end:
            if not self._may_go_on():
                return False
            inside = max(start, starts[position]), min(end, ends[position])
            if self._search(*inside) is not None:
                self.positions.append(position)
            position += 1
        return True

    def _may_go_on(self) -> bool:
        if len(self.positions) >= self.limit:
            return False
        if time.thread_time() > self.deadline:
            self.out_of_time = True
            return False
        return True

    def _search(self, start: int, end: int) -> Any:
        began = time.thread_time()
        match = self.compiled.search(self.layout.text, start, end)
        took = time.thread_time() - began
        if took > _SLOW_CALL:
            self._per_call = max(1, self._per_call // 2)
        elif took < _FAST_CALL:
            self._per_call = min(_MAX_SEGMENTS_PER_CALL, self._per_call * 2)
        return match


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
    except UnicodeEncodeError:
        return f"The pattern {pattern!r} is not valid text (it has a lone surrogate)."
    try:
        # (?m): ^ and $ match at every line, that is at the start and end of every field.
        return re2.compile(b"(?m)" + encoded, options)
    except re2.error:
        pass
    reason: Any = "it cannot be combined with (?m)"
    try:  # compiled again as written, so that the reason quotes the user's pattern
        re2.compile(encoded, options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode(errors="replace")
    return (
        f"The pattern {pattern!r} is invalid or unsupported ({reason}). Patterns use RE2 "
        "syntax: no backreferences or lookaround."
    )


def _segments(text: bytes, starts: list[int], ends: list[int]) -> list[tuple[int, int]]:
    """The text cut into segments of at most `SEGMENT_BYTES`: runs of whole tools, and
    pieces of a tool longer than that, cut at a line end when there is one in reach, else
    between two characters."""
    segments: list[tuple[int, int]] = []
    for start, end in zip(starts, ends, strict=True):
        if segments and end - segments[-1][0] <= SEGMENT_BYTES:
            segments[-1] = (segments[-1][0], end)  # this tool joins the previous segment
            continue
        while end - start > SEGMENT_BYTES:
            cut = text.rfind(b"\n", start + 1, start + SEGMENT_BYTES + 1)
            if cut == -1:
                cut = start + SEGMENT_BYTES
                while text[cut] & 0xC0 == 0x80:  # not inside a UTF-8 character
                    cut -= 1
            segments.append((start, cut))
            start = cut + 1 if text[cut : cut + 1] == b"\n" else cut
        segments.append((start, end))
    return segments


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
