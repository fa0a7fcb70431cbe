"""False synonym matches: requests whose words have a synonym of another sense in a small
catalog of real MCP servers' tools (schedule ≈ book, ticket ≈ issue, fetch ≈ list, an email
*address* ≈ a street address), and look-alikes where the synonym is the right one.

The catalog copies the tool definitions of public MCP servers (time, fetch, git, sqlite, the
weather quickstart, Google Maps, GitHub) and of typical calendar, flight, e-mail and currency
servers, 41 tools in all. Each request names the tools that serve it and, where there is one,
the tools only a wrong sense of one of its words leads to; the table counts how often those
reach the top 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from benchmarks.metrics import recall_at
from benchmarks.peers import AbstainingSearcher, Engine, Searcher
from benchmarks.report import Table
from toolscout.catalog import Tool

_REPO = {"type": "string", "description": "Path to the Git repository."}
_OWNER = {"type": "string", "description": "Repository owner (username or organization)"}
_REPOSITORY = {"type": "string", "description": "Repository name"}


def _tool(
    namespace: str,
    name: str,
    description: str,
    properties: dict[str, Any] | None = None,
    required: Sequence[str] = (),
) -> Tool:
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = list(required)
    return Tool(name=name, namespace=namespace, description=description, input_schema=schema)


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


CATALOG: tuple[Tool, ...] = (
    # mcp-server-time
    _tool(
        "time",
        "get_current_time",
        "Get current time in a specific timezones",
        {
            "timezone": _text(
                "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as "
                "local timezone if no timezone provided by the user."
            )
        },
        ["timezone"],
    ),
    _tool(
        "time",
        "convert_time",
        "Convert time between timezones",
        {
            "source_timezone": _text(
                "Source IANA timezone name (e.g., 'America/New_York', 'Europe/London')."
            ),
            "time": _text("Time to convert in 24-hour format (HH:MM)"),
            "target_timezone": _text(
                "Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco')."
            ),
        },
        ["source_timezone", "time", "target_timezone"],
    ),
    # mcp-server-fetch
    _tool(
        "fetch",
        "fetch",
        "Fetches a URL from the internet and optionally extracts its contents as markdown.\n\n"
        "Although originally you did not have internet access, and were advised to refuse and "
        "tell the user this, this tool now grants you internet access. Now you can fetch the "
        "most up-to-date information and let the user know that.",
        {
            "url": {"type": "string", "format": "uri", "description": "URL to fetch"},
            "max_length": {
                "type": "integer",
                "description": "Maximum number of characters to return.",
            },
            "start_index": {
                "type": "integer",
                "description": "On return output starting at this character index, useful if a "
                "previous fetch was truncated and more context is required.",
            },
            "raw": {
                "type": "boolean",
                "description": "Get the actual HTML content of the requested page, without "
                "simplification.",
            },
        },
        ["url"],
    ),
    # mcp-server-git
    _tool("git", "git_status", "Shows the working tree status", {"repo_path": _REPO}),
    _tool(
        "git",
        "git_diff_staged",
        "Shows changes that are staged for commit",
        {"repo_path": _REPO, "context_lines": {"type": "integer"}},
    ),
    _tool(
        "git",
        "git_commit",
        "Records changes to the repository",
        {"repo_path": _REPO, "message": _text("Commit message")},
    ),
    _tool(
        "git",
        "git_add",
        "Adds file contents to the staging area",
        {"repo_path": _REPO, "files": {"type": "array", "items": {"type": "string"}}},
    ),
    _tool(
        "git",
        "git_log",
        "Shows the commit logs",
        {"repo_path": _REPO, "max_count": {"type": "integer"}},
    ),
    _tool(
        "git",
        "git_create_branch",
        "Creates a new branch from an optional base branch",
        {"repo_path": _REPO, "branch_name": {"type": "string"}, "base_branch": {"type": "string"}},
    ),
    _tool(
        "git",
        "git_checkout",
        "Switches branches",
        {"repo_path": _REPO, "branch_name": {"type": "string"}},
    ),
    # mcp-server-sqlite
    _tool(
        "sqlite",
        "read_query",
        "Execute a SELECT query on the SQLite database",
        {"query": _text("SELECT SQL query to execute")},
        ["query"],
    ),
    _tool(
        "sqlite",
        "write_query",
        "Execute an INSERT, UPDATE, or DELETE query on the SQLite database",
        {"query": _text("SQL query to execute")},
        ["query"],
    ),
    _tool(
        "sqlite",
        "create_table",
        "Create a new table in the SQLite database",
        {"query": _text("CREATE TABLE SQL statement")},
        ["query"],
    ),
    _tool("sqlite", "list_tables", "List all tables in the SQLite database"),
    _tool(
        "sqlite",
        "describe_table",
        "Get the schema information for a specific table",
        {"table_name": _text("Name of the table to describe")},
        ["table_name"],
    ),
    _tool(
        "sqlite",
        "append_insight",
        "Add a business insight to the memo",
        {"insight": _text("Business insight discovered from data analysis")},
        ["insight"],
    ),
    # the MCP weather quickstart
    _tool(
        "weather",
        "get_alerts",
        "Get weather alerts for a US state.",
        {"state": _text("Two-letter US state code (e.g. CA, NY)")},
        ["state"],
    ),
    _tool(
        "weather",
        "get_forecast",
        "Get weather forecast for a location.",
        {
            "latitude": {"type": "number", "description": "Latitude of the location"},
            "longitude": {"type": "number", "description": "Longitude of the location"},
        },
        ["latitude", "longitude"],
    ),
    # Google Maps
    _tool(
        "maps",
        "maps_geocode",
        "Convert an address into geographic coordinates",
        {"address": _text("The address to geocode")},
        ["address"],
    ),
    _tool(
        "maps",
        "maps_reverse_geocode",
        "Convert coordinates into an address",
        {
            "latitude": {"type": "number", "description": "Latitude coordinate"},
            "longitude": {"type": "number", "description": "Longitude coordinate"},
        },
        ["latitude", "longitude"],
    ),
    _tool(
        "maps",
        "maps_search_places",
        "Search for places using Google Places API",
        {
            "query": _text("Search query"),
            "location": {
                "type": "object",
                "description": "Optional center point for the search",
                "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
            },
            "radius": {"type": "number", "description": "Search radius in meters (max 50000)"},
        },
        ["query"],
    ),
    _tool(
        "maps",
        "maps_place_details",
        "Get detailed information about a specific place",
        {"place_id": _text("The place ID to get details for")},
        ["place_id"],
    ),
    _tool(
        "maps",
        "maps_directions",
        "Get directions between two points",
        {
            "origin": _text("Starting point address or coordinates"),
            "destination": _text("Ending point address or coordinates"),
            "mode": _text("Travel mode (driving, walking, bicycling, transit)"),
        },
        ["origin", "destination"],
    ),
    # GitHub
    _tool(
        "github",
        "create_issue",
        "Create a new issue in a GitHub repository",
        {
            "owner": _OWNER,
            "repo": _REPOSITORY,
            "title": _text("Issue title"),
            "body": _text("Issue body content"),
            "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels"},
        },
        ["owner", "repo", "title"],
    ),
    _tool(
        "github",
        "list_issues",
        "List issues in a GitHub repository with filtering options",
        {
            "owner": _OWNER,
            "repo": _REPOSITORY,
            "state": {"type": "string", "enum": ["open", "closed", "all"]},
        },
        ["owner", "repo"],
    ),
    _tool(
        "github",
        "add_issue_comment",
        "Add a comment to an existing issue",
        {
            "owner": _OWNER,
            "repo": _REPOSITORY,
            "issue_number": {"type": "number", "description": "Issue number"},
            "body": _text("Comment text"),
        },
        ["owner", "repo", "issue_number", "body"],
    ),
    _tool(
        "github",
        "create_pull_request",
        "Create a new pull request in a GitHub repository",
        {
            "owner": _OWNER,
            "repo": _REPOSITORY,
            "title": _text("Pull request title"),
            "head": _text("The name of the branch where your changes are implemented"),
            "base": _text("The name of the branch you want the changes pulled into"),
        },
        ["owner", "repo", "title", "head", "base"],
    ),
    _tool(
        "github",
        "get_file_contents",
        "Get the contents of a file or directory from a GitHub repository",
        {"owner": _OWNER, "repo": _REPOSITORY, "path": _text("Path to the file or directory")},
        ["owner", "repo", "path"],
    ),
    # a calendar
    _tool(
        "calendar",
        "create_event",
        "Create a new calendar event",
        {
            "summary": _text("Title of the event"),
            "start": _text("Start time (ISO 8601)"),
            "end": _text("End time (ISO 8601)"),
            "attendees": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Email addresses of the attendees",
            },
            "location": _text("Where the event takes place"),
        },
        ["summary", "start", "end"],
    ),
    _tool(
        "calendar",
        "list_events",
        "List events from a calendar within a time range",
        {"time_min": _text("Start of the range"), "time_max": _text("End of the range")},
    ),
    _tool(
        "calendar",
        "update_event",
        "Update an existing calendar event",
        {"event_id": _text("ID of the event to update"), "summary": _text("New title")},
        ["event_id"],
    ),
    _tool(
        "calendar",
        "delete_event",
        "Delete a calendar event",
        {"event_id": _text("ID of the event to delete")},
        ["event_id"],
    ),
    # flights
    _tool(
        "flights",
        "search_flights",
        "Search for available flights between two airports on a given date",
        {
            "origin": _text("Departure airport IATA code"),
            "destination": _text("Arrival airport IATA code"),
            "departure_date": _text("Date of departure (YYYY-MM-DD)"),
            "passengers": {"type": "integer", "description": "Number of passengers"},
        },
        ["origin", "destination", "departure_date"],
    ),
    _tool(
        "flights",
        "book_flight",
        "Book a flight for one or more passengers using an offer from search_flights",
        {
            "offer_id": _text("ID of the flight offer to book"),
            "passengers": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Passenger names and dates of birth",
            },
        },
        ["offer_id", "passengers"],
    ),
    # e-mail
    _tool(
        "email",
        "send_email",
        "Sends a new email",
        {
            "to": {
                "type": "array",
                "items": {"type": "string"},
                "description": "List of recipient email addresses",
            },
            "subject": _text("Email subject"),
            "body": _text("Email body content"),
        },
        ["to", "subject", "body"],
    ),
    _tool(
        "email",
        "read_email",
        "Retrieves the content of a specific email",
        {"message_id": _text("ID of the email message to retrieve")},
        ["message_id"],
    ),
    _tool(
        "email",
        "search_emails",
        "Searches for emails using Gmail search syntax",
        {
            "query": _text("Gmail search query (e.g., 'from:example@gmail.com')"),
            "max_results": {"type": "number", "description": "Maximum number of results"},
        },
        ["query"],
    ),
    _tool(
        "email",
        "draft_email",
        "Draft a new email",
        {"to": {"type": "array", "items": {"type": "string"}}, "subject": _text("Subject")},
    ),
    # currency
    _tool(
        "currency",
        "convert_currency",
        "Convert an amount of money from one currency to another at the latest exchange rate",
        {
            "amount": {"type": "number", "description": "Amount to convert"},
            "from_currency": _text("Three-letter code of the currency to convert from"),
            "to_currency": _text("Three-letter code of the currency to convert to"),
        },
        ["amount", "from_currency", "to_currency"],
    ),
    _tool(
        "currency",
        "get_exchange_rates",
        "Get the latest exchange rates for a base currency",
        {"base": _text("Three-letter code of the base currency")},
    ),
)


@dataclass(frozen=True, slots=True)
class SenseQuery:
    text: str
    relevant: frozenset[str]
    """Names of the tools that serve the request."""
    false: frozenset[str] = frozenset()
    """Names of the tools that only a synonym of another sense of a query word leads to."""


def _query(text: str, relevant: str, false: str = "") -> SenseQuery:
    return SenseQuery(text, frozenset(relevant.split()), frozenset(false.split()))


QUERIES: tuple[SenseQuery, ...] = (
    # schedule ≈ book: to put in a calendar, not to reserve a seat
    _query("schedule a meeting with Bob tomorrow", "create_event", "book_flight"),
    _query("schedule a call with the team on Friday", "create_event", "book_flight"),
    _query("put a dentist appointment in my calendar", "create_event"),
    _query("move my 3pm meeting to 4pm", "update_event"),
    _query("cancel the meeting on Friday", "delete_event"),
    _query("what is on my agenda next week", "list_events"),
    # ticket ≈ issue: a plane ticket is not a bug report
    _query("book a plane ticket", "book_flight", "create_issue list_issues add_issue_comment"),
    _query("buy a ticket to fly to Tokyo", "book_flight search_flights", "create_issue"),
    _query("reserve a seat on a flight to Denver", "book_flight"),
    _query("find flights from Boston to Denver next Monday", "search_flights"),
    _query("open a ticket for the login bug", "create_issue"),
    _query("file a bug report in the repository", "create_issue"),
    _query("comment on the github issue", "add_issue_comment"),
    _query("show the open tickets in the repo", "list_issues"),
    # fetch ≈ list: to retrieve one resource is not to enumerate
    _query("fetch a url", "fetch", "list_tables list_issues list_events"),
    _query("list the tables", "list_tables", "fetch"),
    _query("list all tables in the database", "list_tables", "fetch"),
    _query("download a web page", "fetch"),
    _query("get the contents of a website as markdown", "fetch"),
    _query("read the html of a page", "fetch"),
    _query("show the schema of the users table", "describe_table"),
    _query("run a SQL query to count the orders", "read_query"),
    _query("insert a row into the customers table", "write_query"),
    # an e-mail address is not a place
    _query(
        "send a message to alice's email address",
        "send_email",
        "maps_geocode maps_reverse_geocode maps_search_places",
    ),
    _query(
        "find the email address of the sender",
        "search_emails read_email",
        "maps_geocode maps_reverse_geocode maps_search_places",
    ),
    _query("what is the street address of the Louvre", "maps_search_places maps_place_details"),
    _query("get the latitude and longitude of an address", "maps_geocode"),
    _query("what address is at these coordinates", "maps_reverse_geocode"),
    _query("find coffee shops near me", "maps_search_places"),
    _query("how do I drive from Berlin to Munich", "maps_directions"),
    # e-mail
    _query("email the report to my manager", "send_email"),
    _query("read my latest mail from Bob", "search_emails read_email"),
    _query("write a draft reply to the customer", "draft_email"),
    # time, currency, weather
    _query("what time is it in Tokyo", "get_current_time"),
    _query("convert 3pm New York time to London time", "convert_time"),
    _query("how much is 100 dollars in euros", "convert_currency"),
    _query("exchange rate between yen and dollars", "get_exchange_rates convert_currency"),
    _query("will it rain in Seattle tomorrow", "get_forecast"),
    _query("any storm warnings in Texas", "get_alerts"),
    # git
    _query("show the commit history", "git_log"),
    _query("save my changes to the repository", "git_commit"),
    _query("stage the modified files", "git_add"),
    _query("switch to the develop branch", "git_checkout"),
    _query("make a new branch for the feature", "git_create_branch"),
    _query("what changed in the files I staged", "git_diff_staged"),
    _query("get a file from the github repo", "get_file_contents"),
)


@dataclass(frozen=True, slots=True)
class SenseRow:
    engine: str
    false_matches: int
    """Queries with a tool of their `false` set in the top 5."""
    queries_with_false: int
    recall1: float
    recall5: float
    unlimited: SenseRow | None = None
    """The same with the engine's threshold off, for engines that have one."""


