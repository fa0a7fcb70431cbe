"""What only the HTTP transport does: bearer tokens and the identities they give, the refusal
to serve beyond loopback without them, the Host and Origin check on loopback, sessions bound
to the identity that opened them, notifications on the session's stream, and sessions shared
by two gateway processes behind one address through a real redis-server."""

from __future__ import annotations

import functools
import io
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
from rich.console import Console
from typer.testing import CliRunner

from tests.gateway.conftest import (
    TOKEN,
    GatewayProcess,
    free_port,
    http_client,
    run,
    server,
    write_config,
)
from tests.limits import HANG
from toolscout.catalog import Tool
from toolscout.cli import app
from toolscout.gateway import GatewayConfig, GatewayRequest, serve
from toolscout.protocol import Phase


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@pytest.fixture(scope="module")
def notes_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A gateway over the notes server, with a pinned tool the server does not have yet."""
    folder = tmp_path_factory.mktemp("http")
    (folder / "tokens").write_text(f"# the test client\nalice: {TOKEN}\nbob: another-token\n")
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
        response = httpx2.post(notes_gateway, json=body, headers=headers, timeout=HANG)
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


MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def answer(response: httpx2.Response) -> Any:
    """The JSON-RPC message of a response, sent as JSON or as a server-sent event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


class Caller:
    """Raw MCP requests over real HTTP with one token, so that a test can send any session
    id, header or host it likes."""

    def __init__(self, url: str, token: str | None = None, **headers: str) -> None:
        self.url = url
        self.headers = {**MCP_HEADERS, **headers}
        if token is not None:
            self.headers["Authorization"] = f"Bearer {token}"
        self.session_id: str | None = None
        self._ids = 1

    def open(self) -> httpx2.Response:
        """`initialize`, then `notifications/initialized`; keeps the session id."""
        response = httpx2.post(self.url, json=INITIALIZE, headers=self.headers, timeout=HANG)
        if response.status_code == 200:
            self.session_id = response.headers.get("mcp-session-id")
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    def call(
        self, name: str, arguments: dict[str, Any], session_id: str | None = None
    ) -> httpx2.Response:
        self._ids += 1
        params = {"name": name, "arguments": arguments}
        message = {"jsonrpc": "2.0", "id": self._ids, "method": "tools/call", "params": params}
        return self.send(message, session_id)

    def send(self, message: dict[str, Any], session_id: str | None = None) -> httpx2.Response:
        return httpx2.post(self.url, json=message, headers=self._with(session_id), timeout=HANG)

    def delete(self, session_id: str | None = None) -> httpx2.Response:
        return httpx2.delete(self.url, headers=self._with(session_id), timeout=HANG)

    def _with(self, session_id: str | None) -> dict[str, str]:
        session_id = session_id or self.session_id
        headers = {**self.headers, "mcp-protocol-version": "2025-06-18"}
        return {**headers, "mcp-session-id": session_id} if session_id else headers


def found_names(response: httpx2.Response) -> list[str]:
    payload = json.loads(answer(response)["result"]["content"][0]["text"])
    return [tool["name"] for entry in payload["results"] for tool in entry["tools"]]


class TestLoopback:
    @pytest.mark.parametrize("host", ["127.0.0.2", "LOCALHOST", "0:0:0:0:0:0:0:1", "[::1]"])
    def test_every_spelling_of_loopback_refuses_other_hosts_and_other_sites(
        self, tmp_path: Path, host: str
    ) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        gateway = GatewayProcess(config, "--host", host, "--port", "0")
        try:
            url = gateway.url()
            # DNS rebinding: another site's name, pointed at this address.
            rebound = Caller(url, Host="evil.example:8765", Origin="http://evil.example:8765")
            assert rebound.open().status_code == 421
            # Another site's page, sending to the loopback address itself.
            assert Caller(url, Origin="http://evil.example").open().status_code == 403
            assert Caller(url, Origin="null").open().status_code == 403
            # A program, or a page served from this machine.
            assert Caller(url).open().status_code == 200
            local = Caller(url, Origin=url.removesuffix("/mcp"))
            assert local.open().status_code == 200
            search = local.call("search_tools", {"queries": ["read a note"]})
            assert "notes__read_note" in found_names(search)
        finally:
            gateway.stop()
        assert url.startswith("http://") and "[[" not in url
        assert not any("Traceback" in line for line in gateway.lines)


