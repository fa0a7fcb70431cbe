"""The streamable HTTP transport: the MCP server's ASGI app behind bearer authentication,
served by uvicorn.

In `stateless` mode every request is served on its own, so any of several gateway processes
behind one address can answer it. The SDK then issues no session id, so the gateway issues
one itself: a response to a request without `Mcp-Session-Id` carries a new one, which the
client sends with its next requests, and which keys the session's discoveries in the shared
store.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable, Iterator, Sequence

import anyio
import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolscout.gateway.auth import BearerAuth
from toolscout.gateway.config import ServeSettings
from toolscout.gateway.server import GatewayServer

logger = logging.getLogger("toolscout.gateway")

_SESSION_HEADER = b"mcp-session-id"


def http_app(server: GatewayServer, settings: ServeSettings, tokens: Sequence[str]) -> ASGIApp:
    """The gateway's ASGI app: MCP at `settings.path`, behind the tokens if any."""
    app: ASGIApp = server.server.streamable_http_app(
        streamable_http_path=settings.path,
        stateless_http=settings.stateless,
        host=settings.host,
    )
    if settings.stateless:
        app = _SessionIds(app)
    if tokens:
        app = BearerAuth(app, tokens)
    return app


async def serve_http(
    app: ASGIApp,
    settings: ServeSettings,
    *,
    stop: anyio.Event,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve `app` until `stop` is set, then shut down gracefully; `on_ready` gets the
    endpoint's URL once the port is open."""
    config = uvicorn.Config(
        app, host=settings.host, port=settings.port, log_level="warning", lifespan="on"
    )
    server = _Server(config)
    async with anyio.create_task_group() as group:

        async def announce() -> None:
            while not server.started:
                if server.should_exit:
                    return
                await anyio.sleep(0.02)
            port = server.servers[0].sockets[0].getsockname()[1]
            host = f"[{settings.host}]" if ":" in settings.host else settings.host
            if on_ready is not None:
                on_ready(f"http://{host}:{port}{settings.path}")

        async def stop_on_request() -> None:
            await stop.wait()
            server.should_exit = True

        group.start_soon(announce)
        group.start_soon(stop_on_request)
        await server.serve()
        group.cancel_scope.cancel()


class _Server(uvicorn.Server):
    """uvicorn's server, leaving SIGINT and SIGTERM to the gateway, which stops the upstreams
    too (uvicorn's own handling would re-raise the signal once it stopped, and end the
    process before they are shut down)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _SessionIds:
    """Gives each new client a session id when the SDK, serving statelessly, gives none."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or _has_session(scope):
            await self._app(scope, receive, send)
            return
        session_id = uuid.uuid4().hex.encode()

        async def send_with_session(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (_SESSION_HEADER, session_id)]
                message = {**message, "headers": headers}
            await send(message)

        await self._app(scope, receive, send_with_session)


def _has_session(scope: Scope) -> bool:
    return any(key.lower() == _SESSION_HEADER for key, _ in scope.get("headers", []))
