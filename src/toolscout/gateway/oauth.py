"""Signing the gateway in to HTTP upstreams that ask for it, with the `mcp` SDK's OAuth client:
discovery of the server's authorization server, dynamic client registration, authorization
code with PKCE, and token refresh, as MCP's authorization specification describes.

A person signs in once per server. When a server answers `401`, the gateway opens its sign-in
page in a browser (`webbrowser`, so `$BROWSER` picks which) and logs the page's address for a
machine without one; the page redirects to a loopback port where the gateway waits. The
registration and the tokens are then kept in one file per server URL under
`gateway.oauth_dir` (by default `$XDG_STATE_HOME/toolscout/oauth`, that is
`~/.local/state/toolscout/oauth`), written atomically and readable by the user alone, so
that a restart needs no new sign-in; an access token that has expired is refreshed with its
refresh token, without the browser.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import logging
import os
import re
import secrets
import socket
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from anyio.abc import SocketListener, SocketStream
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

import toolscout
from toolscout.gateway.config import OAuthSettings
from toolscout.safe_loading import parse_json

logger = logging.getLogger("toolscout.gateway")

#: The path of the loopback address the sign-in page redirects to.
CALLBACK_PATH = "/callback"
#: Bytes of the redirect's request the gateway reads: a request line and a few headers.
_MAX_REQUEST = 16 * 1024


def default_oauth_dir() -> Path:
    """`$XDG_STATE_HOME/toolscout/oauth`, or `~/.local/state/toolscout/oauth`."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "toolscout" / "oauth"


def token_file(directory: Path, server_url: str) -> Path:
    """The file that keeps what signing in to `server_url` gave: named after its host, and
    a hash of the whole URL so that two servers of one host never share it."""
    host = re.sub(r"[^A-Za-z0-9.-]", "_", urlsplit(server_url).hostname or "server")
    digest = hashlib.sha256(server_url.encode()).hexdigest()[:16]
    return directory / f"{host}-{digest}.json"


