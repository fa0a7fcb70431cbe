"""`toolscout tokens`: what tool search saves per request, against sending every tool."""

from __future__ import annotations

from typing import Annotated, get_args

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolscout.cli.catalog_source import CATALOG_HELP, load_catalog
from toolscout.cli.config_file import ConfigOption, tool_search_settings
from toolscout.protocol.choices import MAX_RESULTS_LIMIT, Mode, ResultFormat


def tokens(
    catalog: Annotated[str, typer.Argument(help=CATALOG_HELP, show_default=False)],
    mode: Annotated[
        Mode | None,
        typer.Option(
            help="Only this mode (default: the config file's mode, or every mode).",
            show_default=False,
        ),
    ] = None,
    result_format: Annotated[
        ResultFormat | None,
        typer.Option(
            "--format",
            help="Only this result format (default: the config file's, or both).",
            show_default=False,
        ),
    ] = None,
    max_results: Annotated[
        int | None,
        typer.Option(
            "--max-results",
            help=f"Tools one search finds (1-{MAX_RESULTS_LIMIT}). "
            "Default: the config file's max_results, or 5.",
            show_default=False,
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Tokens of tools per request with tool search, against sending every tool (o200k_base).

    With --config, the file's mode, result format and max_results are the defaults, so the
    table shows what that configuration saves."""
    from toolscout.protocol import estimate_tokens  # not needed for `--help`

    settings = tool_search_settings(config)
    if config is not None:
        mode = mode or settings.mode
        result_format = result_format or settings.result_format
    max_results = settings.max_results if max_results is None else max_results
    if not 1 <= max_results <= MAX_RESULTS_LIMIT:
        raise typer.BadParameter(
            f"must be from 1 to {MAX_RESULTS_LIMIT}, got {max_results}", param_hint="--max-results"
        )
    tools = load_catalog(catalog)
    modes = [mode] if mode else list(get_args(Mode))
    formats = [result_format] if result_format else list(get_args(ResultFormat))
    table = Table(
        title=Text(f"Tool tokens per request for {len(tools):,} tools (o200k_base)"),
        title_justify="left",
    )
    for column in ("mode", "format", "without search", "first request", "per request", "saving"):
        table.add_column(column, justify="left" if column in ("mode", "format") else "right")
    for each_mode in modes:
        for each_format in formats:
            estimate = estimate_tokens(
                tools, mode=each_mode, result_format=each_format, max_results=max_results
            )
            table.add_row(
                each_mode,
                each_format,
                f"{estimate.without_search:,}",
                f"{estimate.first_request:,}",
                f"{estimate.per_request:,}",
                f"{estimate.saving:.1%}",
            )
    console = Console()
    console.print(table)
    console.print(
        Text(
            f"per request: the tool list and the meta-tool results once {max_results} tools "
            "are discovered; without search: every tool's definition in each request.",
            style="dim",
        )
    )
