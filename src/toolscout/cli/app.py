"""The `toolscout` command: its subcommands, and how a user's mistake is reported."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

import toolscout
from toolscout.cli.dashboard import dashboard
from toolscout.cli.inspect import inspect
from toolscout.cli.search import search
from toolscout.cli.serve import serve
from toolscout.cli.tokens import tokens
from toolscout.errors import ToolScoutError

# What a value that does not parse should have been, by pydantic's error type (typer parses
# option values with pydantic, whose own wording is about "input" and "parsing").
_EXPECTED_VALUES = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
}


def _without_flag_placeholders(params: list[Any]) -> list[Any]:
    """The parameters, each flag (`--json`, `--help`) without the `<bool>` typer would show
    after it in the help: a flag takes no value."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    return params


class _Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _without_flag_placeholders(super().get_params(ctx))


class _MistakesOnOneLine(TyperGroup):
    """Reports a user's mistake as one line on stderr with exit status 2, never a traceback.

    This is the only place errors are caught: anything else is a bug, and shows as one.
    """

    def get_params(self, ctx: Any) -> list[Any]:
        return _without_flag_placeholders(super().get_params(ctx))

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.TyperException as error:  # bad option values, missing arguments
            command = " ".join(filter(None, [ctx.command_path, ctx.invoked_subcommand]))
            _fail(f"{_in_our_words(error)} (see `{command} --help`)", error.exit_code)
        except ToolScoutError as error:
            _fail(str(error))


def _in_our_words(error: typer.TyperException) -> str:
    """The mistake as toolscout says it: for a value that does not parse, what the option
    expects and what it got, rather than the parser's own wording."""
    # Imported here: typer only loads pydantic once it parses a value, and `--help` does not.
    from pydantic import ValidationError

    cause = error.__cause__
    param = getattr(error, "param", None)
    if isinstance(cause, ValidationError) and isinstance(param, TyperOption):
        problem = cause.errors()[0]
        expected = _EXPECTED_VALUES.get(problem["type"])
        if expected is not None:
            name = max(param.opts, key=len)  # --threshold rather than -t
            return f"{name} must be {expected}, got {problem['input']!r}"
    return error.format_message()


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
    # Plain help: rich's help panels cost more start-up (rich, markdown-it) than the rest of
    # `toolscout --help` together; rich stays for what the commands print.
    rich_markup_mode=None,
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


app.command(cls=_Command)(search)
app.command(cls=_Command)(inspect)
app.command(cls=_Command)(tokens)
app.command(cls=_Command)(serve)
app.command(cls=_Command)(dashboard)


#: Commands that hold nothing to close once they have printed (what their caches write is
#: committed; `serve` has stopped its upstreams and closed its store by the time it returns):
#: after them the console script exits without the interpreter's teardown, which frees every
#: object of the catalog and the index one by one and costs a tenth of a second or more, a
#: sixth of a search, and half a second after a gateway.
_QUICK_COMMANDS = frozenset({"search", "inspect", "tokens", "serve"})


def main() -> None:
    """Run the `toolscout` command line (the console script)."""
    try:
        app()
    except SystemExit as done:
        if done.code in (None, 0) and sys.argv[1:2] and sys.argv[1] in _QUICK_COMMANDS:
            _exit_at_once()
        raise


def _exit_at_once() -> NoReturn:
    """Exit with status 0 now, once what was printed is written out."""
    for stream in (sys.stdout, sys.stderr):
        # A reader that has gone, or a closed stream: nothing more can be said to it.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)
