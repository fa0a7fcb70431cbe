"""`toolscout serve`: run the MCP gateway a config file describes."""

from __future__ import annotations

import functools
import io
import json
import logging
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from toolscout.errors import require_extra

LogFormat = Literal["text", "json"]


def serve(
    config: Annotated[
        Path,
        typer.Option(
            "--config",
            "-c",
            help="The gateway's YAML or JSON file; a Claude Desktop, Cursor or Claude Code "
            "file with `mcpServers` works as it is. It is followed: a change (or SIGHUP) "
            "applies while the gateway runs.",
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
    log_format: Annotated[
        LogFormat,
        typer.Option(
            "--log-format",
            help="text (lines for a person) or json (one JSON object per line, for a log "
            "collector), on stderr.",
        ),
    ] = "text",
) -> None:
    """Serve many MCP servers as one, showing the model only tool search and pinned tools."""
    if port is not None and not 0 <= port <= 65535:
        raise typer.BadParameter(f"must be from 0 to 65535, got {port}", param_hint="--port")
    with require_extra("mcp", feature="toolscout serve"):
        import anyio
        from rich.console import Console

        from toolscout.config import load_config
        from toolscout.gateway import GatewayConfig
        from toolscout.gateway import serve as run_gateway
        from toolscout.gateway.gateway import ACTIVATION_LOGGER
    settings = load_config(config, GatewayConfig)
    handler = _StderrHandler()
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter("toolscout: %(message)s")
    )
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    if verbose:
        logging.getLogger("toolscout").setLevel(logging.INFO)
    # Whether tool search is on is logged even when quiet: one line at start, one per flip.
    logging.getLogger(ACTIVATION_LOGGER).setLevel(logging.INFO)
    console = Console(file=_JsonLines(), stderr=True) if log_format == "json" else None
    try:
        anyio.run(
            functools.partial(
                run_gateway,
                settings,
                transport=transport,
                host=host,
                port=port,
                console=console,
                config_path=config,
            )
        )
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        raise typer.Exit(130) from None


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object: `time` (ISO 8601, UTC), `level`, `logger`,
    `message`, and `traceback` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class _JsonLines(io.StringIO):
    """Where the gateway's console lines go with `--log-format json`: each line becomes a
    JSON object like a log record's, so that all of stderr is JSON."""

    def __init__(self) -> None:
        super().__init__()
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.strip():
                entry = {
                    "time": _iso(time.time()),
                    "level": "info",
                    "logger": "toolscout.gateway",
                    "message": line.rstrip(),
                }
                sys.stderr.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return False


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(timestamp)) + (
        f".{int(timestamp % 1 * 1000):03d}Z"
    )


class _StderrHandler(logging.Handler):
    """Writes to whatever `sys.stderr` is when a record comes, so that the start-up display,
    which takes stderr over while it runs, prints log lines above itself."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # logging must never take the gateway down
            self.handleError(record)
