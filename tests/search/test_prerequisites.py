"""Prerequisites: a strong hit brings the tool its parameters' descriptions say gives it a value,
never a tool the filter forbids, and never for a weak hit."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscout import Catalog, Tool, ToolIndex
from toolscout.search.prerequisites import Prerequisites

from .conftest import make_tool, names


def docs_tools(namespace: str | None = "context7") -> list[Tool]:
    """context7's two tools, as its server describes them, and a web search beside them."""
    return [
        make_tool(
            "resolve-library-id",
            "Resolves a package name to the ID of a library.",
            namespace=namespace,
            parameters={"libraryName": {"type": "string", "description": "Library name."}},
        ),
        make_tool(
            "query-docs",
            "Fetches up-to-date documentation and code examples of a library.",
            namespace=namespace,
            parameters={
                "libraryId": {
                    "type": "string",
                    "description": "Exact library ID, retrieved from resolve-library-id.",
                },
                "query": {"type": "string", "description": "What to look up in the docs."},
            },
        ),
        make_tool("web_search", "Search the web.", namespace="search"),
    ]


def travel_tools() -> list[Tool]:
    """Booking APIs whose parameters name the API that gives each value, in words."""
    return [
        make_tool(
            "Search_Car_Location",
            "Find car rental locations by name, address or city.",
            parameters={"query": {"type": "string", "description": "A place's name."}},
        ),
        make_tool(
            "Search_Car_Rentals",
            "Search car rentals.",
            parameters={
                "pick_up_latitude": {
                    "type": "number",
                    "description": "Can be retrieved from api/v1/cars/searchDestination "
                    "**(Search Car Location)** as latitude.",
                }
            },
        ),
        make_tool(
            "Get_Hotel_Policies",
            "Retrieve the policies of a hotel.",
            parameters={
                "hotel_id": {
                    "type": "integer",
                    "description": "Can be retrieved from **(Search Hotels)**.",
                }
            },
        ),
        make_tool("Search_Hotels", "Search hotels."),
    ]


class TestFinding:
    def test_a_name_as_written_and_a_name_of_three_words_in_prose(self) -> None:
        tools = docs_tools() + travel_tools()
        prerequisites = Prerequisites(tools)
        by_name = {tool.name: tool for tool in tools}
        assert prerequisites.of(by_name["query-docs"]) == (by_name["resolve-library-id"],)
        assert prerequisites.of(by_name["Search_Car_Rentals"]) == (by_name["Search_Car_Location"],)

    def test_two_words_in_prose_name_no_tool(self) -> None:
        # "search hotels" is as likely to be prose as a name.
        tools = travel_tools()
        (policies,) = (tool for tool in tools if tool.name == "Get_Hotel_Policies")
        assert Prerequisites(tools).of(policies) == ()

    def test_only_a_tool_of_the_same_namespace(self) -> None:
        other = docs_tools("other_server")[0]
        tools = [other, *docs_tools()[1:]]
        query_docs = tools[1]
        assert Prerequisites(tools).of(query_docs) == ()

    def test_a_tool_is_not_its_own_prerequisite(self) -> None:
        tool = make_tool(
            "list_tables",
            parameters={"page": {"type": "integer", "description": "A page of list_tables."}},
        )
        assert Prerequisites([tool]).of(tool) == ()

    @settings(max_examples=60, deadline=None)
    @given(
        description=st.one_of(st.text(max_size=300), st.integers(), st.none(), st.lists(st.text())),
        properties=st.sampled_from(["dict", "list", "missing"]),
    )
    def test_any_parameter_schema_is_read_without_error(
        self, description: Any, properties: str
    ) -> None:
        schema: dict[str, Any] = {"type": "object"}
        if properties == "dict":
            schema["properties"] = {"x": {"type": "string", "description": description}}
        elif properties == "list":
            schema["properties"] = [description]
        tool = Tool(name="get_thing", description="Gets a thing.", input_schema=schema)
        assert Prerequisites([tool, *docs_tools()]).of(tool) == ()


class TestSearch:
    @pytest.mark.parametrize("engine", ["bm25", "hybrid"])
    def test_a_strong_hit_brings_the_tool_that_gives_its_value(self, engine: str) -> None:
        index = ToolIndex(Catalog(docs_tools()), engine=engine)
        hits = index.search("look up the documentation of fastapi routing", k=3, threshold=0)
        assert names(hits)[:2] == ["query-docs", "resolve-library-id"]
        assert hits[1].prerequisite_of == "context7__query-docs"
        assert hits[0].prerequisite_of is None
        assert [hit.rank for hit in hits] == list(range(1, len(hits) + 1))
        scores = [hit.normalized_score for hit in hits]
        assert scores == sorted(scores, reverse=True)

    def test_it_can_be_turned_off(self) -> None:
        index = ToolIndex(Catalog(docs_tools()), engine="bm25", prerequisites=False)
        hits = index.search("look up the documentation of fastapi routing", k=3, threshold=0)
        assert "resolve-library-id" not in names(hits)

    def test_never_a_tool_the_filter_forbids(self) -> None:
        index = ToolIndex(Catalog(docs_tools()), engine="bm25")
        hits = index.search(
            "look up the documentation of fastapi routing",
            k=3,
            threshold=0,
            filter=lambda tool: tool.name != "resolve-library-id",
        )
        assert names(hits)[0] == "query-docs"
        assert "resolve-library-id" not in names(hits)

    def test_k_holds(self) -> None:
        index = ToolIndex(Catalog(docs_tools()), engine="bm25")
        assert names(index.search("look up the documentation of fastapi", k=1, threshold=0)) == [
            "query-docs"
        ]

    def test_a_weak_hit_brings_nothing(self) -> None:
        # The web search is the request's tool; the docs tool, a far weaker match, keeps its
        # place and brings no tool before the ones found for the request.
        tools = [
            *docs_tools(),
            make_tool(
                "web_fetch", "Fetch a web page and search the web results.", namespace="search"
            ),
        ]
        index = ToolIndex(Catalog(tools), engine="bm25")
        hits = index.search(
            "search the web for fastapi news and fetch a web page", k=5, threshold=0
        )
        assert names(hits) == ["web_fetch", "web_search", "query-docs"]
        assert all(hit.prerequisite_of is None for hit in hits)

    def test_patterns_bring_nothing(self) -> None:
        index = ToolIndex(Catalog(docs_tools()), engine="regex")
        assert names(index.search("up-to-date", k=3)) == ["query-docs"]
