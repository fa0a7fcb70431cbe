"""Bearer-token authentication for the HTTP transport, the identity it gives each request,
and the rule that keeps an unauthenticated gateway on loopback.

Each token has a name, its identity: `alice:3f9c...` in the tokens file or variable, or, for
a token written without one, where it was found (`tokens.txt:3`, `TOOLSCOUT_TOKENS[2]`).
`BearerAuth` puts the identity of the token a request carries in its ASGI scope, where the
MCP SDK binds each session to the identity that opened it, and filters read it from
`GatewayRequest.identity`.
"""

from __future__ import annotations

import hmac
import json
import os
import re
from collections.abc import Mapping

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Receive, Scope, Send

from toolscout.config.variables import expand_path
from toolscout.errors import ConfigError
from toolscout.gateway.config import AuthSettings
from toolscout.serving import is_loopback

__all__ = ["BearerAuth", "check_exposure", "identity_of", "is_loopback", "load_tokens"]

_SEPARATORS = re.compile(r"[\s,]+")
_AFTER_NAME = re.compile(r":\s+")
#: `name:token`; a token without a name is the whole entry.
_NAMED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.@-]*):\s*(\S+)$")


def load_tokens(settings: AuthSettings) -> dict[str, str]:
    """The accepted tokens and their names (`{token: name}`), from the environment variable
    and the file the settings name.

    Raises:
        ConfigError: a named variable is unset or empty, a named file is missing or holds no
            token, or one token is given two names: the gateway refuses to start rather than
            serve without the authentication it was told to require.
    """
    entries: list[tuple[str, str]] = []  # (entry as written, name when it has none)
    if settings.tokens_env is not None:
        variable = settings.tokens_env
        value = _AFTER_NAME.sub(":", os.environ.get(variable, "").strip())
        items = [item for item in _SEPARATORS.split(value) if item]
        if not items:
            raise ConfigError(
                f"gateway.auth.tokens_env: the environment variable {variable} is not set or "
                "empty; set it to one or more tokens separated by commas"
            )
        entries += [(item, f"{variable}[{number}]") for number, item in enumerate(items, 1)]
    if settings.tokens_file is not None:
        path = expand_path(settings.tokens_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(
                f"gateway.auth.tokens_file: cannot read {path} ({error.strerror or error}); "
                "create it with one token per line"
            ) from None
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        found = [(line, f"{path.name}:{number}") for number, line in enumerate(lines, 1) if line]
        if not found:
            raise ConfigError(
                f"gateway.auth.tokens_file: {path} holds no token; write one token per line"
            )
        entries += found
    tokens: dict[str, str] = {}
    named: dict[str, str] = {}
    for entry, where in entries:
        match = _NAMED.match(entry)
        if match is None:
            tokens.setdefault(entry, where)
            continue
        token, name = match[2], match[1]
        if named.setdefault(token, name) != name:
            raise ConfigError(
                f"gateway.auth: one token is given two names, {named[token]} and {name}; "
                "give each token one name"
            )
        tokens[token] = name  # a name given wins over where the token was written
    return tokens


def check_exposure(host: str, tokens: Mapping[str, str]) -> None:
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


def identity_of(scope: Scope) -> str | None:
    """The name of the token that authenticated an HTTP request; None without tokens."""
    user = scope.get("user")
    return user.access_token.client_id if isinstance(user, AuthenticatedUser) else None


class BearerAuth:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <one of the tokens>`
    is answered 401 before it reaches the MCP server; one with a token goes on with the
    token's name as its identity (`identity_of`). Tokens are compared in constant time.

    Args:
        tokens: The accepted tokens and their names, as `load_tokens` reads them.
    """

    def __init__(self, app: ASGIApp, tokens: Mapping[str, str]) -> None:
        if not tokens:
            raise ValueError("BearerAuth needs at least one token")
        self._app = app
        self._tokens = [(token.encode(), name) for token, name in tokens.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        name = self._identity(scope)
        if name is not None:
            # Where the SDK looks for the credential that owns a session.
            access = AccessToken(token="", client_id=name, scopes=[])
            await self._app({**scope, "user": AuthenticatedUser(access)}, receive, send)
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

    def _identity(self, scope: Scope) -> str | None:
        """The name of the token the request carries; None when it carries none we accept."""
        header = next(
            (value for key, value in scope.get("headers", []) if key.lower() == b"authorization"),
            b"",
        )
        scheme, _, token = header.partition(b" ")
        if scheme.lower() != b"bearer" or not token.strip():
            return None
        token = token.strip()
        # Every token is compared, so the time taken says nothing about which one is close.
        matches = [name for known, name in self._tokens if hmac.compare_digest(token, known)]
        return matches[0] if matches else None
