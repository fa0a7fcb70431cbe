"""The `toolscout` command: its subcommands, and how a user's mistake is reported."""

from __future__ import annotations

from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

import toolscout
from toolscout.cli.dashboard import dashboard
from toolscout.cli.inspect import inspect
from toolscout.cli.search import search
from toolscout.cli.serve import serve
from toolscout.cli.tokens import tokens
from toolscout.errors import ToolScoutError


class _MistakesOnOneLine(TyperGroup):
    """Reports a user's mistake as one line on stderr with exit status 2, never a traceback.

    This is the only place errors are caught: anything else is a bug, and shows as one.
    """

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.TyperException as error:  # bad option values, missing arguments
            command = " ".join(filter(None, [ctx.command_path, ctx.invoked_subcommand]))
            _fail(f"{error.format_message()} (see `{command} --help`)", error.exit_code)
        except ToolScoutError as error:
            _fail(str(error))


def _fail(message: str, exit_code: int = 2) -> NoReturn:
    one_line = "; ".join(line.strip() for line in message.splitlines() if line.strip())
    typer.echo(f"error: {one_line}", err=True)
    raise typer.Exit(exit_code)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"toolscout {toolscout.__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=_MistakesOnOneLine,
    name="toolscout",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def _version(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print toolscout's version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Find the right tools among thousands: search a tool catalog, inspect its quality,
    count what tool search saves."""


app.command()(search)
app.command()(inspect)
app.command()(tokens)
app.command()(serve)
app.command()(dashboard)


def main() -> None:
    """Run the `toolscout` command line (the console script)."""
    app()
