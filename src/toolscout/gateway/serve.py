"""`serve()`: the whole gateway, from a config to a running server, until told to stop."""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TextIO

import anyio
from rich.console import Console

from toolscout.config import load_config, settings_beside
from toolscout.errors import ConfigError
from toolscout.gateway.auth import check_exposure, load_tokens
from toolscout.gateway.config import GatewayConfig, Transport
from toolscout.gateway.gateway import Gateway
from toolscout.gateway.http import http_app, serve_http
from toolscout.gateway.itself import refuse_over_stdio, started_by_itself
from toolscout.gateway.progress import StartupProgress
from toolscout.gateway.reload import ConfigReloader
from toolscout.gateway.server import GatewayServer
from toolscout.protocol.policy import ToolPolicy
from toolscout.serving import listen

logger = logging.getLogger("toolscout.gateway")

_STARTED_BY_ITSELF = (
    "it is this gateway, started again by an entry of its own config (a gateway with the "
    "same servers runs above it)"
)


async def serve(
    config: GatewayConfig,
    *,
    transport: Transport | None = None,
    host: str | None = None,
    port: int | None = None,
    filter: ToolPolicy | None = None,
    console: Console | None = None,
    errlog: TextIO | None = None,
    alongside: Callable[[Gateway, GatewayServer], Coroutine[Any, Any, None]] | None = None,
    config_path: Path | None = None,
) -> None:
    """Run the gateway: start the upstreams in parallel (showing their progress on stderr),
    then serve over stdio or HTTP until the client disconnects (stdio), or SIGINT or SIGTERM
    arrives. Upstream processes are always shut down on the way out.

    `transport`, `host` and `port` override the config's `gateway` block. `alongside` runs
    with the gateway from the moment its upstreams start (the dashboard does), and is
    cancelled when it stops. With `config_path`, the file `config` was read from, the file
    is followed: a change to it (or `SIGHUP`) is applied while the gateway runs, and an entry
    that runs this gateway with this file is skipped.

    Raises:
        ConfigError: HTTP beyond loopback without tokens, tokens that cannot be read, or an
            address that cannot be listened on.
    """
    updates = {
        key: value
        for key, value in (("transport", transport), ("host", host), ("port", port))
        if value is not None
    }
    settings = config.gateway.model_copy(update=updates)
    if started_by_itself(config):
        if settings.transport != "stdio":
            raise ConfigError(f"not serving: {_STARTED_BY_ITSELF}")
        logger.info(
            "not serving: %s; the gateway above is told to skip the entry", _STARTED_BY_ITSELF
        )
        await refuse_over_stdio(_STARTED_BY_ITSELF)
        return
    tokens: dict[str, str] = {}
    sock: socket.socket | None = None
    if settings.transport == "http":
        tokens = load_tokens(settings.auth) if settings.auth.configured else {}
        check_exposure(settings.host, tokens)
        # Listening first: an address in use is said at once, not after the upstreams.
        sock = listen(settings.host, settings.port, what="the gateway")
    if not config.upstreams():
        logger.warning(
            "the config lists no servers to connect to, so the gateway serves no tools%s",
            " until servers are added to it" if config_path is not None else "",
        )
    console = console or Console(stderr=True)
    progress = StartupProgress(config.upstreams(), console)
    gateway = Gateway(
        config, filter=filter, on_status=progress.on_status, errlog=errlog, config_path=config_path
    )
    server = GatewayServer(gateway, settings.transport)
    reloader = None
    if config_path is not None:
        files = [config_path, *_beside(config_path)]
        reloader = ConfigReloader(gateway, files, lambda: load_config(config_path, GatewayConfig))
    stop = anyio.Event()
    with contextlib.closing(sock) if sock is not None else contextlib.nullcontext():
        async with anyio.create_task_group() as group:
            group.start_soon(_follow_signals, stop, reloader)
            async with gateway.running():
                if alongside is not None:
                    group.start_soon(alongside, gateway, server)
                if reloader is not None:
                    group.start_soon(reloader.watch)
                with progress:
                    await _until(stop, gateway.settled)
                if not stop.is_set():
                    console.print(
                        f"toolscout gateway: {progress.summary()}; "
                        f"{gateway.search.index.engine_choice}",
                        style="dim",
                        highlight=False,
                        soft_wrap=True,
                    )
                    if sock is None:
                        console.print(
                            "serving MCP on stdio", style="dim", highlight=False, soft_wrap=True
                        )
                        await _until(stop, server.serve_stdio)
                    else:
                        await serve_http(
                            http_app(server, settings, tokens),
                            sock,
                            settings,
                            stop=stop,
                            on_ready=lambda url: _announce(server, console, url),
                        )
            group.cancel_scope.cancel()


def _beside(config_path: Path) -> list[Path]:
    beside = settings_beside(config_path)
    return [beside] if beside is not None else []


def _announce(server: GatewayServer, console: Console, url: str) -> None:
    server.url = url
    console.print(f"serving MCP on {url}", style="dim", highlight=False, soft_wrap=True)


async def _until(stop: anyio.Event, work: Callable[[], Awaitable[None]]) -> None:
    """Run `work` until it returns or `stop` is set."""
    async with anyio.create_task_group() as group:

        async def cancel_on_stop() -> None:
            await stop.wait()
            group.cancel_scope.cancel()

        group.start_soon(cancel_on_stop)
        await work()
        group.cancel_scope.cancel()


async def _follow_signals(stop: anyio.Event, reloader: ConfigReloader | None) -> None:
    """SIGINT and SIGTERM stop the gateway; SIGHUP reads the config again."""
    if sys.platform == "win32":  # pragma: no cover - no signal receiver there
        return
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
        async for received in signals:
            if received != signal.SIGHUP:
                stop.set()
                return
            if reloader is not None:
                await reloader.reload()
