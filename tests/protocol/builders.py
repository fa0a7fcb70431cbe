"""Shared builders for the protocol and provider tests: a small catalog with handlers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolscout import Catalog, Tool, tool_from_callable
from toolscout.protocol import REQUEST_CONTEXT, ToolCall, ToolResult, ToolSearch


def get_forecast(city: str, days: int = 1) -> str:
    """Get the weather forecast for a city.

    Args:
        city: City name, such as "Paris".
        days: How many days ahead, from 1 to 7.
    """
    return f"Sunny in {city} for {days} day(s)"


async def send_email(to: str, subject: str, body: str = "") -> dict[str, str]:
    """Send an email to a recipient.

    Args:
        to: Email address of the recipient.
        subject: Subject line.
        body: Text of the message.
    """
    return {"status": "sent", "to": to}


def create_calendar_event(title: str, start: str) -> str:
    """Create an event in the user's calendar.

    Args:
        title: What the event is called.
        start: Start time, ISO 8601.
    """
    return f"created {title!r} at {start}"


def translate_text(text: str, language: str) -> str:
    """Translate text into another language.

    Args:
        text: The text to translate.
        language: Target language code, such as "fr".
    """
    return f"[{language}] {text}"


def delete_all_files(folder: str) -> str:
    """Delete every file in a folder of the admin workspace.

    Args:
        folder: The folder to empty.
    """
    return f"deleted everything in {folder}"


def whoami() -> Any:
    """Tell who is asking, from the request context."""
    return REQUEST_CONTEXT.get()


def ping(host: str) -> bool:
    """Check that a host answers on the network.

    Args:
        host: Host name or IP address.
    """
    return True


DEFERRED = (get_forecast, send_email, create_calendar_event, translate_text, delete_all_files)


def make_catalog(*extra: Any, pinned: bool = True) -> Catalog:
    """The pinned `ping` (unless `pinned=False`) and `whoami`, then the deferred tools above
    (`delete_all_files` tagged `admin`), then `extra`."""
    tools: list[Any] = [tool_from_callable(ping, pinned=True)] if pinned else []
    tools.append(tool_from_callable(whoami, pinned=True))
    tools += [tool_from_callable(fn, tags=_tags(fn)) for fn in DEFERRED]
    return Catalog([*tools, *extra])


def _tags(fn: Any) -> list[str]:
    return ["admin"] if fn is delete_all_files else []


def names(definitions: Iterable[Any]) -> list[str]:
    return [definition.name for definition in definitions]


def call(
    search: ToolSearch, name: str, thread_id: str | None = "t1", /, **arguments: Any
) -> ToolResult:
    """Execute one call in `thread_id` (sync)."""
    return search.execute(ToolCall(name, arguments, id=f"call_{name}"), thread_id)


def plain_tool(name: str, description: str = "", **fields: Any) -> Tool:
    return Tool(name=name, description=description, **fields)
