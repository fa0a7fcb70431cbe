"""The tools the framework examples give their agents: a few plain functions, enough for
search to have something to choose from. Each returns canned data; no network."""

from __future__ import annotations


def current_time() -> str:
    """The current date and time, in ISO 8601."""
    return "2026-11-05T09:30:00+01:00"


def get_forecast(city: str, days: int) -> str:
    """Get the weather forecast for a city.

    Args:
        city: City name, such as "Paris".
        days: How many days ahead, from 1 to 7.
    """
    return f"{city}: sunny, 21°C, for the next {days} day(s)."


def send_email(to: str, subject: str, body: str) -> str:
    """Send an email to a recipient.

    Args:
        to: Email address of the recipient.
        subject: Subject line.
        body: Text of the message.
    """
    return f"Email to {to} sent."


def create_calendar_event(title: str, start: str) -> str:
    """Create an event in the user's calendar.

    Args:
        title: What the event is called.
        start: Start time, ISO 8601.
    """
    return f"Event {title!r} created at {start}."


def translate_text(text: str, language: str) -> str:
    """Translate text into another language.

    Args:
        text: The text to translate.
        language: Target language code, such as "fr".
    """
    return f"[{language}] {text}"


def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money from one currency to another at today's rate.

    Args:
        amount: The amount to convert.
        from_currency: ISO 4217 code, such as "EUR".
        to_currency: ISO 4217 code, such as "USD".
    """
    return f"{amount * 1.08:.2f} {to_currency}"


def read_file(path: str) -> str:
    """Read a text file from the workspace.

    Args:
        path: Path of the file, relative to the workspace.
    """
    return f"(contents of {path})"


TOOLS = [
    current_time,
    get_forecast,
    send_email,
    create_calendar_event,
    translate_text,
    convert_currency,
    read_file,
]

QUESTION = "What will the weather be in Paris over the next 2 days?"

#: What the scripted model does: search, load what it found, call it, answer.
SCRIPT = [
    ("search_tools", {"queries": ["weather forecast"]}),
    ("load_tool", {"names": ["get_forecast"]}),
    ("get_forecast", {"city": "Paris", "days": 2}),
]
ANSWER = "Sunny in Paris for the next two days, around 21°C."
