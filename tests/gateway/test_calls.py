"""Calls without a search: a tool called by its exact id in a session that never searched,
in every mode, with the argument check and the filter; `require_discovery` for those who
want the search first; and a tool of a server that is down, which says so."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.gateway.conftest import GatewayProcess, http_client, run, server, write_config
from tests.gateway.test_lifecycle import call, serving, text, until
from toolscout.catalog import Tool
from toolscout.gateway import Gateway, GatewayConfig, GatewayServer
from toolscout.protocol import Phase


class TestCallsWithoutASearch:
    def test_a_new_http_session_calls_a_known_tool_at_once(self, tmp_path: Path) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        gateway = GatewayProcess(config, "--port", "0")
        try:
            url = gateway.url()

            async def reconnect_and_call() -> list[str]:
                answers = []
                for title in ("groceries", "holidays"):  # two sessions, neither searches
                    async with http_client(url, token=None) as client:
                        result = await call(client, "notes__read_note", title=title)
                        answers.append(text(result))
                return answers

            answers = run(reconnect_and_call)
        finally:
            gateway.stop()
        assert answers == ["milk, eggs, flour", "no such note"]

    @pytest.mark.parametrize("mode", ["load", "auto_load", "lazy"])
    def test_in_the_other_modes_a_tool_is_called_directly_by_its_id(self, mode: str) -> None:
        async def scenario() -> tuple[str, str]:
            settings = {"mode": mode}
            async with serving({"notes": server("notes")}, tool_search=settings) as (_, client):
                read = await client.call_tool("notes__read_note", {"title": "groceries"})
                wrong = await client.call_tool("notes__read_note", {"title": 3})
                return text(read), text(wrong)

        read, wrong = run(scenario)
        assert read == "milk, eggs, flour"
        assert wrong.startswith("Invalid arguments for notes__read_note: title: 3 is not of type")

    def test_require_discovery_asks_for_the_search_first(self) -> None:
        async def scenario() -> tuple[str, str]:
            settings = {"require_discovery": True}
            async with serving({"notes": server("notes")}, tool_search=settings) as (_, client):
                before = await call(client, "notes__read_note", title="groceries")
                await client.call_tool("search_tools", {"queries": ["read a note"]})
                after = await call(client, "notes__read_note", title="groceries")
                return text(before), text(after)

        before, after = run(scenario)
        assert before.startswith(
            "Tool 'notes__read_note' is not loaded yet: call search_tools with "
            '{"queries": ["notes__read_note"]}'
        )
        assert after == "milk, eggs, flour"

    def test_a_filter_still_fails_closed(self) -> None:
        def no_archiving(tool: Tool, request: Any, phase: Phase) -> bool:
            if tool.name == "archive_note":
                raise RuntimeError("the policy service is down")
            return True

        async def scenario() -> list[str]:
            async with serving({"notes": server("notes")}, filter=no_archiving) as (_, client):
                return [
                    text(await call(client, "notes__archive_note", title="groceries")),
                    text(await client.call_tool("notes__archive_note", {"title": "groceries"})),
                ]

        for answer in run(scenario):
            assert answer.startswith("Unknown tool 'notes__archive_note'.")


class TestAServerThatIsDown:
    def test_its_tools_answer_with_its_name_state_error_and_next_attempt(
        self, tmp_path: Path
    ) -> None:
        broken = server("crashy", env={"CRASHY_EXIT_AT_START": "1"})
        restart = {"restart": {"initial_delay": 20, "max_delay": 20}}

        async def scenario() -> str:
            async with serving({"sqlite": broken}, gateway=restart) as (gateway, client):
                await until(lambda: gateway.upstreams["sqlite"].status.failures >= 1)
                return text(await call(client, "sqlite__read_query", query="select 1"))

        answer = run(scenario)
        assert answer.startswith(
            "The server 'sqlite' is not connected (it closed the connection (did its process "
            "exit?)), so 'read_query' cannot run now. The gateway restarts it in "
        )
        assert answer.endswith("s (attempt 2); try again after that.")

    def test_its_stderr_is_printed_once_per_failure_not_at_every_retry(self) -> None:
        stderr = io.StringIO()
        broken = server("crashy", env={"CRASHY_EXIT_AT_START": "1"})
        config = GatewayConfig.model_validate(
            {"servers": {"broken": broken}, "gateway": {"restart": {"initial_delay": 0.1}}}
        )

        async def scenario() -> None:
            gateway = Gateway(config, errlog=stderr)
            async with gateway.running():
                await until(lambda: gateway.upstreams["broken"].status.failures >= 4, 25)

        run(scenario)
        assert stderr.getvalue() == "crashy: cannot start (CRASHY_EXIT_AT_START is set)\n"


def test_a_stdio_session_that_never_searched_calls_a_tool(tmp_path: Path) -> None:
    """The same over stdio, through the MCP face alone (no Gateway attribute read)."""
    config = GatewayConfig.model_validate({"servers": {"notes": server("notes")}})

    async def scenario() -> str:
        gateway = Gateway(config)
        async with gateway.running():
            await gateway.settled()
            async with Client(GatewayServer(gateway, "stdio").server) as client:
                with anyio.fail_after(10):
                    return text(await call(client, "notes__read_note", title="groceries"))

    assert run(scenario) == "milk, eggs, flour"
