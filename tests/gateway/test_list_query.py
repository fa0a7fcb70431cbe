"""Search in `tools/list` (experimental, SEP-1821): a real MCP client sends `tools/list` with
a `query` (and a `limit`) to `toolscout serve` over stdio and over streamable HTTP, and gets
the tools `search_tools` would return, ranked, with their servers' definitions."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.gateway.conftest import (
    GatewayProcess,
    http_client,
    run,
    server,
    stdio_client,
    write_config,
)

Connect = Callable[[], AbstractAsyncContextManager[Client]]


class QueryParams(types.PaginatedRequestParams):
    """`tools/list`'s parameters as a client of the proposal sends them; any values, so that
    bad ones can be sent too."""

    query: Any = None
    limit: Any = None


class QueryListTools(types.ListToolsRequest):
    params: QueryParams | None = None


async def listed(client: Client, **params: Any) -> list[types.Tool]:
    """`tools/list` with these parameters (none: a plain `tools/list`)."""
    request = QueryListTools(params=QueryParams(**params))
    result = await client.session.send_request(request, types.ListToolsResult)
    return list(result.tools)


async def names(client: Client, **params: Any) -> list[str]:
    return [tool.name for tool in await listed(client, **params)]


async def search_tools(client: Client, query: str) -> list[str]:
    result = await client.call_tool("search_tools", {"queries": [query]})
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return [tool["name"] for tool in payload["results"][0]["tools"]]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(
        tmp_path_factory.mktemp("list-query"),
        {
            "notes": server("notes", pinned=["read_note"]),
            "files": server("files", exclude=["delete_file"]),
        },
        tool_search={"max_results": 3},
    )


@pytest.fixture(scope="module")
def http_url(config: Path) -> Iterator[str]:
    gateway = GatewayProcess(config, "--port", "0")
    try:
        yield gateway.url()
    finally:
        gateway.stop()


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, config: Path) -> Connect:
    if request.param == "stdio":
        return lambda: stdio_client(config)
    url = str(request.getfixturevalue("http_url"))
    return lambda: http_client(url, None)


@pytest.fixture
def connect_http(http_url: str) -> Connect:
    return lambda: http_client(http_url, None)


class TestQuery:
    def test_a_query_lists_what_search_tools_finds_in_its_order(self, connect: Connect) -> None:
        async def scenario() -> tuple[list[str], list[str]]:
            async with connect() as client:
                query = "write text to a file"
                return await names(client, query=query), await search_tools(client, query)

        by_list, by_search = run(scenario)
        assert by_list == by_search and by_list[0] == "files__write_file"

    def test_tools_keep_their_servers_definitions(self, connect_http: Connect) -> None:
        async def scenario() -> list[types.Tool]:
            async with connect_http() as client:
                return await listed(client, query="files__write_file")

        (tool, *_) = run(scenario)
        assert tool.name == "files__write_file"
        assert tool.description == "Write text to a file in the workspace."
        assert tool.input_schema["required"] == ["path", "text"]

    def test_limit_gives_fewer_and_max_results_caps_it(self, connect_http: Connect) -> None:
        async def scenario() -> tuple[int, int]:
            async with connect_http() as client:
                one = await names(client, query="notes", limit=1)
                many = await names(client, query="notes", limit=20)
                return len(one), len(many)

        assert run(scenario) == (1, 3)

    def test_a_plain_list_is_unchanged(self, connect: Connect) -> None:
        async def scenario() -> tuple[list[str], list[str]]:
            async with connect() as client:
                plain = [tool.name for tool in (await client.list_tools()).tools]
                return plain, await names(client)

        plain, without_query = run(scenario)
        assert plain == without_query == ["notes__read_note", "search_tools", "call_tool"]

    def test_excluded_and_pinned_tools_are_never_results(self, connect_http: Connect) -> None:
        async def scenario() -> tuple[list[str], list[str]]:
            async with connect_http() as client:
                deleted = await names(client, query="delete a file")
                read = await names(client, query="notes__read_note")
                return deleted, read

        deleted, read = run(scenario)
        assert "files__delete_file" not in deleted and "notes__read_note" not in read

    def test_a_query_no_tool_serves_lists_nothing(self, connect_http: Connect) -> None:
        async def scenario() -> list[str]:
            async with connect_http() as client:
                return await names(client, query="book a flight to Lisbon")

        assert run(scenario) == []

    def test_a_listed_tool_is_callable_by_its_name(self, connect: Connect) -> None:
        async def scenario() -> str:
            async with connect() as client:
                (name, *_) = await names(client, query="add a note")
                result = await client.call_tool(name, {"title": "a", "text": "b"})
                return f"{name}: {result.is_error}"

        assert run(scenario) == "notes__add_note: False"

    @pytest.mark.parametrize(
        ("params", "problem"),
        [
            ({"query": ""}, "query is empty"),
            ({"query": "   "}, "query is empty"),
            ({"query": 42}, "query input should be a valid string"),
            ({"limit": 2}, "query field required"),
            ({"query": "notes", "limit": 0}, "limit input should be greater than or equal to 1"),
            ({"query": "notes", "limit": "many"}, "limit input should be a valid integer"),
            ({"query": "x" * 4_001}, "query string should have at most 4000 characters"),
        ],
    )
    def test_bad_parameters_are_an_error_naming_them(
        self, connect_http: Connect, params: dict[str, Any], problem: str
    ) -> None:
        async def scenario() -> MCPError:
            async with connect_http() as client:
                with pytest.raises(MCPError) as raised:
                    await listed(client, **params)
                return raised.value

        error = run(scenario)
        assert error.error.code == types.INVALID_PARAMS
        assert problem in str(error)


class TestSearchOff:
    def test_with_search_off_the_query_is_ignored(self, tmp_path: Path) -> None:
        config = write_config(tmp_path, {"files": server("files")}, tool_search={"enabled": False})

        async def scenario() -> list[str]:
            async with stdio_client(config) as client:
                return await names(client, query="write text to a file")

        assert run(scenario) == [
            "files__search",
            "files__read_file",
            "files__write_file",
            "files__delete_file",
        ]
