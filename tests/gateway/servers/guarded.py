"""An MCP server behind OAuth, with its own authorization server, built from the SDK's server
auth pieces: metadata discovery, dynamic client registration, authorization code with PKCE
(consent given at once: the authorization endpoint redirects straight back with a code),
tokens and refresh. Each registration, sign-in and refresh is appended to $GUARDED_LOG.

    python guarded.py PORT [--token-seconds N]
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from common import text, tool
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    ProviderTokenVerifier,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.lowlevel import Server
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

TOOLS = [tool("whoami", "Say which client the request was signed in as.")]


def log(event: str) -> None:
    path = os.environ.get("GUARDED_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(event + "\n")


class AutoConsent:
    """An in-memory authorization server that consents to every request at once."""

    def __init__(self, token_seconds: int) -> None:
        self.token_seconds = token_seconds
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.access_tokens: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        log("register")

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(16)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        log("authorize")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh_tokens.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh_tokens[refresh_token.token]
        log("refresh")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access_tokens.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access_tokens.pop(getattr(token, "token", ""), None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + self.token_seconds
        self.access_tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes
        )
        return OAuthToken(
            access_token=access,
            expires_in=self.token_seconds,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return text("signed in as a registered client")


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--token-seconds", type=int, default=3600)
    options = parser.parse_args()
    base = f"http://127.0.0.1:{options.port}"
    provider = AutoConsent(options.token_seconds)
    server = Server("guarded", on_list_tools=list_tools, on_call_tool=call_tool)
    app = server.streamable_http_app(
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            client_registration_options=ClientRegistrationOptions(enabled=True),
            validate_token_resource=False,
        ),
        token_verifier=ProviderTokenVerifier(provider),  # type: ignore[arg-type]
        auth_server_provider=provider,  # type: ignore[arg-type]
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=options.port, log_level="warning")
    anyio.run(uvicorn.Server(config).serve)


if __name__ == "__main__":
    main()
