"""`serve()`: the whole gateway, from a config to a running server, until told to stop."""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TextIO

import anyio
from rich.console import Console

from toolscout.gateway.auth import check_exposure, load_tokens
from toolscout.gateway.config import GatewayConfig, Transport
from toolscout.gateway.gateway import Gateway
from toolscout.gateway.http import http_app, serve_http
from toolscout.gateway.progress import StartupProgress
from toolscout.gateway.server import GatewayServer
from toolscout.protocol.policy import ToolPolicy
from toolscout.serving import listen


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
) -> None:
    """Run the gateway: start the upstreams in parallel (showing their progress on stderr),
    then serve over stdio or HTTP until the client disconnects (stdio), or SIGINT or SIGTERM
    arrives. Upstream processes are always shut down on the way out.

    `transport`, `host` and `port` override the config's `gateway` block. `alongside` runs
    with the gateway from the moment its upstreams start (the dashboard does), and is
    cancelled when it stops.

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
    tokens: dict[str, str] = {}
    sock: socket.socket | None = None
    if settings.transport == "http":
        tokens = load_tokens(settings.auth) if settings.auth.configured else {}
        check_exposure(settings.host, tokens)
        # Listening first: an address in use is said at once, not after the upstreams.
        sock = listen(settings.host, settings.port, what="the gateway")
    console = console or Console(stderr=True)
    progress = StartupProgress(config.upstreams(), console)
    gateway = Gateway(config, filter=filter, on_status=progress.on_status, errlog=errlog)
    server = GatewayServer(gateway, settings.transport)
    stop = anyio.Event()
    with contextlib.closing(sock) if sock is not None else contextlib.nullcontext():
        async with anyio.create_task_group() as group:
            group.start_soon(_wait_for_signal, stop)
            async with gateway.running():
                if alongside is not None:
                    group.start_soon(alongside, gateway, server)
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


async def _wait_for_signal(stop: anyio.Event) -> None:
    if sys.platform == "win32":  # pragma: no cover - no signal receiver there
        return
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            stop.set()
            return
