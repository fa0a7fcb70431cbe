"""Upstreams people have: the deprecated HTTP+SSE transport, servers of the 2026-07-28
revision only, servers that ask to be signed in to (OAuth, against a real authorization
server), tools that ask to be always loaded; and HTTP servers that send what the SDK's
parser refuses or more than the gateway takes."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.gateway.conftest import (
    SERVERS,
    TOOLSCOUT,
    GatewayProcess,
    http_client,
    http_server,
    run,
    server,
    write_config,
)
from tests.gateway.test_lifecycle import call, find, serving, text


class TestLegacySSE:
    def test_an_sse_server_s_tools_are_found_and_called(self) -> None:
        with http_server("clock", "--sse", "{port}") as port:
            clock = {"type": "sse", "url": f"http://127.0.0.1:{port}/sse"}

            async def scenario() -> tuple[list[str], str]:
                async with serving({"clock": clock}) as (_, client):
                    found = await find(client, "add days to a date")
                    added = await call(client, "clock__add_days", day="2026-11-05", days=5)
                    return found, text(added)

            found, added = run(scenario)
        assert found[0] == "clock__add_days"
        assert added == "2026-11-10"


class TestProtocolRevisions:
    def test_a_server_of_2026_07_28_only_is_spoken_to_in_it(self) -> None:
        with http_server("clock", "--http", "{port}", "--modern-only") as port:
            clock = {"url": f"http://127.0.0.1:{port}/mcp"}

            async def scenario() -> str:
                async with serving({"clock": clock}) as (gateway, client):
                    assert gateway.upstreams["clock"].status.state == "connected"
                    result = await call(client, "clock__add_days", day="2026-01-30", days=2)
                    return text(result)

            assert run(scenario) == "2026-02-01"

    def test_clients_of_the_newest_revision_are_served(self, tmp_path: Path) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        stdio = StdioServerParameters(
            command=str(TOOLSCOUT),
            args=["serve", "--config", str(config)],
            env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        )

        async def session(client: Client) -> tuple[str, str]:
            read = await client.call_tool(
                "call_tool", {"name": "notes__read_note", "arguments": {"title": "groceries"}}
            )
            return client.protocol_version, text(read)

        async def over_stdio() -> tuple[str, str]:
            async with Client(stdio, mode="2026-07-28") as client:
                return await session(client)

        gateway = GatewayProcess(config, "--port", "0")
        try:
            url = gateway.url()

            async def over_http() -> tuple[str, str]:
                async with Client(streamable_http_client(url), mode="2026-07-28") as client:
                    return await session(client)

            answers = [run(over_stdio), run(over_http)]
        finally:
            gateway.stop()
        assert answers == [("2026-07-28", "milk, eggs, flour")] * 2


class TestToolsTheyDefine:
    def test_a_tool_marked_always_load_is_pinned(self) -> None:
        async def scenario() -> tuple[list[types.Tool], list[str]]:
            async with serving({"clock": server("clock")}) as (_, client):
                listed = (await client.list_tools()).tools
                return listed, await find(client, "the current date today")

        listed, found = run(scenario)
        assert [tool.name for tool in listed] == ["clock__now", "search_tools", "call_tool"]
        assert "clock__now" not in found  # sent with every request: never a search result

    def test_the_meta_tools_have_titles(self) -> None:
        async def scenario() -> dict[str, str | None]:
            async with serving({"clock": server("clock")}) as (_, client):
                return {tool.name: tool.title for tool in (await client.list_tools()).tools}

        titles = run(scenario)
        assert titles["search_tools"] == "Search tools"
        assert titles["call_tool"] == "Call a tool"


@pytest.mark.parametrize("answers", ["json", "events"])
class TestWhatHttpServersSend:
    """Issue 13's last two breaks: a lone surrogate in one tool of an HTTP listing lost the
    whole listing, and a plain JSON answer was read whole however large."""

    def test_a_tool_with_text_that_is_not_unicode_is_left_out_and_the_rest_offered(
        self, answers: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        args = ["{port}", "--events"] if answers == "events" else ["{port}"]
        with http_server("raw_http", *args) as port:
            raw = {"url": f"http://127.0.0.1:{port}/mcp"}

            async def scenario() -> tuple[list[str], str]:
                async with serving({"raw": raw}) as (gateway, client):
                    ids = sorted(tool.id for tool in gateway.catalog)
                    looked_up = await call(client, "raw__lookup_word", word="tree")
                    return ids, text(looked_up)

            with caplog.at_level(logging.WARNING, logger="toolscout.gateway"):
                ids, looked_up = run(scenario)
        assert ids == ["raw__lookup_word", "raw__text_of_size"]
        assert looked_up == "tree: found"
        assert "'broken_text' is skipped: its description is not valid Unicode" in caplog.text

    def test_an_answer_over_max_result_size_is_refused_and_the_connection_stays(
        self, answers: str
    ) -> None:
        args = ["{port}", "--events"] if answers == "events" else ["{port}"]
        with http_server("raw_http", *args) as port:
            raw = {"url": f"http://127.0.0.1:{port}/mcp"}
            limit = {"max_result_size": 64 * 1024}

            async def scenario() -> tuple[types.CallToolResult, str]:
                async with serving({"raw": raw}, gateway=limit) as (_, client):
                    large = await call(client, "raw__text_of_size", size=100_000)
                    small = await call(client, "raw__text_of_size", size=10)
                    return large, text(small)

            large, small = run(scenario)
        assert large.is_error
        assert text(large).startswith(
            "The result of 'text_of_size' on 'raw' is larger than 65,536 bytes "
            "(gateway.max_result_size), so the gateway did not take it."
        )
        assert small == "x" * 10


class TestOAuth:
    def test_signs_in_once_keeps_the_tokens_and_refreshes_them(self, tmp_path: Path) -> None:
        events, opened = tmp_path / "server.log", tmp_path / "browser.log"
        browser = f"{sys.executable} {SERVERS / 'browser.py'} %s"
        env = {"BROWSER": browser, "BROWSER_LOG": str(opened)}
        tokens = tmp_path / "tokens"
        with http_server("guarded", "{port}", env={"GUARDED_LOG": str(events)}) as port:
            config = write_config(
                tmp_path,
                {"guarded": {"url": f"http://127.0.0.1:{port}/mcp"}},
                gateway={"oauth_dir": str(tokens)},
            )

            async def whoami(url: str) -> str:
                async with http_client(url, token=None) as client:
                    result = await client.call_tool(
                        "call_tool", {"name": "guarded__whoami", "arguments": {}}
                    )
                    return text(result)

            answers = []
            for restart in range(3):
                if restart == 2:  # the access token has expired since: it is refreshed
                    (kept,) = list(tokens.iterdir())
                    stored = json.loads(kept.read_text())
                    stored["tokens"]["expires_at"] = time.time() - 60
                    kept.write_text(json.dumps(stored))
                gateway = GatewayProcess(config, "--port", "0", env=env)
                try:
                    answers.append(run(lambda g=gateway: whoami(g.url()), limit=60))
                finally:
                    gateway.stop()
                answers.append(events.read_text().splitlines())
        assert answers == [
            "signed in as a registered client",
            ["register", "authorize"],
            "signed in as a registered client",
            ["register", "authorize"],  # the kept tokens were used
            "signed in as a registered client",
            ["register", "authorize", "refresh"],
        ]
        assert len(opened.read_text().splitlines()) == 1  # one sign-in page, ever
        (kept,) = list(tokens.iterdir())
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert set(json.loads(kept.read_text())) == {"client_info", "tokens"}

    def test_a_token_file_nested_too_deep_means_signing_in_again(self, tmp_path: Path) -> None:
        from toolscout.gateway.oauth import token_file

        events, opened = tmp_path / "server.log", tmp_path / "browser.log"
        browser = f"{sys.executable} {SERVERS / 'browser.py'} %s"
        env = {"BROWSER": browser, "BROWSER_LOG": str(opened)}
        tokens = tmp_path / "tokens"
        with http_server("guarded", "{port}", env={"GUARDED_LOG": str(events)}) as port:
            url = f"http://127.0.0.1:{port}/mcp"
            config = write_config(
                tmp_path, {"guarded": {"url": url}}, gateway={"oauth_dir": str(tokens)}
            )
            tokens.mkdir(mode=0o700)
            nested = '{"tokens": ' + "[" * 100_000 + "]" * 100_000 + "}"
            token_file(tokens, url).write_text(nested)

            async def whoami(url: str) -> str:
                async with http_client(url, token=None) as client:
                    result = await client.call_tool(
                        "call_tool", {"name": "guarded__whoami", "arguments": {}}
                    )
                    return text(result)

            gateway = GatewayProcess(config, "--port", "0", env=env)
            try:
                answer = run(lambda: whoami(gateway.url()), limit=60)
            finally:
                gateway.stop()
        assert answer == "signed in as a registered client"
        assert events.read_text().splitlines() == ["register", "authorize"]
        assert set(json.loads(token_file(tokens, url).read_text())) == {"client_info", "tokens"}


def test_a_sign_in_nobody_completes_fails_the_attempt_with_a_reason(tmp_path: Path) -> None:
    with http_server("guarded", "{port}") as port:
        guarded = {
            "url": f"http://127.0.0.1:{port}/mcp",
            "oauth": {"sign_in_timeout": 1},
        }
        settings = {"oauth_dir": str(tmp_path), "restart": {"initial_delay": 30}}
        saved = os.environ.get("BROWSER")
        os.environ["BROWSER"] = "true"  # a browser that opens nothing
        try:

            async def scenario() -> str:
                async with serving({"guarded": guarded}, gateway=settings) as (gateway, client):
                    with anyio.fail_after(20):
                        while gateway.upstreams["guarded"].status.state == "starting":
                            await anyio.sleep(0.1)
                    return text(await call(client, "guarded__whoami"))

            answer = run(scenario)
        finally:
            if saved is None:
                os.environ.pop("BROWSER")
            else:
                os.environ["BROWSER"] = saved
    assert answer.startswith("The server 'guarded' is not connected (")
