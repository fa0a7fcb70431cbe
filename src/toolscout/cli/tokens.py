"""`toolscout tokens`: what tool search saves per request, against sending every tool."""

from __future__ import annotations

from typing import Annotated, get_args

import typer

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
    model: Annotated[
        str | None,
        typer.Option(
            help="The model the tools go to: shows what enabled: auto decides for its "
            "context window (default: the config file's model).",
            show_default=False,
        ),
    ] = None,
    context_window: Annotated[
        int | None,
        typer.Option(
            "--context-window",
            min=1,
            help="The model's context window in tokens, for a model toolscout does not know "
            "(default: the config file's context_window).",
            show_default=False,
        ),
    ] = None,
    auto_share: Annotated[
        float | None,
        typer.Option(
            "--auto-share",
            help="enabled: auto turns search on above this share of the context window "
            "(default: the config file's auto_share, or 0.1).",
            show_default=False,
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Tokens of tools per request with tool search, against sending every tool (o200k_base).

    With --config, the file's mode, result format and max_results are the defaults, so the
    table shows what that configuration saves. With enabled: auto in the file, or --model
    or --context-window, a last line says whether auto turns tool search on, and why."""
    # Not needed for `--help`, so imported when the command runs.
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from toolscout.protocol import AutoActivation, estimate_tokens

    settings = tool_search_settings(config)
    if auto_share is not None and not 0 < auto_share <= 1:
        raise typer.BadParameter(
            f"must be above 0 and at most 1, got {auto_share}", param_hint="--auto-share"
        )
    activation = None
    if settings.enabled == "auto" or model is not None or context_window is not None:
        activation = AutoActivation(
            share=settings.auto_share if auto_share is None else auto_share,
            model=model or settings.model,
            context_window=context_window or settings.context_window,
        )
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
    if activation is not None:
        decision = activation.decide_for(tools)
        console.print(Text(decision.summary()))
        if settings.enabled != "auto":
            console.print(
                Text(
                    f"(the settings say enabled: {str(settings.enabled).lower()}; this is "
                    "what enabled: auto would decide)",
                    style="dim",
                )
            )
