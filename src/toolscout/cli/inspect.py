"""`toolscout inspect`: what a catalog holds, what it costs in tokens, and what to fix."""

from __future__ import annotations

from typing import Annotated

import typer

from toolscout.cli.catalog_source import CATALOG_HELP, load_catalog


def inspect(
    catalog: Annotated[str, typer.Argument(help=CATALOG_HELP, show_default=False)],
    show_all: Annotated[
        bool, typer.Option("--all", help="List every lint issue, not the first few of each kind.")
    ] = False,
) -> None:
    """Inspect a tool catalog: namespaces, token cost, name collisions and lint."""
    # The work and rich are imported when the command runs, so that `--help` stays quick.
    from toolscout.cli.inspect_report import print_report

    print_report(list(load_catalog(catalog)), show_all=show_all)
