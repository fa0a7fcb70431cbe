"""Preloading: round trips and tool tokens per conversation, with and without it.

Each conversation is one BFCL question (single- and multi-function cases), sent as the user
message to a scripted model over the OpenAI chat shape. The model behaves the same in every
configuration: when every tool its question needs is in the tool list, it calls them, and one
more model call reads their results and answers. Otherwise it calls `search_tools` with the
question, then (`load` mode) `load_tool` with the needed tools the result names, or (`proxy`)
`call_tool` once the results carried their definitions. A needed tool that search does not
return ends the conversation without it (the model answers without the tool).

Catalogs: the BFCL pool (1,647 tools) and 100 and 10,000 tools drawn from it, or from renamed
copies of it (`benchmarks/speed.py`'s `scaled_tools`); a conversation is kept only when its
needed tools are in the catalog. Every run uses the BM25 engine: hybrid would embed 10,000
tools on a shared two-core machine, and preloading ranks with whichever engine is configured.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.bfcl import BfclData, Query, Split, spread
from benchmarks.report import Table
from benchmarks.speed import scaled_tools
from toolscout.catalog import Catalog, Tool
from toolscout.catalog.tokens import count_tokens
from toolscout.protocol import Mode, PreloadConfig, ToolCall, ToolSearch
from toolscout.protocol.stats import definition_tokens
from toolscout.protocol.view import wire_name
from toolscout.search import ToolIndex

SIZES = (100, 1_647, 10_000)
#: The most model calls a scripted conversation may make.
MAX_MODEL_CALLS = 6


@dataclass(frozen=True)
class Setup:
    """One configuration a conversation runs under."""

    mode: Mode
    preload: PreloadConfig

    @property
    def label(self) -> str:
        if not self.preload.enabled:
            return "off"
        return f"{self.preload.max_tools} tools, {self.preload.max_tokens:,} tokens"


OFF = PreloadConfig(enabled=False)
BASELINES = (Setup("load", OFF), Setup("auto_load", OFF), Setup("proxy", OFF))


@dataclass(frozen=True, slots=True)
class Conversation:
    """How one scripted conversation went."""

    preloaded: bool
    """Every needed tool was in the first request's tool list."""
    reached: bool
    """Every needed tool became callable."""
    model_calls: int
    tool_tokens: int
    """Tokens of the tool lists of every model call, plus the meta-tools' results."""


@dataclass(frozen=True, slots=True)
class Row:
    catalog: str
    tools: int
    setup: Setup
    conversations: int
    preloaded: float
    reached: float
    model_calls: float
    tool_tokens: float
    off_topic_preloads: float | None
    """Tools preloaded per question no tool of its BFCL case serves; None without preload."""


def run_preload(
    data: BfclData,
    split: Split,
    *,
    sizes: Sequence[int] = SIZES,
    setups: Sequence[Setup] | None = None,
    limit: int | None = None,
) -> Table:
    """The table for `split`'s questions (at most `limit` per catalog, spread evenly)."""
    chosen = list(setups or (*BASELINES, *preloading_setups(DEFAULT_PRELOAD)))
    rows = []
    for size in sizes:
        tools = list(data.tools) if size == len(data.tools) else scaled_tools(data.tools, size)
        names = {tool.name for tool in tools}
        questions = [query for query in data.queries_in(split) if query.relevant <= names]
        off_topic = spread(data.irrelevance_queries_in(split), limit)
        rows += measure(f"{size:,}", tools, spread(questions, limit), off_topic, chosen)
    return _table(rows, split)


DEFAULT_PRELOAD = PreloadConfig()


def preloading_setups(preload: PreloadConfig) -> list[Setup]:
    """`preload` in the modes that preload."""
    return [Setup("load", preload), Setup("auto_load", preload)]


def measure(
    label: str,
    tools: Sequence[Tool],
    questions: Sequence[Query],
    off_topic: Sequence[Query],
    setups: Sequence[Setup],
) -> list[Row]:
    """One row per setup over one catalog; the index is built once and shared."""
    catalog = Catalog(tools)
    index = ToolIndex(catalog, engine="bm25")
    rows = []
    for setup in setups:
        search = ToolSearch(
            catalog, index=index, engine="bm25", mode=setup.mode, preload=setup.preload
        )
        outcomes = [asyncio.run(converse(search, query)) for query in questions]
        count = max(len(outcomes), 1)
        wasted = None
        if setup.preload.enabled:
            wasted = sum(asyncio.run(first_list_size(search, query)) for query in off_topic)
            wasted /= max(len(off_topic), 1)
        rows.append(
            Row(
                label,
                len(tools),
                setup,
                len(outcomes),
                sum(outcome.preloaded for outcome in outcomes) / count,
                sum(outcome.reached for outcome in outcomes) / count,
                sum(outcome.model_calls for outcome in outcomes) / count,
                sum(outcome.tool_tokens for outcome in outcomes) / count,
                wasted,
            )
        )
    return rows


