"""Serving the dashboard: on its own over a catalog, or beside a gateway it shows."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import webbrowser
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from rich.console import Console

from toolscout.dashboard.app import check_exposure, dashboard_app
from toolscout.dashboard.dashboard import Dashboard
from toolscout.errors import require_extra
from toolscout.serving import listen, url_host

with require_extra("dashboard", feature="toolscout.dashboard"):
    import uvicorn

DEFAULT_PORT = 8770


def page_url(sock: socket.socket, host: str, token: str | None) -> str:
    port = sock.getsockname()[1]
    return f"http://{url_host(host)}:{port}/" + (f"?token={token}" if token else "")


async def serve_dashboard(
    dashboard: Dashboard,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    token: str | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the dashboard until cancelled; `on_ready` gets the page's URL once it listens.

    Raises:
        ConfigError: beyond loopback without a token, or an address that cannot be used.
    """
    check_exposure(host, token)
    with contextlib.closing(listen(host, port, what="the dashboard")) as sock:
        app = dashboard_app(dashboard, host=host, token=token)
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        server = _Server(config)
        if on_ready is not None:
            on_ready(page_url(sock, host, token))
        try:
            await server.serve(sockets=[sock])
        finally:
            server.should_exit = True


def announce(console: Console, open_browser: bool) -> Callable[[str], None]:
    """Prints the page's URL, and opens it in a browser when asked; where none can be opened
    (no display, as over SSH), says so and where to point one."""

    def on_ready(url: str) -> None:
        console.print(f"toolscout dashboard: {url}  (Ctrl-C stops it)", highlight=False)
        if open_browser and not _open_in_browser(url):
            port = urlsplit(url).port
            console.print(
                f"--open: no web browser could be opened here; open {url} in a browser on "
                f"this machine (from another one, forward the port first: ssh -L "
                f"{port}:127.0.0.1:{port} this-machine)",
                highlight=False,
                soft_wrap=True,
            )

    return on_ready


def _open_in_browser(url: str) -> bool:
    """Whether a browser took `url`. Without a display none is tried, unless `BROWSER` names
    one: Python would start a text browser in this terminal, which the server is using."""
    graphical = sys.platform in ("darwin", "win32") or any(
        os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY")
    )
    if not (graphical or os.environ.get("BROWSER")):
        return False
    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


class _Server(uvicorn.Server):
    """uvicorn's server without its signal handling: Ctrl-C ends the whole command, which
    stops a gateway's upstreams too."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
