"""Upstreams that crash, hang, restart and change their tools while the gateway runs, and the
filter. The gateway runs in the test's process (so its catalog can be looked at), with a real
MCP client session on it and real upstream processes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from tests.gateway.conftest import SERVERS, free_port, run, server, until, wait_for_port
from tests.limits import HANG
from toolscout.catalog import Tool
from toolscout.gateway import Gateway, GatewayConfig, GatewayServer, UpstreamStatus
from toolscout.protocol import Phase

FAST_RESTART = {"restart": {"initial_delay": 0.2, "max_delay": 0.4}}


@asynccontextmanager
async def serving(
    servers: dict[str, Any],
    *,
    filter: Callable[[Tool, Any, Phase], bool] | None = None,
    **sections: Any,
) -> AsyncIterator[tuple[Gateway, Client]]:
    """A gateway over these servers, and a client session with it."""
    config = GatewayConfig.model_validate({"servers": servers, **sections})
    gateway = Gateway(config, filter=filter)
    front = GatewayServer(gateway, "stdio")
    async with gateway.running():
        await gateway.settled()
        async with Client(front.server) as client:
            yield gateway, client


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def call(client: Client, name: str, /, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool("call_tool", {"name": name, "arguments": arguments})


async def find(client: Client, query: str) -> list[str]:
    result = await client.call_tool("search_tools", {"queries": [query]})
    return [tool["name"] for tool in json.loads(text(result))["results"][0]["tools"]]


def namespace_tools(gateway: Gateway, namespace: str) -> dict[str, Tool]:
    return {tool.id: tool for tool in gateway.catalog if tool.namespace == namespace}


class TestCrashes:
    def test_an_upstream_killed_mid_call_answers_with_an_error_and_comes_back(self) -> None:
        async def scenario() -> tuple[types.CallToolResult, types.CallToolResult, bool]:
            async with serving({"slow": server("slow")}, gateway=FAST_RESTART) as (gw, client):
                await find(client, "process id of the slow server")
                await find(client, "wait seconds")
                pid = int(text(await call(client, "slow__server_pid")))
                results: list[types.CallToolResult] = []
                running = anyio.Event()

                async def on_progress(value: float, total: float | None, text: str | None) -> None:
                    running.set()

                async with anyio.create_task_group() as group:

                    async def waiting() -> None:
                        arguments = {"name": "slow__wait", "arguments": {"seconds": 60}}
                        results.append(
                            await client.call_tool(
                                "call_tool", arguments, progress_callback=on_progress
                            )
                        )

                    group.start_soon(waiting)
                    await running.wait()  # the server is in the middle of the call
                    os.kill(pid, signal.SIGKILL)
                upstream = gw.upstreams["slow"]
                await until(lambda: upstream.status.connections == 2)
                again = await call(client, "slow__wait", seconds=0.1)
                new_pid = int(text(await call(client, "slow__server_pid")))
                return results[0], again, new_pid != pid

        lost, again, restarted = run(scenario)
        assert lost.is_error
        assert text(lost).startswith("The server 'slow' disconnected during the call to 'wait'")
        assert restarted
        assert text(again) == "waited 0.1 s"

    def test_a_crashed_upstream_s_tools_say_when_it_will_be_back(self, tmp_path: Path) -> None:
        starts = tmp_path / "starts"
        crashy = server("crashy", env={"CRASHY_STARTS": str(starts)})
        # Long enough that the call after the crash always comes before the restart.
        restart = {"restart": {"initial_delay": 4, "max_delay": 8}}

        async def scenario() -> tuple[str, str, str]:
            async with serving({"crashy": crashy}, gateway=restart) as (gateway, client):
                await find(client, "end process")
                await find(client, "pong")
                crashed = await call(client, "crashy__crash")
                meanwhile = await call(client, "crashy__ping")
                upstream = gateway.upstreams["crashy"]
                await until(lambda: upstream.status.connections == 2)
                return text(crashed), text(meanwhile), text(await call(client, "crashy__ping"))

        crashed, meanwhile, back = run(scenario)
        assert "disconnected during the call to 'crash'" in crashed
        when = re.fullmatch(
            r"The server 'crashy' is not connected \(it closed the connection \(did its process "
            r"exit\?\)\), so 'ping' cannot run now\. The gateway restarts it in ([\d.]+) s "
            r"\(attempt 2\); try again after that\.",
            meanwhile,
        )
        assert when is not None, meanwhile
        assert 0 <= float(when[1]) <= 4
        assert back == "pong"
        assert starts.read_text().count("start") == 2

    def test_an_upstream_that_cannot_start_is_retried_with_backoff(self, tmp_path: Path) -> None:
        starts = tmp_path / "starts"
        broken = server("crashy", env={"CRASHY_STARTS": str(starts), "CRASHY_EXIT_AT_START": "1"})
        missing = {"command": str(tmp_path / "no-such-server")}
        settings = {"restart": {"initial_delay": 0.1, "max_delay": 0.4}, "connect_timeout": HANG}

        async def scenario() -> tuple[list[str], UpstreamStatus, UpstreamStatus]:
            servers = {"notes": server("notes"), "broken": broken, "missing": missing}
            async with serving(servers, gateway=settings) as (gateway, client):
                broken_upstream = gateway.upstreams["broken"]
                missing_upstream = gateway.upstreams["missing"]
                notes_upstream = gateway.upstreams["notes"]
                await until(lambda: broken_upstream.status.failures >= 2)
                await until(lambda: missing_upstream.status.failures >= 4)
                await until(lambda: notes_upstream.status.state == "connected")
                names = await find(client, "read a note")
                return names, broken_upstream.status, missing_upstream.status

        names, broken_status, missing_status = run(scenario)
        assert names[0] == "notes__read_note"
        assert broken_status.state == missing_status.state == "restarting"
        assert broken_status.error == "it closed the connection (did its process exit?)"
        assert starts.read_text().count("start") >= 2
        assert (
            missing_status.error == f"cannot run {tmp_path / 'no-such-server'}: command not found"
        )
        # Waits of 0.1, 0.2, 0.4, 0.4... s: doubled after each failure, up to max_delay.
        assert missing_status.retry_delay == 0.4

    def test_an_http_upstream_that_goes_away_is_reconnected_to(self) -> None:
        port = free_port()

        def start() -> subprocess.Popen[bytes]:
            process = subprocess.Popen(
                [sys.executable, str(SERVERS / "files.py"), "--http", str(port)],
                stderr=subprocess.DEVNULL,
            )
            wait_for_port(port, process)
            return process

        processes = [start()]
        files = {"url": f"http://127.0.0.1:{port}/mcp"}

        async def scenario() -> list[str]:
            async with serving({"files": files}, gateway=FAST_RESTART) as (gateway, client):
                await find(client, "read a file")
                answers = [text(await call(client, "files__read_file", path="todo.txt"))]
                processes[0].kill()
                processes[0].wait()
                answers.append(text(await call(client, "files__read_file", path="todo.txt")))
                upstream = gateway.upstreams["files"]
                await until(lambda: upstream.status.failures >= 2)
                answers.append(text(await call(client, "files__read_file", path="todo.txt")))
                processes.append(start())
                await until(lambda: upstream.status.connections == 2)
                answers.append(text(await call(client, "files__read_file", path="todo.txt")))
                return answers

        try:
            before, lost, down, back = run(scenario)
        finally:
            for process in processes:
                process.kill()
                process.wait()
        assert before == back == "write tests"
        assert lost.startswith("The server 'files' disconnected during the call to 'read_file'")
        assert "The gateway is reconnecting to it" in lost
        assert down.startswith(
            f"The server 'files' is not connected (cannot reach http://127.0.0.1:{port}/mcp "
            "(ConnectError)), so 'read_file' cannot run now. The gateway reconnects to it in "
        )


class TestToolListChanges:
    def test_a_change_re_indexes_only_the_tools_that_changed(self) -> None:
        async def scenario() -> None:
            async with serving({"notes": server("notes")}) as (gateway, client):
                before = namespace_tools(gateway, "notes")
                await find(client, "add a tool to this server")
                await find(client, "change a tool description")
                await find(client, "remove a tool")

                await call(client, "notes__add_tool", name="summarize", description="Sum up.")
                await until(lambda: "notes__summarize" in gateway.catalog)
                after = namespace_tools(gateway, "notes")
                assert all(after[tool_id] is tool for tool_id, tool in before.items())
                assert "notes__summarize" in await find(client, "sum up a note")

                await call(client, "notes__describe_tool", name="search", description="Find.")
                await until(lambda: gateway.catalog["notes__search"].description == "Find.")
                changed = namespace_tools(gateway, "notes")
                assert [i for i in changed if changed[i] is not after[i]] == ["notes__search"]

                await call(client, "notes__remove_tool", name="summarize")
                await until(lambda: "notes__summarize" not in gateway.catalog)
                refused = await call(client, "notes__summarize")
                assert text(refused).startswith("Unknown tool 'notes__summarize'.")

        run(scenario)

    def test_a_reconnection_re_indexes_nothing_when_the_tools_are_the_same(self) -> None:
        async def scenario() -> None:
            async with serving({"notes": server("notes")}, gateway=FAST_RESTART) as (gw, client):
                await find(client, "process id of the notes server")
                pid = int(text(await call(client, "notes__server_pid")))
                before, version = namespace_tools(gw, "notes"), gw.catalog.version
                os.kill(pid, signal.SIGKILL)
                upstream = gw.upstreams["notes"]
                await until(lambda: upstream.status.connections == 2)
                after = namespace_tools(gw, "notes")
                assert all(after[tool_id] is tool for tool_id, tool in before.items())
                assert gw.catalog.version == version
                assert int(text(await call(client, "notes__server_pid"))) != pid

        run(scenario)

    def test_clients_are_told_when_a_pinned_tool_appears(self) -> None:
        async def scenario() -> None:
            notes = server("notes", pinned=["read_note", "summarize"])
            async with serving({"notes": notes}) as (_, client):
                listed = [tool.name for tool in (await client.list_tools()).tools]
                assert listed == ["notes__read_note", "search_tools", "call_tool"]
                async with client.listen(tools_list_changed=True) as events:
                    await find(client, "add a tool to this server")
                    await call(client, "notes__add_tool", name="summarize", description="Sum.")
                    await events.__anext__()
                listed = [tool.name for tool in (await client.list_tools()).tools]
                assert listed == [
                    "notes__read_note",
                    "notes__summarize",
                    "search_tools",
                    "call_tool",
                ]

        run(scenario)

    def test_in_load_mode_a_session_is_told_its_list_grew(self) -> None:
        async def scenario() -> None:
            settings = {"mode": "load"}
            async with serving({"notes": server("notes")}, tool_search=settings) as (_, client):
                async with client.listen(tools_list_changed=True) as events:
                    await client.call_tool("load_tool", {"names": ["notes__read_note"]})
                    await events.__anext__()
                listed = [tool.name for tool in (await client.list_tools()).tools]
                assert listed == ["search_tools", "load_tool", "notes__read_note"]
                read = await client.call_tool("notes__read_note", {"title": "groceries"})
                assert text(read) == "milk, eggs, flour"

        run(scenario)


class TestFilter:
    def test_a_tool_the_filter_denies_is_neither_listed_searchable_nor_callable(self) -> None:
        hidden = {"notes__read_note", "notes__archive_note"}
        asked: list[tuple[str, str]] = []

        def policy(tool: Tool, request: Any, phase: Phase) -> bool:
            asked.append((request.session_id, phase))
            return tool.id not in hidden

        async def scenario() -> None:
            notes = server("notes", pinned=["read_note"])
            async with serving({"notes": notes}, filter=policy) as (_, client):
                listed = [tool.name for tool in (await client.list_tools()).tools]
                assert listed == ["search_tools", "call_tool"]
                assert "notes__archive_note" not in await find(client, "archive a note")
                for result in [
                    await call(client, "notes__archive_note", title="groceries"),
                    await client.call_tool("notes__archive_note", {"title": "groceries"}),
                    await client.call_tool("notes__read_note", {"title": "groceries"}),
                    await call(client, "notes__read_note", title="groceries"),
                ]:
                    assert result.is_error
                    assert text(result).startswith("Unknown tool")

        run(scenario)
        assert {phase for _, phase in asked} >= {"search", "active"}
        assert all(session.startswith("stdio-") for session, _ in asked)


class TestWithoutToolSearch:
    def test_every_tool_is_listed_by_its_id(self) -> None:
        async def scenario() -> list[types.Tool]:
            settings = {"enabled": False}
            async with serving({"notes": server("notes")}, tool_search=settings) as (_, client):
                return (await client.list_tools()).tools

        tools = run(scenario)
        assert [tool.name for tool in tools][:3] == [
            "notes__search",
            "notes__add_note",
            "notes__read_note",
        ]
        assert len(tools) == 9
        stats = next(tool for tool in tools if tool.name == "notes__note_stats")
        assert stats.title == "Note statistics"
        assert stats.output_schema is not None

    def test_a_filtered_tool_answers_as_an_excluded_one(self) -> None:
        # Saying "not available" would tell the caller that the hidden tool exists.
        def no_reading(tool: Tool, request: Any, phase: Phase) -> bool:
            return tool.name != "read_note"

        async def scenario() -> list[str]:
            notes = server("notes", exclude=["archive_note"])
            settings = {"enabled": False}
            async with serving({"notes": notes}, filter=no_reading, tool_search=settings) as (
                _,
                client,
            ):
                listed = [tool.name for tool in (await client.list_tools()).tools]
                assert "notes__read_note" not in listed and "notes__archive_note" not in listed
                return [
                    text(await client.call_tool(f"notes__{name}", {"title": "groceries"}))
                    for name in ("archive_note", "read_note")
                ]

        excluded, filtered = run(scenario)
        assert excluded.startswith("Unknown tool 'notes__archive_note'.")
        assert filtered.startswith("Unknown tool 'notes__read_note'.")