async def converse(search: ToolSearch, query: Query) -> Conversation:
    """One scripted conversation for `query` (see the module docstring)."""
    names = search.config.meta_tool_names
    needed = {wire_name(tool_id) for tool_id in query.relevant}  # as the model sees them
    messages: list[dict[str, object]] = [{"role": "user", "content": query.text}]
    model_calls = tool_tokens = 0
    preloaded = searched = False
    revealed: set[str] = set()
    while model_calls < MAX_MODEL_CALLS:
        listed = await search.aprepare(None, messages)
        list_tokens = sum(map(definition_tokens, listed))
        model_calls += 1
        tool_tokens += list_tokens
        callable_now = {definition.name for definition in listed} | revealed
        if model_calls == 1:
            preloaded = needed <= callable_now
        if needed <= callable_now:
            # It calls them; one more model call reads their results and answers.
            return Conversation(preloaded, True, model_calls + 1, tool_tokens + list_tokens)
        if searched:
            break
        searched = True
        call = ToolCall(names.search, {"queries": [query.text]}, id="search")
        result = await search.aexecute(call, messages=messages)
        messages += _exchange(call, result.content)
        tool_tokens += count_tokens(result.content)
        found = {name for name in needed if json.dumps(name) in result.content}
        if search.config.mode == "proxy":
            revealed = found
        elif search.config.mode == "load" and found:
            model_calls += 1
            tool_tokens += list_tokens
            call = ToolCall(names.load, {"names": sorted(found)}, id="load")
            result = await search.aexecute(call, messages=messages)
            messages += _exchange(call, result.content)
            tool_tokens += count_tokens(result.content)
    return Conversation(preloaded, False, model_calls + 1, tool_tokens)


async def first_list_size(search: ToolSearch, query: Query) -> int:
    """How many tools the first request for `query` preloads."""
    listed = await search.aprepare(None, [{"role": "user", "content": query.text}])
    return sum(definition.kind == "preloaded" for definition in listed)


def _exchange(call: ToolCall, content: str) -> list[dict[str, object]]:
    """The model's call and its result, as OpenAI chat messages."""
    arguments = json.dumps(call.arguments)
    return [
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call.id, "content": content},
    ]


def _table(rows: Sequence[Row], split: Split) -> Table:
    table = Table(
        title=f"Preloading: round trips and tool tokens per conversation (BFCL {split})",
        columns=[
            "catalog",
            "mode",
            "preload",
            "conversations",
            "needed tools preloaded",
            "needed tools reached",
            "model calls",
            "tool tokens",
            "off-topic: tools preloaded",
        ],
    )
    for row in rows:
        table.rows.append(
            [
                row.catalog,
                row.setup.mode,
                row.setup.label,
                f"{row.conversations:,}",
                f"{row.preloaded:.1%}",
                f"{row.reached:.1%}",
                f"{row.model_calls:.2f}",
                f"{row.tool_tokens:,.0f}",
                "–" if row.off_topic_preloads is None else f"{row.off_topic_preloads:.2f}",
            ]
        )
    table.notes = [
        "One scripted conversation per BFCL question whose needed tools are in the catalog "
        "(single- and multi-function cases), BM25 engine, json results.",
        "needed tools preloaded: every tool the question needs was in the first request's list.",
        "needed tools reached: they all became callable (preloaded, or found by one search).",
        "model calls: per conversation, the final answer included (2 is the least: call, answer).",
        "tool tokens: per conversation, o200k_base tokens of the tool lists of every model call "
        "plus the meta-tools' results.",
        "off-topic: tools preloaded per BFCL irrelevance question (no tool should serve it).",
        "100 and 10,000 tools: drawn from the BFCL pool and renamed copies of it, so at 10,000 "
        "most tools have a twin with the same description.",
    ]
    return table


#: The budgets tried on the dev split to choose `PreloadConfig`'s defaults.
TUNING_GRID = tuple(
    PreloadConfig(enabled=True, max_tools=tools, max_tokens=tokens)
    for tools in (1, 3, 5)
    for tokens in (500, 1_500, 4_000)
)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from rich.console import Console

    from benchmarks.bfcl import load_bfcl
    from benchmarks.report import to_rich

    parser = argparse.ArgumentParser(prog="python -m benchmarks.preload", description=__doc__)
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--limit", type=int, help="questions per catalog (default: all)")
    parser.add_argument(
        "--tune", action="store_true", help="try the budgets of TUNING_GRID (use on dev)"
    )
    args = parser.parse_args(argv)
    setups: list[Setup] = list(BASELINES)
    for preload in TUNING_GRID if args.tune else (DEFAULT_PRELOAD,):
        setups += preloading_setups(preload)
    table = run_preload(load_bfcl(), args.split, sizes=args.sizes, setups=setups, limit=args.limit)
    Console(width=160).print(to_rich(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
