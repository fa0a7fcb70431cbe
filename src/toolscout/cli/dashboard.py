"""`toolscout dashboard`: the local web page to tune tool search by looking."""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from toolscout.cli.catalog_source import CATALOG_HELP, load_catalog

TOKEN_ENV = "TOOLSCOUT_DASHBOARD_TOKEN"
DEFAULT_CONFIG = Path("toolscout.yaml")


def dashboard(
    catalog: Annotated[
        str | None,
        typer.Argument(
            help=CATALOG_HELP + " Not needed with a gateway's --config: its servers' tools "
            "are shown.",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="The config file whose tool_search block the page starts from and saves to "
            f"(default: ./{DEFAULT_CONFIG}; created on saving if missing). A gateway's file "
            "(with servers) runs the gateway too, over HTTP, and shows its upstreams and "
            "sessions.",
            show_default=False,
            dir_okay=False,
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(help="The address to serve on; beyond loopback, a token is required."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port (0 picks a free one).")] = 8770,
    token_env: Annotated[
        str,
        typer.Option(help="The environment variable holding the token every request must carry."),
    ] = TOKEN_ENV,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the page in a web browser.")
    ] = False,
) -> None:
    """Serve a local page to tune tool search: settings, pinned tools, live queries, tokens,
    a retrieval check, and saving the config file."""
    if not 0 <= port <= 65535:
        raise typer.BadParameter(f"must be from 0 to 65535, got {port}", param_hint="--port")
    # Without the dashboard extra, this import is one line naming it.
    from rich.console import Console

    from toolscout.dashboard.serve import announce, serve_dashboard

    token = os.environ.get(token_env, "").strip() or None
    console = Console(stderr=True)
    on_ready = announce(console, open_browser)
    if catalog is None and config is not None and _has_servers(config):
        _run_with_gateway(config, host=host, port=port, token=token, on_ready=on_ready)
        return
    if catalog is None:
        raise typer.BadParameter(
            "give a tool catalog (a file, or `demo`), or --config with a gateway's file",
            param_hint="CATALOG",
        )
    from toolscout.cli.config_file import tool_search_settings
    from toolscout.dashboard import ConfigFile, Dashboard

    config_path = config or DEFAULT_CONFIG
    # A file that does not exist yet starts from the defaults; "save" creates it.
    settings = tool_search_settings(config_path if config_path.exists() else None)
    board = Dashboard(load_catalog(catalog), settings, ConfigFile(config_path), source=catalog)
    _run_until_interrupted(
        functools.partial(
            serve_dashboard, board, host=host, port=port, token=token, on_ready=on_ready
        )
    )


def _has_servers(config: Path) -> bool:
    """Whether the file describes a gateway (a `servers` or `mcpServers` section). A file
    that cannot be read is left for the config loader to report."""
    import yaml

    from toolscout.safe_yaml import parse_yaml

    try:
        data: Any = parse_yaml(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and ("servers" in data or "mcpServers" in data)


def _run_with_gateway(
    config: Path, *, host: str, port: int, token: str | None, on_ready: Callable[[str], None]
) -> None:
    # Without the mcp extra, importing toolscout.gateway raises one line naming it.
    from toolscout.config import load_config
    from toolscout.dashboard import ConfigFile, Dashboard
    from toolscout.dashboard.gateway import RunningGateway
    from toolscout.dashboard.serve import serve_dashboard
    from toolscout.gateway import GatewayConfig, serve
    from toolscout.gateway.gateway import Gateway
    from toolscout.gateway.server import GatewayServer

    settings = load_config(config, GatewayConfig)

    async def beside(gateway: Gateway, server: GatewayServer) -> None:
        board = Dashboard(
            gateway.catalog,
            settings.tool_search,
            ConfigFile(config),
            source=f"gateway {config}",
            gateway=RunningGateway(gateway, server),
        )
        await serve_dashboard(board, host=host, port=port, token=token, on_ready=on_ready)

    # The gateway follows the file: what the page saves applies to it at once.
    _run_until_interrupted(
        functools.partial(serve, settings, transport="http", alongside=beside, config_path=config)
    )


def _run_until_interrupted(main: Callable[[], Awaitable[None]]) -> None:
    import anyio  # comes with starlette, which the dashboard extra brings

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
