"""A tour of toolscout's Python API: build a catalog, search it, change it while it is searched.

Run it with `.venv/bin/python examples/quickstart.py`. Everything happens in memory: no network,
no API keys.
"""

from __future__ import annotations

from toolscout import Catalog, SearchResults, ToolIndex
from toolscout.catalog import to_tools

# --- 1. Tools from Python functions: the signature gives the schema, the docstring the words.


def get_forecast(city: str, days: int = 1) -> dict[str, object]:
    """Get the weather forecast for a city: temperature, rain and wind.

    Args:
        city: City name, such as "Paris" or "Lisbon".
        days: How many days ahead, from 1 to 7.
    """
    return {"city": city, "days": days, "summary": "sunny"}


def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
    """Convert an amount of money from one currency to another at today's exchange rate.

    Args:
        amount: The amount to convert.
        from_currency: ISO 4217 code of the amount's currency, such as "EUR".
        to_currency: ISO 4217 code of the currency wanted, such as "USD".
    """
    return amount


# --- 2. Tools as JSON definitions, in the shapes the providers and MCP use.

OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "send_email",
            "description": "Send an email to one or more recipients.",
            "parameters": {
                "type": "object",
                "properties": {
                    "to": {"type": "array", "items": {"type": "string"}},
                    "subject": {"type": "string"},
                    "body": {"type": "string", "description": "Plain-text message body."},
                },
                "required": ["to", "subject", "body"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "create_calendar_event",
            "description": "Create an event in the user's calendar.",
            "parameters": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "start": {"type": "string", "description": "Start time, ISO 8601."},
                },
                "required": ["title", "start"],
            },
        },
    },
]

ANTHROPIC_TOOLS = [
    {
        "name": "book_flight",
        "description": "Book a flight between two airports on a given date.",
        "input_schema": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code of the departure airport."},
                "destination": {
                    "type": "string",
                    "description": "IATA code of the arrival airport.",
                },
                "date": {"type": "string", "description": "Departure date, YYYY-MM-DD."},
                "cabin": {"type": "string", "enum": ["economy", "business", "first"]},
            },
            "required": ["origin", "destination", "date"],
        },
    },
]

# As an MCP server's `tools/list` would return them.
GITHUB_MCP_TOOLS = {
    "tools": [
        {
            "name": "create_issue",
            "description": "Open a new issue in a GitHub repository.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "repo": {"type": "string", "description": "owner/name of the repository."},
                    "title": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["repo", "title"],
            },
        },
        {
            "name": "list_pull_requests",
            "description": "List the open pull requests of a GitHub repository.",
            "inputSchema": {
                "type": "object",
                "properties": {"repo": {"type": "string"}},
                "required": ["repo"],
            },
        },
    ]
}


def show(results: SearchResults) -> None:
    """Print a search's hits with why each matched, or the notice when there are none."""
    print(f"\n> {results.query!r}")
    if not results:
        print(f"  (no tools) {results.notice}")
    for hit in results:
        print(
            f"  {hit.rank}. {hit.tool.id:<34} score {hit.score:5.2f}   "
            f"normalized {hit.normalized_score:.2f}"
        )
        for term in hit.matched_terms:
            via = "" if term.kind == "exact" else f" ({term.kind}: {term.index_term})"
            print(f"       {term.query_term!r}{via} in {', '.join(term.fields)}")


def main() -> None:
    catalog = Catalog([get_forecast, convert_currency, OPENAI_TOOLS, ANTHROPIC_TOOLS])
    # A namespace makes ids unique across servers: `create_issue` becomes `github__create_issue`.
    catalog.add(to_tools(GITHUB_MCP_TOOLS, namespace="github"))
    print(f"{catalog}:")
    for tool in catalog:
        print(f"  {tool.id}")

    print("\n=== Search, with explanations")
    index = ToolIndex(catalog)
    print(index.engine_choice)  # auto: hybrid with the semantic extra, BM25 without
    for query in (
        "what will the weather be in Lisbon tomorrow",
        "email the team about the launch",
        "book a plane ticket to Tokyo in business class",
        "convert 100 euros to dollars",
        "add a meeting to my calendar",
        "report a bug in the repository",
    ):
        show(index.search(query, k=3))

    print(f"\n=== Abstention: hits below the threshold ({index.threshold}) are dropped")
    show(index.search("what time is it in Tokyo", threshold=0))  # 0 keeps every match
    show(index.search("what time is it in Tokyo", threshold=0.9))  # more than any tool has
    show(index.search("tell me a joke"))  # no tool does anything like it

    print("\n=== A filter, applied before k: only the tools of the github namespace")
    show(index.search("create a new record", k=1))
    show(index.search("create a new record", k=1, filter=lambda tool: tool.namespace == "github"))

    print("\n=== A live catalog: the index follows every change at its next search")

    def get_air_quality(city: str) -> int:
        """Get the air quality index (AQI) of a city: pollution, smog and pollen levels.

        Args:
            city: City name.
        """
        return 42

    catalog.add(get_air_quality)
    show(index.search("is the air polluted in Delhi", k=2))

    show(index.search("sms my sister"))
    # Tools are immutable: replace one with an edited copy. Only this tool is re-analysed.
    send_email = catalog["send_email"]
    catalog.replace(
        send_email.model_copy(
            update={
                "description": "Send an email, or an SMS when the recipient is a phone number.",
                "tags": ("sms",),
            }
        )
    )
    show(index.search("sms my sister"))

    catalog.remove("book_flight")
    show(index.search("book a flight"))

    print("\n=== Regex: patterns over names, descriptions and parameters (RE2, case-insensitive)")
    regex_index = ToolIndex(catalog, engine="regex")
    show(regex_index.search(r"^(create|list)_", k=10))
    show(regex_index.search(r"(a+)+\1"))  # a backreference: RE2 refuses it, with a notice


if __name__ == "__main__":
    main()
