"""How `toolscout search` shows its answer: tables on the terminal, or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolscout.search import matched_spans

if TYPE_CHECKING:
    from toolscout.catalog import Tool
    from toolscout.protocol import FoundTool, LeftOutTool, QueryAnswer, SearchAnswer
    from toolscout.search import EngineChoice, MatchedTerm, SearchHit

_HIGHLIGHT = "bold yellow"
_BAR_CELLS = 10
_DESCRIPTION_CHARS = 160
#: Left-out tools the table shows per reason that can hold many (`--json` lists them all).
_LEFT_OUT_SHOWN = 3
_MANY_LEFT_OUT = ("below_threshold", "past_max_results")


def show_choice(choice: EngineChoice) -> None:
    """The engine `auto` chose, and why, on stderr."""
    Console(stderr=True).print(Text(str(choice), style="dim"))


def show(answer: SearchAnswer, *, engine: str, catalog_size: int, mode: str, as_json: bool) -> None:
    """The answer to one query on stdout."""
    (result,) = answer.queries
    if as_json:
        output = _as_json(answer, engine=engine, mode=mode)
        typer.echo(json.dumps(output, indent=2, ensure_ascii=False))
        return
    console = Console()
    if result.found:
        console.print(_results_table(result, catalog_size=catalog_size, engine=engine))
    if result.notice:
        console.print(Text(result.notice, style="yellow"))
    if result.left_out:
        console.print(_left_out_table(result.left_out))


def _results_table(result: QueryAnswer, *, catalog_size: int, engine: str) -> Table:
    table = Table(
        title=Text(f"{len(result.found)} of {catalog_size} tools for {result.query!r} ({engine})"),
        title_justify="left",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("tool", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("relevance", no_wrap=True)
    table.add_column("description")
    for position, entry in enumerate(result.found, start=1):
        terms = _terms(entry.hit)
        table.add_row(
            str(position),
            _tool_label(entry.tool, terms),
            f"{entry.hit.score:.2f}" if entry.hit is not None else "-",
            _relevance_bar(entry.normalized_score),
            _description(entry.tool, terms),
        )
    return table


def _left_out_table(left_out: Sequence[LeftOutTool]) -> Table:
    """The left-out tools: every one pinned, filtered or returned by an earlier query, and
    the first few below the threshold and past max_results; a caption counts the rest."""
    shown = []
    counts = dict.fromkeys(_MANY_LEFT_OUT, 0)
    for entry in left_out:
        if entry.reason in counts:
            counts[entry.reason] += 1
            if counts[entry.reason] > _LEFT_OUT_SHOWN:
                continue
        shown.append(entry)
    more = len(left_out) - len(shown)
    others = f"{len(left_out)} other tool{'s' if len(left_out) > 1 else ''}"
    table = Table(
        title=Text(f"Left out: {others} the ranking has"),
        title_justify="left",
        caption=Text(f"and {more} more; --json lists them all", style="dim") if more else None,
        caption_justify="left",
    )
    table.add_column("ranked", justify="right", no_wrap=True)
    table.add_column("tool", no_wrap=True)
    table.add_column("relevance", justify="right", no_wrap=True)
    table.add_column("why")
    for entry in shown:
        table.add_row(
            str(entry.hit.rank),
            _tool_label(entry.tool, ()),
            f"{entry.hit.normalized_score:.2f}",
            entry.detail,
        )
    return table


def _terms(hit: SearchHit | None) -> Sequence[MatchedTerm]:
    """The matched terms of a hit; none for an exact name the ranking does not have."""
    return hit.matched_terms if hit is not None else ()


def _tool_label(tool: Tool, matched_terms: Sequence[MatchedTerm]) -> Text:
    """The tool id, its namespace dimmed and the matched words of its name highlighted."""
    if not tool.id.endswith(tool.name):
        return _highlighted(tool.id, matched_terms)
    namespace_part = tool.id.removesuffix(tool.name)
    return Text.assemble((namespace_part, "dim"), _highlighted(tool.name, matched_terms))


def _description(tool: Tool, matched_terms: Sequence[MatchedTerm]) -> Text:
    """The description on one line, cut before highlighting so a long one costs no more."""
    text = " ".join(tool.description.split())
    if len(text) > _DESCRIPTION_CHARS:
        text = text[: _DESCRIPTION_CHARS - 1].rstrip() + "…"
    return _highlighted(text, matched_terms)


def _highlighted(text: str, matched_terms: Sequence[MatchedTerm]) -> Text:
    rich_text = Text(text)
    for start, end in matched_spans(text, matched_terms):
        rich_text.stylize(_HIGHLIGHT, start, end)
    return rich_text


def _relevance_bar(normalized_score: float) -> Text:
    filled = round(normalized_score * _BAR_CELLS)
    return Text.assemble(
        ("█" * filled, "green"), ("░" * (_BAR_CELLS - filled), "dim"), f" {normalized_score:.2f}"
    )


def _as_json(answer: SearchAnswer, *, engine: str, mode: str) -> dict[str, Any]:
    (result,) = answer.queries
    return {
        "query": result.query,
        "engine": engine,
        "mode": mode,
        "max_results": answer.max_results,
        "threshold": answer.threshold,
        "notice": result.notice,
        "hits": [_hit_as_json(position, entry) for position, entry in enumerate(result.found, 1)],
        "left_out": [_left_out_as_json(entry) for entry in result.left_out],
    }


def _hit_as_json(position: int, entry: FoundTool) -> dict[str, Any]:
    return {
        "rank": position,
        "id": entry.tool.id,
        "name": entry.tool.name,
        "namespace": entry.tool.namespace,
        "score": entry.hit.score if entry.hit is not None else None,
        "normalized_score": entry.normalized_score,
        "matched_terms": [
            {
                "query_term": term.query_term,
                "index_term": term.index_term,
                "fields": list(term.fields),
                "kind": term.kind,
            }
            for term in _terms(entry.hit)
        ],
        "definition": entry.tool.model_dump(mode="json"),
    }


def _left_out_as_json(entry: LeftOutTool) -> dict[str, Any]:
    return {
        "ranked": entry.hit.rank,
        "id": entry.tool.id,
        "name": entry.tool.name,
        "namespace": entry.tool.namespace,
        "score": entry.hit.score,
        "normalized_score": entry.hit.normalized_score,
        "reason": entry.reason,
        "detail": entry.detail,
    }