class FileTokenStorage:
    """The SDK's `TokenStorage` in a JSON file: the client registration, and the tokens with
    the time they expire (the SDK's `expires_in` counts from when they were issued, so it is
    turned into what is left of it when they are read back)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def get_tokens(self) -> OAuthToken | None:
        stored = self._read().get("tokens")
        if not isinstance(stored, dict):
            return None
        stored = dict(stored)
        expires_at = stored.pop("expires_at", None)
        if isinstance(expires_at, int | float):
            stored["expires_in"] = int(expires_at - time.time())
        try:
            return OAuthToken.model_validate(stored)
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        stored = tokens.model_dump(mode="json", exclude_none=True)
        if tokens.expires_in is not None:
            stored["expires_at"] = time.time() + tokens.expires_in
            del stored["expires_in"]
        self._write("tokens", stored)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info()

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write("client_info", client_info.model_dump(mode="json", exclude_none=True))

    def client_info(self) -> OAuthClientInformationFull | None:
        """The registration kept, read at once (the redirect port comes from it)."""
        stored = self._read().get("client_info")
        try:
            return OAuthClientInformationFull.model_validate(stored) if stored else None
        except ValueError:
            return None

    def _read(self) -> dict[str, Any]:
        try:
            data = parse_json(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # unreadable, not JSON or nested too deep: sign in again
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: Any) -> None:
        data = self._read()
        data[key] = value
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}")
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=2)
            os.replace(temporary, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()


class _RestartableProvider(OAuthClientProvider):
    """The SDK's provider, which also knows when tokens read back from storage expire, so
    that an expired one is refreshed instead of being sent, refused, and followed by a whole
    new sign-in."""

    async def _initialize(self) -> None:
        await super()._initialize()
        tokens = self.context.current_tokens
        if tokens is not None and tokens.expires_in is not None:
            self.context.update_token_expiry(tokens)


class SignInFailed(Exception):
    """Signing in did not complete: nobody signed in in time, or the server refused."""


class SignIn:
    """The person's part of one server's sign-in: the page to open, and the redirect that
    comes back to a loopback port.

    Args:
        server: The upstream's name, for the messages.
        port: The loopback port the page redirects to.
        timeout: Seconds to wait for the redirect.
    """

    def __init__(self, server: str, port: int, timeout: float) -> None:
        self.server = server
        self.port = port
        self.timeout = timeout
        self._socket: socket.socket | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def open_page(self, url: str) -> None:
        """Listen for the redirect, then open the sign-in page (the SDK's redirect
        handler)."""
        self._close()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(8)
        self._socket = sock
        logger.warning(
            "upstream %r asks you to sign in: opening %s in a browser (open it yourself if "
            "none appears); waiting %g s",
            self.server,
            url,
            self.timeout,
        )
        # Not waited for: a browser started from a command (`$BROWSER`) may only return
        # once it has followed the redirect, which is answered below.
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    async def redirect(self) -> AuthorizationCodeResult:
        """The code and state the sign-in page redirected with (the SDK's callback handler).

        Raises:
            SignInFailed: nobody signed in within `timeout`, or the page redirected with an
                error.
        """
        sock, self._socket = self._socket, None
        if sock is None:
            raise SignInFailed("the sign-in page was not opened")
        listener = await SocketListener.from_socket(sock)
        try:
            with anyio.move_on_after(self.timeout):
                while True:
                    stream = await listener.accept()
                    async with stream:
                        result = await _answer_redirect(stream, self.server)
                    if result is not None:
                        return result
        finally:
            await listener.aclose()
        raise SignInFailed(
            f"it asks you to sign in, and nobody did within {self.timeout:g} s "
            "(oauth.sign_in_timeout); the sign-in page opens again at the next attempt"
        )

    def _close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def has_kept_sign_in(url: str, directory: Path | None) -> bool:
    """Whether signing in to the server at `url` has left a file to start from."""
    return token_file(directory or default_oauth_dir(), url).exists()


def oauth_provider(
    server: str, url: str, settings: OAuthSettings, directory: Path | None
) -> httpx2.Auth:
    """The httpx2 authentication that signs the gateway in to the server at `url` when it
    answers `401`, keeping what it gets in `directory` (`default_oauth_dir()` if None)."""
    storage = FileTokenStorage(token_file(directory or default_oauth_dir(), url))
    sign_in = SignIn(server, _callback_port(settings, storage), settings.sign_in_timeout)
    metadata = OAuthClientMetadata(
        client_name=f"toolscout gateway ({server})",
        client_uri=None,
        redirect_uris=[sign_in.redirect_uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope=settings.scope,
        software_id="toolscout",
        software_version=toolscout.__version__,
    )
    return _RestartableProvider(
        url,
        metadata,
        storage,
        redirect_handler=sign_in.open_page,
        callback_handler=sign_in.redirect,
    )


def _callback_port(settings: OAuthSettings, storage: FileTokenStorage) -> int:
    """The configured port; else the one the kept registration redirects to (a server
    compares redirect URIs exactly); else a free one."""
    if settings.callback_port:
        return settings.callback_port
    registered = storage.client_info()
    for uri in (registered.redirect_uris or []) if registered else []:
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port:
            return parts.port
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _answer_redirect(stream: SocketStream, server: str) -> AuthorizationCodeResult | None:
    """Read one request on the loopback port; the sign-in's result when it is the redirect,
    None for anything else (a browser's favicon request)."""
    received = b""
    with anyio.move_on_after(10):
        while b"\r\n\r\n" not in received and len(received) < _MAX_REQUEST:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                break
    line = received.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    target = urlsplit(parts[1]) if len(parts) == 3 and parts[0] == "GET" else None
    if target is None or target.path != CALLBACK_PATH:
        await _respond(stream, 404, "Not found.")
        return None
    query = {key: values[0] for key, values in parse_qs(target.query).items()}
    if "error" in query:
        await _respond(stream, 400, f"Signing in to {server} failed: {query['error']}.")
        raise SignInFailed(
            f"signing in failed: {query['error']} {query.get('error_description', '')}".strip()
        )
    if "code" not in query:
        await _respond(stream, 400, "This address expects the sign-in page's redirect.")
        return None
    await _respond(stream, 200, f"Signed in to {server}. You can close this page.")
    return AuthorizationCodeResult(
        code=query["code"], state=query.get("state"), iss=query.get("iss")
    )


async def _respond(stream: SocketStream, status: int, text: str) -> None:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    body = f"<!doctype html><title>toolscout</title><p>{html.escape(text)}</p>".encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with contextlib.suppress(anyio.BrokenResourceError, OSError):
        await stream.send(head + body)
