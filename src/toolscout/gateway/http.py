"""The streamable HTTP transport: the MCP server's ASGI app behind bearer authentication,
served by uvicorn.

On a loopback address, `toolscout.serving.LoopbackOnly` refuses requests that name another
host or come from another site's page, whatever spelling of loopback the gateway listens on;
the SDK's own check, which knows three of them, is left off.

A session belongs to the identity that opened it (`toolscout.gateway.auth`). Serving with
sessions, the SDK keeps each session's owner and answers another identity as if the session
did not exist. In `stateless` mode every request is served on its own, so that any of several
gateway processes behind one address can answer it, and the SDK issues no session id: the
gateway issues one itself, signed for the identity it was issued to, with a key that every
process holding the same tokens derives. A request with an id issued to another identity, or
made up, is answered 404 (`Session not found`), as the SDK answers an unknown session.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import socket
import uuid
from collections.abc import Callable, Iterator, Mapping

import anyio
import mcp_types as types
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolscout.gateway.auth import BearerAuth, identity_of
from toolscout.gateway.config import ServeSettings
from toolscout.gateway.metrics import OperationsRoutes
from toolscout.gateway.server import GatewayServer
from toolscout.serving import LoopbackOnly, is_loopback, url_host

logger = logging.getLogger("toolscout.gateway")

_SESSION_HEADER = b"mcp-session-id"


def http_app(server: GatewayServer, settings: ServeSettings, tokens: Mapping[str, str]) -> ASGIApp:
    """The gateway's ASGI app: MCP at `settings.path`, `/healthz` and `/metrics`
    (`toolscout.gateway.metrics`), behind the tokens if any (`{token: name}`), and behind
    the Host and Origin check on loopback."""
    app: ASGIApp = server.server.streamable_http_app(
        streamable_http_path=settings.path,
        stateless_http=settings.stateless,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    if settings.stateless:
        app = _SignedSessionIds(app, _session_key(tokens))
    app = OperationsRoutes(app, server.gateway.metrics)
    if tokens:
        app = BearerAuth(app, tokens)
    if is_loopback(settings.host):
        app = LoopbackOnly(app)
    return app


async def serve_http(
    app: ASGIApp,
    sock: socket.socket,
    settings: ServeSettings,
    *,
    stop: anyio.Event,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve `app` on the listening socket `sock` until `stop` is set, then shut down
    gracefully; `on_ready` gets the endpoint's URL once it serves."""
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = _Server(config)
    async with anyio.create_task_group() as group:

        async def announce() -> None:
            while not server.started:
                if server.should_exit:
                    return
                await anyio.sleep(0.02)
            port = sock.getsockname()[1]
            if on_ready is not None:
                on_ready(f"http://{url_host(settings.host)}:{port}{settings.path}")

        async def stop_on_request() -> None:
            await stop.wait()
            server.should_exit = True

        group.start_soon(announce)
        group.start_soon(stop_on_request)
        await server.serve(sockets=[sock])
        group.cancel_scope.cancel()


class _Server(uvicorn.Server):
    """uvicorn's server, leaving SIGINT and SIGTERM to the gateway, which stops the upstreams
    too (uvicorn's own handling would re-raise the signal once it stopped, and end the
    process before they are shut down)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _SignedSessionIds:
    """Stateless mode's session ids: each new client gets one signed for its identity, and a
    request may only carry an id signed for its own."""

    def __init__(self, app: ASGIApp, key: bytes) -> None:
        self._app = app
        self._key = key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        identity = identity_of(scope) or ""
        presented = next(
            (value for key, value in scope.get("headers", []) if key.lower() == _SESSION_HEADER),
            None,
        )
        if presented is not None:
            if self._valid(presented.decode("latin-1"), identity):
                await self._app(scope, receive, send)
            else:
                await _session_not_found(send)
            return
        if scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        nonce = uuid.uuid4().hex
        session_id = f"{nonce}.{self._signature(nonce, identity)}".encode()

        async def send_with_session(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (_SESSION_HEADER, session_id)]
                message = {**message, "headers": headers}
            await send(message)

        await self._app(scope, receive, send_with_session)

    def _signature(self, nonce: str, identity: str) -> str:
        message = f"{identity}\0{nonce}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()[:32]

    def _valid(self, session_id: str, identity: str) -> bool:
        nonce, _, signature = session_id.partition(".")
        return bool(nonce) and hmac.compare_digest(signature, self._signature(nonce, identity))


def _session_key(tokens: Mapping[str, str]) -> bytes:
    """The key stateless session ids are signed with: derived from every token, so that every
    gateway process with the same tokens has it, and no holder of one token among several
    can sign for another identity."""
    digest = hashlib.sha256(b"toolscout session ids")
    for token in sorted(tokens):
        digest.update(b"\0" + token.encode())
    return digest.digest()


async def _session_not_found(send: Send) -> None:
    """The SDK's answer to an unknown session."""
    error = types.JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=types.ErrorData(code=types.INVALID_REQUEST, message="Session not found"),
    )
    body = error.model_dump_json(by_alias=True, exclude_unset=True).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 404,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
