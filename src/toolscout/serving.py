"""What the gateway and the dashboard share when they serve HTTP: the loopback rule, the Host
and Origin check that keeps other sites' pages out of a loopback server, and the socket they
listen on.

A server on a loopback address without a token is reachable by every page a browser on this
machine opens: another site's script can send it requests (its `Origin` then names that
site), or point a host name of its own at 127.0.0.1 (DNS rebinding: its `Host` then names
that host). `LoopbackOnly` answers both with an error before the app sees them, whichever
spelling of loopback the server listens on.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from toolscout.errors import ConfigError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only: `localhost` (in any case), an address of
    `127.0.0.0/8` or `::1` (in any spelling, with or without brackets)."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def url_host(host: str) -> str:
    """`host` as a URL writes it: an IPv6 address in brackets."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def listen(host: str, port: int, *, what: str) -> socket.socket:
    """A socket listening on `host:port` (0 picks a free port); `host` may be an IPv6
    address in brackets, as in a URL.

    Raises:
        ConfigError: the address cannot be listened on (in use, not this machine's, a name
            that does not resolve); `what` names the server in the message.
    """
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bare, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error) or type(error).__name__
        raise ConfigError(
            f"{what} cannot listen on {url_host(host)}:{port} ({reason}); choose another "
            "--port (0 picks a free one), or another --host"
        ) from None
    return sock


class LoopbackOnly:
    """ASGI middleware for a server on a loopback address: a request whose `Host` is not a
    loopback name is answered 421, one whose `Origin` is not a loopback page is answered 403.

    Requests from programs (MCP clients, curl) send no `Origin`, and name the address they
    connect to in `Host`, so they pass.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {key.lower(): value for key, value in scope.get("headers", [])}
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin")
        if not is_loopback(_host_of(host)):
            await _refuse(
                send, 421, "this server is on a loopback address: the Host header must name it"
            )
        elif origin is not None and not _loopback_origin(origin.decode("latin-1")):
            await _refuse(send, 403, "requests from pages of other sites are refused")
        else:
            await self._app(scope, receive, send)


def _host_of(header: str) -> str:
    """The host of a `Host` header: `[::1]:8765` is `::1`, `localhost:8765` is `localhost`."""
    header = header.strip()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        return header.partition(":")[0]
    return header


def _loopback_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
