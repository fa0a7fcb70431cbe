"""One scenario every integration runs, checked against what the core does with the same
tools and settings: the pinned tool is always sent and never found (not even by a query that
describes it best), `max_results` caps what the model asks for, and a tool the filter denies
is found by no search and runs by no call."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from toolscout import Catalog, Tool
from toolscout.config import ToolSearchSettings
from toolscout.protocol import Phase, ToolCall

from ..protocol.builders import create_calendar_event, delete_all_files, translate_text

DENIED = "delete_all_files"
PINNED = "ping"
#: Matches many tools; max_results keeps two, whatever the model asks for.
BROAD_QUERY = "text email event weather"
DENIED_QUERY = "delete every file in a folder"
#: The pinned tool's own words: the index ranks it first, and search still never returns it.
PINNED_QUERY = "check that a host answers on the network"
ASKED_FOR = 9

# BM25: the scenario is about the protocol, and its rankings are exact to the last digit in
# every integration (an embedding can differ in the last float bits with the tool's wording).
SETTINGS = ToolSearchSettings(
    enabled=True, engine="bm25", max_results=2, threshold=0, always_available=[PINNED]
)


def get_forecast(city: str, days: int = 1) -> str:
    """Get the weather forecast for a city.

    Args:
        city: City name, such as "Paris".
        days: How many days ahead, from 1 to 7.
    """
    return f"Sunny in {city} for {days} day(s)"


def send_email(to: str, subject: str, body: str = "") -> str:
    """Send an email to a recipient.

    Args:
        to: Email address of the recipient.
        subject: Subject line.
        body: Text of the message.
    """
    return f"sent to {to}"


def ping(host: str) -> bool:
    """Check that a host answers on the network.

    Args:
        host: Host name or IP address.
    """
    return True


FUNCTIONS = (
    ping,
    get_forecast,
    send_email,
    create_calendar_event,
    translate_text,
    delete_all_files,
)


def deny_deletion(tool: Tool, request_context: Any, phase: Phase) -> bool:
    """The scenario's filter: the admin tool is denied at every phase, to everyone."""
    return tool.name != DENIED


@dataclass(frozen=True)
class Observed:
    """What a model saw in the scenario."""

    first_tools: list[str]
    """The tool names of the first request."""
    broad: list[str]
    """Tools `search_tools` found for `BROAD_QUERY`, asked for `ASKED_FOR`."""
    denied: list[str]
    """Tools found for `DENIED_QUERY`."""
    denied_call: str
    """The answer to a direct call of the denied tool."""
    pinned_query: list[str]
    """Tools found for `PINNED_QUERY`."""


#: The scenario's calls, in order, as (tool name, arguments).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_tools", {"queries": [BROAD_QUERY], "max_results": ASKED_FOR}),
    ("search_tools", {"queries": [DENIED_QUERY]}),
    (DENIED, {"folder": "/"}),
    ("search_tools", {"queries": [PINNED_QUERY]}),
]


def found_names(content: str) -> list[str]:
    """The tool names of a `search_tools` result (toolscout's JSON)."""
    return [tool["name"] for result in json.loads(content)["results"] for tool in result["tools"]]


def core(catalog: Catalog) -> Observed:
    """The scenario run by `ToolSearch` itself over `catalog`: the tools as the framework
    defines them (each writes descriptions and schemas its own way, which ranking reads)."""
    search = SETTINGS.build(catalog, filter=deny_deletion)
    answers = [search.execute(ToolCall(name, arguments), "t1").content for name, arguments in CALLS]
    return Observed(
        [definition.name for definition in search.prepare("t1")],
        found_names(answers[0]),
        found_names(answers[1]),
        answers[2],
        found_names(answers[3]),
    )


def assert_same_as_core(observed: Observed, catalog: Catalog) -> None:
    expected = core(catalog)
    assert expected.first_tools == [PINNED, "search_tools", "load_tool"]
    assert len(expected.broad) == SETTINGS.max_results and PINNED not in expected.broad
    assert DENIED not in expected.denied
    assert PINNED not in expected.pinned_query
    assert search_ranks_first(PINNED_QUERY, catalog) == PINNED
    assert observed.first_tools == expected.first_tools
    assert observed.broad == expected.broad
    assert observed.denied == expected.denied
    assert DENIED in observed.denied_call and "Unknown tool" in observed.denied_call
    assert observed.pinned_query == expected.pinned_query


def search_ranks_first(query: str, catalog: Catalog) -> str:
    """The tool the core's index ranks first for `query`, pinned or not."""
    return SETTINGS.build(catalog).index.search(query)[0].tool.name
