"""An upstream's tools as catalog tools, and the catalog kept in step with each upstream.

Each upstream owns one namespace of the catalog. When its tool list changes (at connection,
reconnection or `notifications/tools/list_changed`), the gateway brings that namespace up to
the new list with `Catalog.sync`, which touches only the tools that differ, so the index
re-analyses only those.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from toolscout.catalog.tool import Tool
from toolscout.errors import ToolScoutError, describe_validation_error
from toolscout.gateway.config import UpstreamSettings

logger = logging.getLogger("toolscout.gateway")

Handler = Callable[..., Any]
ALWAYS_LOAD = "anthropic/alwaysLoad"
"""The `_meta` key by which a server asks that a tool be sent with every request, outside
search (Claude Code's convention): the gateway pins such a tool."""
#: Characters of an upstream's tool name that messages quote.
_SHOWN_LENGTH = 64


@dataclass(frozen=True)
class OfferedTool:
    """A tool the gateway offers: the catalog's view of it and the upstream's own
    definition, which is what clients are shown when it is listed."""

    tool: Tool
    definition: types.Tool


def select(name: str, settings: UpstreamSettings) -> bool:
    """Whether the config lets the gateway offer the upstream tool called `name`."""
    if settings.include and not any(fnmatch.fnmatchcase(name, p) for p in settings.include):
        return False
    return not any(fnmatch.fnmatchcase(name, pattern) for pattern in settings.exclude)


def offered_tools(
    definitions: Iterable[types.Tool],
    *,
    namespace: str,
    settings: UpstreamSettings,
    pinned: Collection[str],
    handler: Callable[[str], Handler],
    deferred: bool,
) -> tuple[list[OfferedTool], list[str]]:
    """The upstream's tools the config selects, as catalog tools in `namespace`, and one
    sentence for each tool skipped.

    Args:
        pinned: Names of the tools always listed (`pinned`, `tool_search.always_available`);
            a tool whose `_meta` holds `"anthropic/alwaysLoad": true` is too.
        handler: Makes the handler that relays a call to the upstream tool of this name.
        deferred: Hidden until discovered (tool search on); False lists every tool.
    """
    offered: list[OfferedTool] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for definition in definitions:
        name = definition.name
        if not select(name, settings):
            continue
        if name in seen:
            skipped.append(f"{shown(name)} is listed twice; the first is kept")
            continue
        seen.add(name)
        always = name in pinned or (definition.meta or {}).get(ALWAYS_LOAD) is True
        try:
            tool = Tool(
                name=name,
                namespace=namespace,
                description=definition.description or definition.title or "",
                input_schema=definition.input_schema,
                tags=settings.tags,
                metadata=_metadata(definition),
                pinned=always,
                deferred=deferred and not always,
                handler=handler(name),
            )
        except (ToolScoutError, ValueError) as error:
            skipped.append(f"{shown(name)} is skipped: {_reason(error)}")
            continue
        offered.append(OfferedTool(tool, definition))
    missing = sorted(set(settings.pinned) - seen)
    if missing:
        skipped += [f"pinned tool {shown(n)} is not among the server's tools" for n in missing]
    return offered, skipped


def shown(name: str, limit: int = _SHOWN_LENGTH) -> str:
    """An upstream's tool name as a log line or a message quotes it: `repr`, and cut after
    `limit` characters (`'aaaa'… (10,000 characters)`), since a server may send anything."""
    if len(name) <= limit:
        return repr(name)
    return f"{name[:limit]!r}… ({len(name):,} characters)"


def _metadata(definition: types.Tool) -> dict[str, Any]:
    """The MCP keys beyond name, description and input schema, under their wire names, as
    `toolscout.catalog` keeps them."""
    dumped = definition.model_dump(by_alias=True, mode="json", exclude_none=True)
    for key in ("name", "description", "inputSchema"):
        dumped.pop(key, None)
    return dumped


def _reason(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return describe_validation_error(error, most=1)
    return str(error).strip() or type(error).__name__
