"""Labelled queries for the retrieval check: read from pasted or uploaded text.

Three shapes are read, so that a user can paste what they have:

- lines of `query => tool, tool` (blank lines and lines starting with `#` are skipped);
- JSON Lines, one `{"query": ..., "expected": [...]}` per line;
- a JSON list of such objects.

`expected` may also be a single string; tools are named by id, or by name when only one tool
has it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolscout.errors import DashboardError
from toolscout.safe_loading import parse_json

MAX_QUERIES = 2_000
"""Most labelled queries one check runs (each is a search)."""

_ARROW = "=>"


@dataclass(frozen=True)
class LabelledQuery:
    query: str
    expected: tuple[str, ...]
    """Tool ids."""


def read_labelled_queries(text: str, resolve: Callable[[str], str]) -> list[LabelledQuery]:
    """The labelled queries in `text`, their tools resolved to ids by `resolve`.

    Raises:
        DashboardError: no query, a line or object of the wrong shape (named by its line or
            position), a tool `resolve` does not know, or more than `MAX_QUERIES`.
    """
    stripped = text.strip()
    if not stripped:
        raise DashboardError(
            "no labelled queries: paste lines such as `send an email => send_email`, "
            'or JSON Lines such as {"query": "send an email", "expected": ["send_email"]}'
        )
    if stripped.startswith("["):
        try:
            items = parse_json(stripped)
        except json.JSONDecodeError as error:
            raise DashboardError(f"line {error.lineno}: invalid JSON: {error.msg}") from None
        if not isinstance(items, list):
            raise DashboardError("expected a JSON list of {query, expected} objects")
        raw = [(f"item {number}", item) for number, item in enumerate(items, 1)]
    else:
        raw = [
            (f"line {number}", _parse_line(line, f"line {number}"))
            for number, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
    if len(raw) > MAX_QUERIES:
        raise DashboardError(
            f"{len(raw):,} labelled queries; a check runs at most {MAX_QUERIES:,}: take a sample"
        )
    return [_labelled(where, item, resolve) for where, item in raw]


def _parse_line(line: str, where: str) -> Any:
    text = line.strip()
    if text.startswith("{"):
        try:
            return parse_json(text)
        except json.JSONDecodeError as error:
            raise DashboardError(f"{where}: invalid JSON: {error.msg}") from None
    if _ARROW not in text:
        raise DashboardError(
            f"{where}: expected `query => tool, tool` (or a JSON object), got {text[:80]!r}"
        )
    query, tools = text.split(_ARROW, 1)
    return {"query": query.strip(), "expected": [t.strip() for t in tools.split(",")]}


def _labelled(where: str, item: Any, resolve: Callable[[str], str]) -> LabelledQuery:
    if not isinstance(item, dict) or "query" not in item or "expected" not in item:
        raise DashboardError(f"{where}: expected an object with `query` and `expected`")
    query, expected = item["query"], item["expected"]
    if isinstance(expected, str):
        expected = [expected]
    if not isinstance(query, str) or not query.strip():
        raise DashboardError(f"{where}: `query` must be non-empty text")
    if not isinstance(expected, list) or not all(isinstance(t, str) for t in expected):
        raise DashboardError(f"{where}: `expected` must be a tool name or a list of them")
    names = [name for name in expected if name.strip()]
    if not names:
        raise DashboardError(f"{where}: no expected tool for {query!r}")
    try:
        ids = [resolve(name.strip()) for name in names]
    except DashboardError as error:
        raise DashboardError(f"{where}: {error}") from None
    return LabelledQuery(query.strip(), tuple(dict.fromkeys(ids)))
