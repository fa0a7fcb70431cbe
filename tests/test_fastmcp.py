"""`toolscout.fastmcp.ToolScoutSearchTransform` against FastMCP's own `BM25SearchTransform`,
each on the same FastMCP server, through a real FastMCP client session."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.server.transforms.search import (
    BM25SearchTransform,
    serialize_tools_for_output_markdown,
)
from fastmcp.server.transforms.search.base import BaseSearchTransform

from tests.limits import HANG
from toolscout.fastmcp import ToolScoutSearchTransform

T = TypeVar("T")
TRANSFORMS: dict[str, Callable[..., BaseSearchTransform]] = {
    "fastmcp": BM25SearchTransform,
    "toolscout": ToolScoutSearchTransform,
}


def make_server(transform: BaseSearchTransform) -> FastMCP:
    """A handful of tools, one hidden, behind `transform`."""
    server = FastMCP("Tools")

    @server.tool
    def get_current_weather(city: str) -> str:
        """Get the current weather in a city."""
        return f"Sunny in {city}"

    @server.tool
    def create_calendar_event(title: str, start: str) -> str:
        """Create an event in the user's calendar."""
        return f"Created {title}"

    @server.tool
    def getUserProfile(userId: str) -> str:  # a camelCase API, as many are
        """Return the account record."""
        return f"Profile of {userId}"

    @server.tool
    def read_file(path: str) -> str:
        """Read a text file from the workspace."""
        return f"Contents of {path}"

    @server.tool
    def delete_all_files() -> str:
        """Delete every file in the workspace."""
        return "Deleted"

    server.disable(names={"delete_all_files"})
    server.add_transform(transform)
    return server


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    async def bounded() -> T:
        with anyio.fail_after(HANG):
            return await scenario()

    return anyio.run(bounded)


def search(server: FastMCP, query: str) -> Any:
    """What `search_tools` returns, decoded."""

    async def scenario() -> Any:
        async with Client(server) as client:
            result = await client.call_tool("search_tools", {"query": query})
            return result.structured_content or json.loads(result.content[0].text)

    found = run(scenario)
    return found.get("result", found) if isinstance(found, dict) else found


def names(found: Any) -> list[str]:
    return [tool["name"] for tool in found] if isinstance(found, list) else []


@pytest.fixture(params=list(TRANSFORMS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class TestDropIn:
    def test_the_tool_list_is_the_same(self) -> None:
        async def listing(kind: str) -> list[dict[str, Any]]:
            server = make_server(TRANSFORMS[kind](always_visible=["read_file"]))
            async with Client(server) as client:
                return [tool.model_dump() for tool in await client.list_tools()]

        fastmcp, toolscout = run(lambda: listing("fastmcp")), run(lambda: listing("toolscout"))
        assert [tool["name"] for tool in toolscout] == ["read_file", "search_tools", "call_tool"]
        assert toolscout == fastmcp

    def test_the_same_request_finds_the_same_tool_in_the_same_format(self, kind: str) -> None:
        found = search(make_server(TRANSFORMS[kind]()), "weather in Paris")
        assert names(found)[0] == "get_current_weather"
        assert found[0]["inputSchema"]["required"] == ["city"]

    def test_the_markdown_serializer_applies(self, kind: str) -> None:
        transform = TRANSFORMS[kind](search_result_serializer=serialize_tools_for_output_markdown)

        async def scenario() -> str:
            async with Client(make_server(transform)) as client:
                result = await client.call_tool("search_tools", {"query": "calendar event"})
                return str(result.content[0].text)

        assert run(scenario).startswith("### create_calendar_event")

    def test_call_tool_runs_a_found_tool(self, kind: str) -> None:
        async def scenario() -> str:
            async with Client(make_server(TRANSFORMS[kind]())) as client:
                arguments = {"name": "get_current_weather", "arguments": {"city": "Nice"}}
                result = await client.call_tool("call_tool", arguments)
                return str(result.content[0].text)

        assert run(scenario) == "Sunny in Nice"

    def test_a_hidden_tool_is_neither_found_nor_callable(self, kind: str) -> None:
        server = make_server(TRANSFORMS[kind](max_results=10))
        assert "delete_all_files" not in names(search(server, "delete every file"))

        async def scenario() -> str:
            async with Client(server) as client:
                result = await client.call_tool(
                    "call_tool", {"name": "delete_all_files"}, raise_on_error=False
                )
                return str(result.content[0].text)

        assert "Unknown tool" in run(scenario)

    def test_call_tool_refuses_the_synthetic_tools(self, kind: str) -> None:
        async def scenario() -> str:
            async with Client(make_server(TRANSFORMS[kind]())) as client:
                result = await client.call_tool(
                    "call_tool", {"name": "search_tools"}, raise_on_error=False
                )
                return str(result.content[0].text)

        assert "synthetic search tool" in run(scenario)


class TestWhereToolscoutDiffers:
    def test_identifiers_are_split(self) -> None:
        query = "user profile"
        assert names(search(make_server(ToolScoutSearchTransform()), query)) == ["getUserProfile"]
        # FastMCP's BM25 reads `getUserProfile` as one word, and finds "user's" elsewhere.
        assert names(search(make_server(BM25SearchTransform()), query)) == ["create_calendar_event"]

    def test_a_request_no_tool_serves_gets_a_notice_not_the_least_bad_tools(self) -> None:
        query = "tell me a joke about the weekend"
        # Every tool whose description has "a" or "the": FastMCP keeps stopwords.
        assert len(names(search(make_server(BM25SearchTransform()), query))) == 4
        notice = search(make_server(ToolScoutSearchTransform()), query)
        assert isinstance(notice, str)
        assert "Do not retry the same words" in notice

    def test_the_threshold_is_the_transform_s_own(self) -> None:
        query = "weather in Paris"
        assert names(search(make_server(ToolScoutSearchTransform()), query)) != []
        assert isinstance(search(make_server(ToolScoutSearchTransform(threshold=0.99)), query), str)

    def test_the_regex_engine(self) -> None:
        found = search(make_server(ToolScoutSearchTransform(engine="regex")), "^(get|read)")
        assert names(found) == ["get_current_weather", "getUserProfile", "read_file"]


class TestCatalogChanges:
    def test_a_tool_added_or_changed_at_run_time_is_found(self) -> None:
        transform = ToolScoutSearchTransform()
        server = make_server(transform)
        assert names(search(server, "translate into another language")) == []

        @server.tool
        def translate(text: str, language: str) -> str:
            """Translate text into another language."""
            return text

        assert names(search(server, "translate into another language")) == ["translate"]
        server.local_provider.remove_tool("read_file")

        @server.tool(name="read_file")
        def read_file_again(path: str) -> str:
            """Open a document and return its words."""
            return path

        assert names(search(server, "open a document")) == ["read_file"]
