"""`toolscout search`: the tools a query finds, ranked, with the words that matched."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolscout.cli.catalog_source import CATALOG_HELP, load_catalog
from toolscout.cli.config_file import ConfigOption, tool_search_settings
from toolscout.search.choices import DEFAULT_THRESHOLDS, MAX_K, EngineName

# The command's work is imported when it runs, so that `toolscout --help` stays quick.
if TYPE_CHECKING:
    from toolscout.catalog import Tool
    from toolscout.search import MatchedTerm, SearchResults

_HIGHLIGHT = "bold yellow"
_BAR_CELLS = 10
_DESCRIPTION_CHARS = 160


def search(
    catalog: Annotated[str, typer.Argument(help=CATALOG_HELP, show_default=False)],
    query: Annotated[
        str,
        typer.Argument(
            help="What the tool should do, in words (bm25), or a pattern (regex).",
            show_default=False,
        ),
    ],
    engine: Annotated[
        EngineName | None,
        typer.Option(
            "--engine",
            "-e",
            help="bm25 ranks tools by the query's words; semantic by meaning; hybrid fuses "
            "both; regex matches a pattern; auto is hybrid where the semantic extra is "
            "installed, bm25 elsewhere. Default: the config file's engine, or auto.",
            show_default=False,
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "-k",
            help=f"How many tools to show at most (1-{MAX_K}). "
            "Default: the config file's max_results, or 5.",
            show_default=False,
        ),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            help="Lowest normalized score (0-1) a tool needs to be shown; 0 shows every match. "
            "Default: the config file's threshold, or the engine's own: "
            + ", ".join(
                f"{name} {value}" for name, value in DEFAULT_THRESHOLDS.items() if name != "regex"
            )
            + " (a regex match always scores 1).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the results as JSON instead: the query, the engine, the notice (why "
            "nothing or less was found, or null) and the hits.",
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Search a tool catalog: the best tools for QUERY, best first."""
    from toolscout.search import ToolIndex, pattern_problem

    if not query.strip():
        raise typer.BadParameter(
            'it is empty; say what the tool should do, e.g. "send an email"', param_hint="QUERY"
        )
    settings = tool_search_settings(config)
    engine = engine or settings.engine
    # A pattern the regex engine cannot run is the user's mistake, not a search that found
    # nothing; the engine's notice says what is wrong with it.
    if engine == "regex" and (problem := pattern_problem(query)) is not None:
        raise typer.BadParameter(problem, param_hint="QUERY")
    k = settings.max_results if k is None else k
    threshold = settings.threshold if threshold is None else threshold
    tools = load_catalog(catalog)
    index = ToolIndex(tools, engine=engine)
    results = index.search(query, k=k, threshold=threshold)
    if index.engine_choice.reason is not None:
        Console(stderr=True).print(Text(str(index.engine_choice), style="dim"))
    if as_json:
        output = _as_json(results, engine=index.engine_name)
        typer.echo(json.dumps(output, indent=2, ensure_ascii=False))
        return
    if results:
        Console().print(_results_table(results, catalog_size=len(tools), engine=index.engine_name))
    if results.notice:
        Console().print(Text(results.notice, style="yellow"))


def _results_table(results: SearchResults, *, catalog_size: int, engine: str) -> Table:
    table = Table(
        title=Text(f"{len(results)} of {catalog_size} tools for {results.query!r} ({engine})"),
        title_justify="left",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("tool", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("relevance", no_wrap=True)
    table.add_column("description")
    for hit in results:
        table.add_row(
            str(hit.rank),
            _tool_label(hit.tool, hit.matched_terms),
            f"{hit.score:.2f}",
            _relevance_bar(hit.normalized_score),
            _description(hit.tool, hit.matched_terms),
        )
    return table


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
    from toolscout.search import matched_spans

    rich_text = Text(text)
    for start, end in matched_spans(text, matched_terms):
        rich_text.stylize(_HIGHLIGHT, start, end)
    return rich_text


def _relevance_bar(normalized_score: float) -> Text:
    filled = round(normalized_score * _BAR_CELLS)
    return Text.assemble(
        ("█" * filled, "green"), ("░" * (_BAR_CELLS - filled), "dim"), f" {normalized_score:.2f}"
    )


def _as_json(results: SearchResults, *, engine: str) -> dict[str, Any]:
    return {
        "query": results.query,
        "engine": engine,
        "notice": results.notice,
        "hits": _hits_as_json(results),
    }


def _hits_as_json(results: SearchResults) -> list[dict[str, Any]]:
    return [
        {
            "rank": hit.rank,
            "id": hit.tool.id,
            "name": hit.tool.name,
            "namespace": hit.tool.namespace,
            "score": hit.score,
            "normalized_score": hit.normalized_score,
            "matched_terms": [
                {
                    "query_term": term.query_term,
                    "index_term": term.index_term,
                    "fields": list(term.fields),
                    "kind": term.kind,
                }
                for term in hit.matched_terms
            ],
            "definition": hit.tool.model_dump(mode="json"),
        }
        for hit in results
    ]
