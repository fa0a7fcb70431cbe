"""Where a hit's matched terms are in a piece of the tool's text, for highlighting."""

from __future__ import annotations

import re
from collections.abc import Iterable

from toolscout.search.analysis import highlight_spans
from toolscout.search.base import MatchedTerm


def matched_spans(text: str, matched_terms: Iterable[MatchedTerm]) -> list[tuple[int, int]]:
    """Character spans of `text` to highlight for these matched terms, in order, not
    overlapping: whole words that analyse to a matched term, and for regex hits the matched
    text itself (a raw substring, not an analysed word)."""
    terms = list(matched_terms)
    spans = highlight_spans(text, [term.index_term for term in terms if term.kind != "pattern"])
    for term in terms:
        if term.kind == "pattern" and term.index_term:
            pattern = re.escape(term.index_term)
            spans += [match.span() for match in re.finditer(pattern, text, re.IGNORECASE)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
