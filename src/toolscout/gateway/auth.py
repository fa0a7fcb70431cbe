"""Bearer-token authentication for the HTTP transport, and the rule that keeps an
unauthenticated gateway on loopback."""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import re
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from toolscout.errors import ConfigError
from toolscout.gateway.config import AuthSettings

_SEPARATORS = re.compile(r"[\s,]+")


def load_tokens(settings: AuthSettings) -> tuple[str, ...]:
    """The accepted tokens, from the environment variable and the file the settings name.

    Raises:
        ConfigError: a named variable is unset or empty, or a named file is missing or holds
            no token: the gateway refuses to start rather than serve without the
            authentication it was told to require.
    """
    tokens: list[str] = []
    if settings.tokens_env is not None:
        found = _SEPARATORS.split(os.environ.get(settings.tokens_env, "").strip())
        if not any(found):
            raise ConfigError(
                f"gateway.auth.tokens_env: the environment variable {settings.tokens_env} is "
                "not set or empty; set it to one or more tokens separated by commas"
            )
        tokens += [token for token in found if token]
    if settings.tokens_file is not None:
        try:
            text = settings.tokens_file.read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(
                f"gateway.auth.tokens_file: cannot read {settings.tokens_file} "
                f"({error.strerror or error}); create it with one token per line"
            ) from None
        found = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        if not any(found):
            raise ConfigError(
                f"gateway.auth.tokens_file: {settings.tokens_file} holds no token; write one "
                "token per line"
            )
        tokens += [token for token in found if token]
    return tuple(dict.fromkeys(tokens))


def check_exposure(host: str, tokens: Sequence[str]) -> None:
    """Refuse to serve beyond loopback without authentication.

    Raises:
        ConfigError: `host` is not a loopback address and there is no token.
    """
    if tokens or is_loopback(host):
        return
    raise ConfigError(
        f"refusing to serve HTTP on {host} without authentication: any machine that reaches "
        "it could call every upstream tool. Set gateway.auth.tokens_env or "
        "gateway.auth.tokens_file, or serve on 127.0.0.1"
    )


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (`localhost`, `127.0.0.0/8`, `::1`)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


class BearerAuth:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <one of the tokens>`
    is answered 401 before it reaches the MCP server. Tokens are compared in constant time."""

    def __init__(self, app: ASGIApp, tokens: Sequence[str]) -> None:
        if not tokens:
            raise ValueError("BearerAuth needs at least one token")
        self._app = app
        self._tokens = [token.encode() for token in tokens]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self._app(scope, receive, send)
            return
        body = json.dumps(
            {"error": "invalid_token", "error_description": "send Authorization: Bearer <token>"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="toolscout", error="invalid_token"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Scope) -> bool:
        header = next(
            (value for key, value in scope.get("headers", []) if key.lower() == b"authorization"),
            b"",
        )
        scheme, _, token = header.partition(b" ")
        if scheme.lower() != b"bearer" or not token.strip():
            return False
        token = token.strip()
        # Every token is compared, so the time taken says nothing about which one is close.
        matches = [hmac.compare_digest(token, known) for known in self._tokens]
        return any(matches)
