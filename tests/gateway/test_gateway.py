"""The gateway as a client sees it: a real MCP session, over stdio and over streamable HTTP,
with `toolscout serve` in front of real test servers (notes and slow over stdio, files over
HTTP, and a hand-written one with malformed tool definitions)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from tests.gateway.conftest import (
    SERVERS,
    TOKEN,
    GatewayProcess,
    free_port,
    http_client,
    run,
    server,
    stdio_client,
    stop,
    until,
    wait_for_port,
    write_config,
)

Connect = Callable[[], AbstractAsyncContextManager[Client]]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gateway")


@pytest.fixture(scope="module")
def config(folder: Path, files_url: str) -> Path:
    return write_config(
        folder,
        {
            "notes": server("notes", pinned=["read_note"]),
            "files": {"url": files_url, "exclude": ["delete_file"]},
            "slow": server("slow", env={"SLOW_LOG": str(folder / "slow.log")}),
            "malformed": server("malformed"),
        },
        gateway={"auth": {"tokens_env": "GATEWAY_TEST_TOKENS"}},
    )


@pytest.fixture(scope="module")
def http_gateway(config: Path) -> Iterator[GatewayProcess]:
    gateway = GatewayProcess(config, "--port", "0", env={"GATEWAY_TEST_TOKENS": TOKEN})
    try:
        gateway.url()
        yield gateway
    finally:
        gateway.stop()


@pytest.fixture(scope="module")
def http_url(http_gateway: GatewayProcess) -> str:
    return http_gateway.url()


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, config: Path) -> Connect:
    """Opens a client session with the gateway, over each transport in turn: for what
    depends on the transport (sessions, notifications, cancellation, results)."""
    if request.param == "stdio":
        return lambda: stdio_client(config)
    url = str(request.getfixturevalue("http_url"))
    return lambda: http_client(url)


@pytest.fixture
def connect_http(http_url: str) -> Connect:
    """Opens a client session with the gateway over HTTP: for what tool search decides the
    same way whatever the transport (one gateway process serves all these tests)."""
    return lambda: http_client(http_url)


def text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def found(client: Client, *queries: str) -> list[list[str]]:
    """The tool names `search_tools` finds for each query."""
    result = await client.call_tool("search_tools", {"queries": list(queries)})
    assert not result.is_error, text(result)
    payload = json.loads(text(result))
    return [[tool["name"] for tool in entry["tools"]] for entry in payload["results"]]


async def call(client: Client, name: str, /, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool("call_tool", {"name": name, "arguments": arguments})


class TestToolList:
    def test_only_the_pinned_tools_and_the_meta_tools_are_listed(self, connect: Connect) -> None:
        async def scenario() -> list[str]:
            async with connect() as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert run(scenario) == ["notes__read_note", "search_tools", "call_tool"]

    def test_a_pinned_tool_keeps_its_server_s_definition(self, connect_http: Connect) -> None:
        async def scenario() -> types.Tool:
            async with connect_http() as client:
                return (await client.list_tools()).tools[0]

        pinned = run(scenario)
        assert pinned.description == "Read a note by its title."
        assert pinned.input_schema["required"] == ["title"]


class TestSearch:
    def test_tools_of_the_same_name_are_told_apart_by_their_server(self, connect: Connect) -> None:
        async def scenario() -> tuple[list[list[str]], list[str]]:
            async with connect() as client:
                names = await found(client, "search the notes", "search in workspace files")
                answers = [
                    text(await call(client, "notes__search", query="eggs")),
                    text(await call(client, "files__search", pattern="build")),
                ]
                return names, answers

        (notes, files), answers = run(scenario)
        assert notes[0] == "notes__search"
        assert "files__search" in notes + files
        assert answers == ["groceries", "readme.md"]

    def test_results_carry_full_definitions(self, connect_http: Connect) -> None:
        async def scenario() -> dict[str, Any]:
            async with connect_http() as client:
                result = await client.call_tool("search_tools", {"queries": ["write a file"]})
                return dict(json.loads(text(result)))

        payload = run(scenario)
        first = payload["results"][0]["tools"][0]
        assert first["name"] == "files__write_file"
        assert first["parameters"]["required"] == ["path", "text"]
        assert "call_tool" in payload["next"]

    def test_a_request_no_tool_serves_finds_nothing(self, connect_http: Connect) -> None:
        async def scenario() -> list[list[str]]:
            async with connect_http() as client:
                return await found(client, "book a flight to Lisbon")

        assert run(scenario) == [[]]


class TestCalls:
    def test_results_pass_through_unchanged(self, connect: Connect) -> None:
        """Text, image, structured content and `_meta`: what the server sent directly."""

        async def direct() -> types.CallToolResult:
            notes = server("notes")
            async with Client(StdioServerParameters(**notes)) as client:
                return await client.call_tool("note_stats", {"title": "groceries"})

        async def through_gateway() -> types.CallToolResult:
            async with connect() as client:
                await found(client, "note word statistics")
                return await call(client, "notes__note_stats", title="groceries")

        expected, relayed = run(direct), run(through_gateway)
        assert relayed.content == expected.content
        assert (
            relayed.structured_content
            == expected.structured_content
            == {
                "title": "groceries",
                "words": 3,
            }
        )
        assert relayed.is_error is False
        assert relayed.meta is not None and relayed.meta["notes/source"] == "test"
        assert isinstance(relayed.content[1], types.ImageContent)

    def test_an_error_result_passes_through(self, connect_http: Connect) -> None:
        async def scenario() -> types.CallToolResult:
            async with connect_http() as client:
                await found(client, "archive a note")
                return await call(client, "notes__archive_note", title="groceries")

        result = run(scenario)
        assert result.is_error
        assert text(result) == "cannot archive groceries: archive is read-only"

    def test_a_pinned_tool_is_called_by_its_id(self, connect: Connect) -> None:
        async def scenario() -> types.CallToolResult:
            async with connect() as client:
                return await client.call_tool("notes__read_note", {"title": "groceries"})

        assert text(run(scenario)) == "milk, eggs, flour"

    def test_a_tool_not_found_yet_is_called_by_its_id(self, connect_http: Connect) -> None:
        async def scenario() -> types.CallToolResult:
            async with connect_http() as client:
                return await call(client, "files__read_file", path="readme.md")

        assert text(run(scenario)) == "# Project\nHow to build it."

    def test_call_tool_refuses_the_meta_tools(self, connect_http: Connect) -> None:
        async def scenario() -> list[types.CallToolResult]:
            async with connect_http() as client:
                return [
                    await call(client, "search_tools", queries=["notes"]),
                    await call(client, "call_tool", name="notes__read_note"),
                ]

        for result in run(scenario):
            assert result.is_error
            assert "is a meta-tool" in text(result)

    def test_wrong_arguments_are_refused_with_the_expected_ones(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> types.CallToolResult:
            async with connect_http() as client:
                await found(client, "read a file")
                return await call(client, "files__read_file", file="readme.md")

        result = run(scenario)
        assert result.is_error
        assert "path: string, required" in text(result)

    def test_progress_reaches_the_client(self, connect: Connect) -> None:
        async def scenario() -> tuple[types.CallToolResult, list[float]]:
            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            async with connect() as client:
                await found(client, "wait seconds")
                result = await client.call_tool(
                    "call_tool",
                    {"name": "slow__wait", "arguments": {"seconds": 0.3}},
                    progress_callback=on_progress,
                )
                return result, progress

        result, progress = run(scenario)
        assert text(result) == "waited 0.3 s"
        # The last notification may arrive after the result, which ends the call.
        assert progress[:2] == [1.0, 2.0]


class TestTimeoutsAndCancellation:
    def test_a_call_that_hangs_is_cancelled_at_the_timeout(self, tmp_path: Path) -> None:
        log = tmp_path / "slow.log"
        config = write_config(
            tmp_path, {"slow": server("slow", env={"SLOW_LOG": str(log)}, timeout=1.0)}
        )

        async def scenario() -> types.CallToolResult:
            async with stdio_client(config) as client:
                await found(client, "hang")
                result = await call(client, "slow__hang")
                # The cancellation travels on to the server.
                await until(lambda: log.exists() and "cancelled hang" in log.read_text())
                return result

        result = run(scenario)
        assert result.is_error
        assert (
            text(result) == "The call to 'hang' on 'slow' took longer than 1 s and was cancelled."
        )
        assert log.read_text().count("cancelled hang") == 1

    def test_a_client_that_cancels_cancels_the_upstream_call(
        self, connect: Connect, folder: Path
    ) -> None:
        log = folder / "slow.log"
        before = log.read_text().count("cancelled wait") if log.exists() else 0

        def cancelled() -> int:
            return (log.read_text().count("cancelled wait") if log.exists() else 0) - before

        async def scenario() -> None:
            async with connect() as client:
                await found(client, "wait seconds")
                with anyio.CancelScope() as scope:

                    async def on_progress(value: float, total: float | None, _: str | None) -> None:
                        scope.cancel()  # the call is running on the server: cancel it

                    arguments = {"name": "slow__wait", "arguments": {"seconds": 60}}
                    await client.call_tool("call_tool", arguments, progress_callback=on_progress)
                # Only the client's cancellation can end the 60-second wait this soon.
                await until(lambda: cancelled() > 0)

        run(scenario)
        assert cancelled() == 1


class TestExcludedTools:
    def test_an_excluded_tool_is_not_searchable(self, connect_http: Connect) -> None:
        async def scenario() -> list[list[str]]:
            async with connect_http() as client:
                return await found(client, "delete a file")

        assert "files__delete_file" not in run(scenario)[0]

    def test_an_excluded_tool_is_not_callable_by_any_route(self, connect: Connect) -> None:
        async def scenario() -> list[types.CallToolResult]:
            async with connect() as client:
                await found(client, "delete a file", "files__delete_file")
                return [
                    await call(client, "files__delete_file", path="todo.txt"),
                    await client.call_tool("files__delete_file", {"path": "todo.txt"}),
                ]

        for result in run(scenario):
            assert result.is_error
            assert text(result).startswith("Unknown tool 'files__delete_file'.")


class TestMalformedServer:
    def test_its_well_formed_tools_are_offered_and_the_others_left_out(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> list[list[str]]:
            async with connect_http() as client:
                return await found(
                    client,
                    "look up a word",
                    "count the letters of a word",
                    "schema of the wrong type",
                )

        words, letters, wrong = run(scenario)
        assert words[0] == "malformed__lookup_word"
        assert letters[0] == "malformed__odd_schema"
        assert "malformed__array_schema" not in wrong  # its schema is an array

    def test_a_tool_with_an_invalid_schema_is_still_callable(self, connect_http: Connect) -> None:
        async def scenario() -> types.CallToolResult:
            async with connect_http() as client:
                await found(client, "letters of a word")
                return await call(client, "malformed__odd_schema", word="gateway")

        assert text(run(scenario)) == "gateway: 7 letters"

    def test_a_tool_whose_text_is_not_unicode_is_left_out_and_the_rest_offered(
        self, connect_http: Connect, http_gateway: GatewayProcess
    ) -> None:
        # A lone surrogate makes the SDK refuse the whole listing: the server was lost.
        async def scenario() -> list[list[str]]:
            async with connect_http() as client:
                return await found(client, "spell a word backwards")

        (backwards,) = run(scenario)
        assert "malformed__broken_text" not in backwards
        assert "malformed__lookup_word" in backwards
        log = "".join(http_gateway.lines)
        assert "'broken_text' is skipped: its description is not valid Unicode" in log

    def test_a_result_that_is_not_unicode_is_refused_and_the_server_stays(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> list[types.CallToolResult]:
            async with connect_http() as client:
                await found(client, "garble a word", "letters of a word")
                return [
                    await call(client, "malformed__garbled_word", word="ab"),
                    await call(client, "malformed__odd_schema", word="ab"),
                ]

        garbled, fine = run(scenario)
        assert garbled.is_error
        assert text(garbled) == (
            "The result of 'garbled_word' on 'malformed' holds text that is not valid Unicode "
            "(a lone surrogate, at content.0.text), so the gateway cannot pass it on."
        )
        assert text(fine) == "ab: 2 letters"

    def test_a_long_tool_name_is_cut_in_the_log(self, http_gateway: GatewayProcess) -> None:
        (line,) = [line for line in http_gateway.lines if "'nnnn" in line]
        assert "… (10,000 characters) is skipped: name:" in line
        assert len(line) < 300


@pytest.fixture(scope="module")
def sized_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A gateway that takes results up to 2 MB from a server over streamable HTTP."""
    port = free_port()
    upstream = subprocess.Popen(
        [sys.executable, str(SERVERS / "sized.py"), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    config = write_config(
        tmp_path_factory.mktemp("sized"),
        {"sized": {"url": f"http://127.0.0.1:{port}/mcp", "pinned": ["text_of_size"]}},
        gateway={"max_result_size": 2_000_000},
    )
    try:
        wait_for_port(port, upstream)
        gateway = GatewayProcess(config, "--port", "0")
        try:
            yield gateway.url()
        finally:
            gateway.stop()
    finally:
        stop(upstream)


class TestLargeResults:
    def test_a_result_over_one_mib_passes_and_one_over_the_limit_is_refused(
        self, sized_gateway: str
    ) -> None:
        async def scenario() -> list[types.CallToolResult]:
            async with http_client(sized_gateway, token=None) as client:
                return [
                    await client.call_tool("sized__text_of_size", {"size": size})
                    for size in (1_010_000, 3_000_000, 10)
                ]

        large, too_large, small = run(scenario)
        assert not large.is_error and len(text(large)) == 1_010_000
        assert too_large.is_error
        assert text(too_large) == (
            "The result of 'text_of_size' on 'sized' is larger than 2,000,000 bytes "
            "(gateway.max_result_size), so the gateway did not take it. Ask for less (a "
            "narrower query, fewer items, a smaller file), or raise gateway.max_result_size."
        )
        assert text(small) == "x" * 10  # the connection is still up