def measure_senses(label: str, searcher: Searcher, *, again_unlimited: bool = True) -> SenseRow:
    """The false matches and recall of one engine over `QUERIES`, searched with its defaults
    (and again with its threshold off, if it has one)."""
    rankings = [searcher.search(query.text, 5) for query in QUERIES]
    pairs = list(zip(QUERIES, rankings, strict=True))
    return SenseRow(
        engine=label,
        false_matches=sum(bool(query.false.intersection(ranking)) for query, ranking in pairs),
        queries_with_false=sum(bool(query.false) for query in QUERIES),
        recall1=fmean(recall_at(ranking, query.relevant, 1) for query, ranking in pairs),
        recall5=fmean(recall_at(ranking, query.relevant, 5) for query, ranking in pairs),
        unlimited=(
            measure_senses(label, searcher.without_threshold(), again_unlimited=False)
            if again_unlimited and isinstance(searcher, AbstainingSearcher)
            else None
        ),
    )


def run_senses(engines: Sequence[Engine]) -> Table:
    rows = [measure_senses(engine.label, engine.build(CATALOG)) for engine in engines]
    table = Table(
        title=(
            f"False synonym matches: {len(QUERIES)} requests over {len(CATALOG)} tools of "
            "real MCP servers"
        ),
        columns=[
            "engine",
            "false in top 5",
            "R@1",
            "R@5",
            "false in top 5, no threshold",
            "R@1, no threshold",
            "R@5, no threshold",
        ],
    )
    for row in rows:
        cells = [
            row.engine,
            f"{row.false_matches} / {row.queries_with_false}",
            f"{row.recall1:.3f}",
            f"{row.recall5:.3f}",
        ]
        if row.unlimited is None:
            cells += ["—"] * 3
        else:
            cells += [
                f"{row.unlimited.false_matches} / {row.unlimited.queries_with_false}",
                f"{row.unlimited.recall1:.3f}",
                f"{row.unlimited.recall5:.3f}",
            ]
        table.rows.append(cells)
    table.notes = [
        "false in top 5: requests with a tool in their top 5 that only a synonym of another "
        "sense of one of their words leads to (schedule ≈ book, ticket ≈ issue, fetch ≈ list, "
        "an e-mail address ≈ a place), out of the requests that have such a tool.",
        "Each engine searched with its default settings (toolscout: its default threshold), "
        "then with its threshold off (— for engines without one). The requests are in "
        "benchmarks/senses.py.",
    ]
    return table
