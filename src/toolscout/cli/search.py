"""`toolscout search`: what `search_tools` returns for a query, ranked, with the words that
matched, and the tools the ranking has that it leaves out, and why (`ToolSearch.find`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolscout.cli.catalog_source import CATALOG_HELP, load_catalog
from toolscout.cli.config_file import ConfigOption, tool_search_settings
from toolscout.protocol.choices import MAX_RESULTS_LIMIT
from toolscout.search.choices import DEFAULT_THRESHOLDS, EngineName

# The command's work (and rich, which shows its answer) is imported when it runs, so that
# `toolscout --help` stays quick.
if TYPE_CHECKING:
    from toolscout.config import ToolSearchSettings

#: The option that overrides each setting, to name it in a mistake.
_OPTION_OF = {"engine": "--engine", "max_results": "-k", "threshold": "--threshold"}


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
            help=f"The max_results to search with: how many tools search_tools returns at "
            f"most (1-{MAX_RESULTS_LIMIT}; tools ranked after them are listed as left out). "
            "Default: the config file's max_results, or 5.",
            show_default=False,
        ),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            help="Lowest normalized score (0-1) the best tool needs for search_tools to "
            "return anything; 0 returns every match. Default: the config file's threshold, "
            "or the engine's own: "
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
            help="Print the answer as JSON instead: the query, the engine, mode, max_results "
            "and threshold it ran with, the notice (why nothing was found, or null), the hits "
            "and the tools left out, each with why.",
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """What search_tools returns for QUERY, best first, and the tools it leaves out and why.

    Searches as tool search does with the config file's settings (its engine, mode,
    max_results, threshold and always_available tools); --engine, -k and --threshold
    override them. Pinned tools are never returned: they are sent with every request."""
    from toolscout.cli.search_view import show, show_choice
    from toolscout.protocol import ContextStore
    from toolscout.search import pattern_problem

    if not query.strip():
        raise typer.BadParameter(
            'it is empty; say what the tool should do, e.g. "send an email"', param_hint="QUERY"
        )
    settings = _with_options(
        tool_search_settings(config), engine=engine, max_results=k, threshold=threshold
    )
    # A pattern the regex engine cannot run is the user's mistake, not a search that found
    # nothing; the engine's notice says what is wrong with it.
    if settings.engine == "regex" and (problem := pattern_problem(query)) is not None:
        raise typer.BadParameter(problem, param_hint="QUERY")
    tools = load_catalog(catalog)
    # The command only asks: no store is opened, whatever the file says.
    tool_search = settings.build(tools, store=ContextStore())
    choice = tool_search.index.engine_choice
    # Before the search: a first hybrid search embeds the catalog, and its progress lines
    # follow the line that says which engine is embedding and why.
    if choice.reason is not None:
        show_choice(choice)
    answer = tool_search.find(query)
    show(
        answer,
        engine=choice.name,
        catalog_size=len(tools),
        mode=settings.mode,
        as_json=as_json,
    )


def _with_options(settings: ToolSearchSettings, **options: Any) -> ToolSearchSettings:
    """`settings` with the options given on the command line, validated as the same keys of
    a config file are; a mistake names the option.

    Raises:
        typer.BadParameter: a value the setting does not take.
    """
    from pydantic import ValidationError

    from toolscout.config.messages import problem

    given = {name: value for name, value in options.items() if value is not None}
    if not given:
        return settings
    data = settings.model_dump(by_alias=True)
    data.update(given)
    try:
        return type(settings).model_validate(data)
    except ValidationError as error:
        detail = error.errors(include_url=False)[0]
        option = _OPTION_OF.get(str(detail["loc"][0]), str(detail["loc"][0]))
        raise typer.BadParameter(problem(detail, type(settings)), param_hint=option) from None