class TestIdentity:
    def test_filters_get_the_token_s_name_and_headers_cannot_raise_rights(
        self, tmp_path: Path
    ) -> None:
        (tmp_path / "tokens").write_text("alice: alice-token\nbob: bob-token\n")
        config = GatewayConfig.model_validate(
            {
                "servers": {"notes": server("notes")},
                "gateway": {"auth": {"tokens_file": str(tmp_path / "tokens")}},
            }
        )
        asked: list[tuple[str | None, dict[str, str]]] = []

        def archivists_only(tool: Tool, request: GatewayRequest, phase: Phase) -> bool:
            asked.append((request.identity, dict(request.headers)))
            return "archive" not in tool.name or request.identity == "alice"

        def as_alice_then_bob(url: str) -> dict[str, list[str]]:
            # bob claims alice's team and name in every header a filter might read.
            claims = {"x-team": "admins", "x-user": "alice", "x-identity": "alice"}
            texts: dict[str, list[str]] = {}
            for name, caller in [
                ("alice", Caller(url, "alice-token")),
                ("bob", Caller(url, "bob-token", **claims)),
            ]:
                assert caller.open().status_code == 200
                search = caller.call("search_tools", {"queries": ["archive a note"]})
                arguments = {"title": "groceries"}
                called = caller.call(
                    "call_tool", {"name": "notes__archive_note", "arguments": arguments}
                )
                texts[name] = [
                    " ".join(found_names(search)),
                    answer(called)["result"]["content"][0]["text"],
                ]
            return texts

        async def scenario() -> dict[str, list[str]]:
            async with serving_http(config, archivists_only) as url:
                return await anyio.to_thread.run_sync(as_alice_then_bob, url)

        texts = run(scenario)
        assert "notes__archive_note" in texts["alice"][0]
        assert texts["alice"][1].startswith("cannot archive groceries")
        assert "notes__archive_note" not in texts["bob"][0]
        assert texts["bob"][1].startswith("Unknown tool 'notes__archive_note'.")
        assert {identity for identity, _ in asked} == {"alice", "bob"}
        assert not any("authorization" in map(str.lower, headers) for _, headers in asked)


@asynccontextmanager
async def serving_http(config: GatewayConfig, filter: Any) -> AsyncIterator[str]:
    """`serve()` in this process, over HTTP on a free port, with a Python filter."""
    port = free_port()
    output = io.StringIO()
    console = Console(file=output, width=200)
    async with anyio.create_task_group() as group:
        group.start_soon(
            functools.partial(
                serve, config, transport="http", port=port, filter=filter, console=console
            )
        )
        with anyio.fail_after(HANG):
            while "serving MCP on" not in output.getvalue():
                await anyio.sleep(0.05)
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            group.cancel_scope.cancel()


class TestSessionOwnership:
    def test_a_session_answers_only_the_identity_that_opened_it(self, notes_gateway: str) -> None:
        alice, bob = Caller(notes_gateway, TOKEN), Caller(notes_gateway, "another-token")
        assert alice.open().status_code == 200
        assert alice.session_id
        search = alice.call("search_tools", {"queries": ["add a note"]})
        assert "notes__add_note" in found_names(search)
        # bob, with alice's session: as if it did not exist, for every method.
        add = {"name": "notes__add_note", "arguments": {"title": "bob", "text": "was here"}}
        stolen = bob.call("call_tool", add, session_id=alice.session_id)
        assert stolen.status_code == 404
        assert answer(stolen)["error"]["message"] == "Session not found"
        assert bob.delete(session_id=alice.session_id).status_code == 404
        # alice's session is still hers, with what it discovered.
        read = {"name": "notes__add_note", "arguments": {"title": "alice", "text": "hi"}}
        mine = alice.call("call_tool", read)
        assert mine.status_code == 200
        assert answer(mine)["result"]["content"][0]["text"] == "added alice"

    def test_stateless_session_ids_are_signed_for_their_identity(self, tmp_path: Path) -> None:
        config = write_config(
            tmp_path,
            {"notes": server("notes")},
            gateway={"stateless": True, "auth": {"tokens_env": "GATEWAY_TEST_TOKENS"}},
        )
        env = {"GATEWAY_TEST_TOKENS": f"alice:{TOKEN}, bob:another-token"}
        gateway = GatewayProcess(config, "--port", "0", env=env)
        try:
            url = gateway.url()
            alice, bob = Caller(url, TOKEN), Caller(url, "another-token")
            assert alice.open().status_code == 200
            assert alice.session_id
            alice.call("search_tools", {"queries": ["add a note"]})
            add = {"name": "notes__add_note", "arguments": {"title": "x", "text": "y"}}
            nonce, _, signature = alice.session_id.partition(".")
            refused = [
                bob.call("call_tool", add, session_id=alice.session_id),  # another's
                bob.call("call_tool", add, session_id="made-up-session"),  # never issued
                alice.call("call_tool", add, session_id=f"{nonce}.{'0' * len(signature)}"),
            ]
            mine = alice.call("call_tool", add)
        finally:
            gateway.stop()
        assert [response.status_code for response in refused] == [404, 404, 404]
        assert mine.status_code == 200
        assert answer(mine)["result"]["content"][0]["text"] == "added x"


class TestNotifications:
    def test_initialize_says_the_tool_list_can_change(self, notes_gateway: str) -> None:
        async def scenario() -> bool | None:
            async with http_client(notes_gateway) as client:
                tools = client.server_capabilities.tools if client.server_capabilities else None
                return tools.list_changed if tools else None

        assert run(scenario) is True

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
        # Discovery required: what the two share is what each session has found.
        tool_search={"store": store, "require_discovery": True},
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
