"""What only the HTTP transport does: bearer tokens, the refusal to serve beyond loopback
without them, notifications on the session's stream, and sessions shared by two gateway
processes behind one address through a real redis-server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from tests.gateway.conftest import TOKEN, GatewayProcess, http_client, run, server, write_config
from toolscout.cli import app


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@pytest.fixture(scope="module")
def notes_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A gateway over the notes server, with a pinned tool the server does not have yet."""
    folder = tmp_path_factory.mktemp("http")
    (folder / "tokens").write_text(f"# the test client\n{TOKEN}\nanother-token\n")
    config = write_config(
        folder,
        {"notes": server("notes", pinned=["read_note", "summarize"])},
        gateway={"auth": {"tokens_file": "tokens"}},
    )
    gateway = GatewayProcess(config, "--port", "0")
    try:
        yield gateway.url()
    finally:
        gateway.stop()


class TestAuthentication:
    @pytest.mark.parametrize(
        "authorization", [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x"]
    )
    def test_a_request_without_a_valid_token_is_refused(
        self, notes_gateway: str, authorization: str | None
    ) -> None:
        headers = {"Accept": "application/json, text/event-stream"}
        if authorization is not None:
            headers["Authorization"] = authorization
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        response = httpx2.post(notes_gateway, json=body, headers=headers, timeout=10)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")

    def test_any_token_of_the_file_is_accepted(self, notes_gateway: str) -> None:
        async def scenario() -> list[str]:
            async with http_client(notes_gateway, token="another-token") as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert run(scenario) == ["notes__read_note", "search_tools", "call_tool"]

    def test_the_gateway_refuses_to_serve_beyond_loopback_without_tokens(
        self, tmp_path: Path
    ) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        result = CliRunner().invoke(
            app, ["serve", "--config", str(config), "--transport", "http", "--host", "0.0.0.0"]
        )
        assert result.exit_code == 2
        assert result.output.startswith("error: refusing to serve HTTP on 0.0.0.0 without auth")
        assert result.output.count("\n") == 1

    def test_tokens_it_cannot_read_stop_it_from_starting(self, tmp_path: Path) -> None:
        config = write_config(
            tmp_path,
            {"notes": server("notes")},
            gateway={"transport": "http", "auth": {"tokens_env": "TOOLSCOUT_TEST_UNSET"}},
        )
        result = CliRunner().invoke(app, ["serve", "--config", str(config)])
        assert result.exit_code == 2
        assert result.output == (
            "error: gateway.auth.tokens_env: the environment variable TOOLSCOUT_TEST_UNSET is "
            "not set or empty; set it to one or more tokens separated by commas\n"
        )


class TestNotifications:
    def test_a_client_is_told_when_a_pinned_tool_appears(self, notes_gateway: str) -> None:
        async def scenario() -> tuple[list[str], list[str]]:
            changed = anyio.Event()

            async def on_message(message: IncomingMessage) -> None:
                if isinstance(message, types.ToolListChangedNotification):
                    changed.set()

            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http,
                Client(
                    streamable_http_client(notes_gateway, http_client=http),
                    message_handler=on_message,
                ) as client,
            ):
                before = [tool.name for tool in (await client.list_tools()).tools]
                await client.call_tool("search_tools", {"queries": ["add a tool"]})
                arguments = {"name": "summarize", "description": "Sum up a note."}
                await client.call_tool(
                    "call_tool", {"name": "notes__add_tool", "arguments": arguments}
                )
                with anyio.fail_after(5):
                    await changed.wait()
                after = [tool.name for tool in (await client.list_tools()).tools]
                return before, after

        before, after = run(scenario)
        assert before == ["notes__read_note", "search_tools", "call_tool"]
        assert after == ["notes__read_note", "notes__summarize", "search_tools", "call_tool"]


class _TwoGateways(httpx2.AsyncBaseTransport):
    """Two gateway processes behind one address, as a load balancer would spread them:
    successive tool calls go to one then the other; everything else to the first."""

    def __init__(self, ports: list[int]) -> None:
        self._ports = ports
        self._calls = 0
        self._inner = httpx2.AsyncHTTPTransport()
        self.served: list[tuple[str, int]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = self._ports[0]
        if request.method == "POST":
            await request.aread()
            message: Any = json.loads(request.content or b"{}")
            if isinstance(message, dict) and message.get("method") == "tools/call":
                port = self._ports[self._calls % 2]
                self._calls += 1
                self.served.append((message["params"]["name"], port))
        request.url = request.url.copy_with(port=port)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def behind_one_address(urls: list[str]) -> AsyncIterator[tuple[Client, _TwoGateways]]:
    ports = [httpx2.URL(url).port or 80 for url in urls]
    balancer = _TwoGateways(ports)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(transport=balancer, headers=headers) as http,
        Client(streamable_http_client(urls[0], http_client=http)) as client,
    ):
        yield client, balancer


def two_gateways(folder: Path, store: dict[str, Any]) -> list[GatewayProcess]:
    config = write_config(
        folder,
        {"notes": server("notes")},
        gateway={"stateless": True, "auth": {"tokens_env": "GATEWAY_TEST_TOKENS"}},
        tool_search={"store": store},
    )
    env = {"GATEWAY_TEST_TOKENS": TOKEN}
    return [GatewayProcess(config, "--port", "0", env=env) for _ in range(2)]


async def search_then_call(urls: list[str]) -> tuple[types.CallToolResult, list[tuple[str, int]]]:
    async with behind_one_address(urls) as (client, balancer):
        await client.call_tool("search_tools", {"queries": ["read a note"]})
        arguments = {"title": "groceries"}
        result = await client.call_tool(
            "call_tool", {"name": "notes__read_note", "arguments": arguments}
        )
        return result, balancer.served


class TestSharedSessions:
    def test_two_gateways_share_sessions_through_redis(
        self, redis_url: str, tmp_path: Path
    ) -> None:
        gateways = two_gateways(tmp_path, {"kind": "redis", "url": redis_url})
        try:
            urls = [gateway.url() for gateway in gateways]
            result, served = run(lambda: search_then_call(urls))

            async def another_session() -> types.CallToolResult:
                async with behind_one_address(urls) as (client, _):
                    arguments = {"title": "groceries"}
                    return await client.call_tool(
                        "call_tool", {"name": "notes__read_note", "arguments": arguments}
                    )

            stranger = run(another_session)
        finally:
            for gateway in gateways:
                gateway.stop()
        ports = [httpx2.URL(url).port for url in urls]
        assert served == [("search_tools", ports[0]), ("call_tool", ports[1])]
        assert text(result) == "milk, eggs, flour"
        assert stranger.is_error
        assert "is not loaded yet" in text(stranger)

    def test_without_a_shared_store_the_other_gateway_knows_nothing(self, tmp_path: Path) -> None:
        gateways = two_gateways(tmp_path, {"kind": "memory"})
        try:
            urls = [gateway.url() for gateway in gateways]
            result, _ = run(lambda: search_then_call(urls))
        finally:
            for gateway in gateways:
                gateway.stop()
        assert result.is_error
        assert "is not loaded yet" in text(result)
