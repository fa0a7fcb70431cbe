"""Token savings: tool tokens per request with tool search, against sending every tool.

For the bundled catalog and for catalogs of 100, 1,000 and 10,000 tools (the BFCL pool sampled
or repeated under new names, as `benchmarks/speed.py` does), in every mode and result format.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

from benchmarks.report import Table
from benchmarks.speed import scaled_tools
from toolscout.catalog import Tool
from toolscout.protocol import Mode, ResultFormat, TokenEstimate, estimate_tokens

SIZES = (100, 1_000, 10_000)
#: The saving tool search aims for, from 100 tools up.
TARGET = 0.9


def run_tokens(tools: Sequence[Tool], sizes: Sequence[int] = SIZES) -> Table:
    catalogs = [
        ("bundled", list(tools)),
        *((f"{size:,}", scaled_tools(tools, size)) for size in sizes),
    ]
    rows: list[tuple[str, TokenEstimate]] = [
        (label, estimate_tokens(catalog, mode=mode, result_format=result_format))
        for label, catalog in catalogs
        for mode in get_args(Mode)
        for result_format in get_args(ResultFormat)
    ]
    return _table(rows)


def _table(rows: Sequence[tuple[str, TokenEstimate]]) -> Table:
    table = Table(
        title="Token savings per request",
        columns=[
            "catalog",
            "tools",
            "mode",
            "format",
            "without search",
            "first request",
            "per request",
            "saving",
        ],
    )
    for label, estimate in rows:
        table.rows.append(
            [
                label,
                f"{estimate.tools:,}",
                estimate.mode,
                estimate.result_format,
                f"{estimate.without_search:,}",
                f"{estimate.first_request:,}",
                f"{estimate.per_request:,}",
                f"{estimate.saving:.1%}" + ("" if estimate.saving >= TARGET else " (under 90%)"),
            ]
        )
    table.notes = [
        "o200k_base tokens of tool definitions in OpenAI's chat format (toolscout.catalog.tokens).",
        "without search: every tool's definition, in every request.",
        "first request: pinned tools and meta-tools, before anything is discovered.",
        "per request: once one search has discovered 5 tools, the tool list plus the meta-tool "
        "results the conversation carries; averaged over 20 groups of tools spread through the "
        "catalog.",
        "lazy lists every deferred tool's name and first sentence in its description, so its "
        "cost grows with the catalog.",
    ]
    return table
