"""`toolscout serve`: run the MCP gateway a config file describes."""

from __future__ import annotations

import functools
import logging
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from toolscout.errors import ToolScoutError


def serve(
    config: Annotated[
        Path,
        typer.Option(
            "--config",
            "-c",
            help="The gateway's YAML or JSON file; a Claude Desktop, Cursor or Claude Code "
            "file with `mcpServers` works as it is.",
            show_default=False,
        ),
    ],
    transport: Annotated[
        Literal["stdio", "http"] | None,
        typer.Option(
            help="stdio (one client starts the gateway) or http (streamable HTTP); "
            "default: the file's gateway.transport, else stdio.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str | None,
        typer.Option(help="The address to serve HTTP on (default 127.0.0.1).", show_default=False),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(help="The HTTP port (default 8765; 0 picks a free one).", show_default=False),
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log every upstream event.")
    ] = False,
) -> None:
    """Serve many MCP servers as one, showing the model only tool search and pinned tools."""
    if port is not None and not 0 <= port <= 65535:
        raise typer.BadParameter(f"must be from 0 to 65535, got {port}", param_hint="--port")
    try:
        import anyio

        from toolscout.config import load_config
        from toolscout.gateway import GatewayConfig
        from toolscout.gateway import serve as run_gateway
    except ImportError as error:
        if isinstance(error, ToolScoutError):
            raise
        raise ToolScoutError(
            f"the gateway cannot start ({error}); install the mcp extra: "
            "pip install 'toolscout[mcp]'"
        ) from None
    settings = load_config(config, GatewayConfig)
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("toolscout: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    if verbose:
        logging.getLogger("toolscout").setLevel(logging.INFO)
    try:
        anyio.run(
            functools.partial(run_gateway, settings, transport=transport, host=host, port=port)
        )
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        raise typer.Exit(130) from None


class _StderrHandler(logging.Handler):
    """Writes to whatever `sys.stderr` is when a record comes, so that the start-up display,
    which takes stderr over while it runs, prints log lines above itself."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # logging must never take the gateway down
            self.handleError(record)
