"""What the gateway lists of each upstream besides its tools: reading a server's paged list,
and the stand-in `Tool` a filter is asked about for a prompt or a resource.

Filters are written for tools (`filter(tool, request, phase)`), and a rule such as "only
admins use the `billing` server" must hold for that server's prompts and resources as well.
So each prompt, resource and resource template is shown to the filter as a `Tool`: in its
server's namespace, with the server's tags, its own name and description, and
`metadata["kind"]` set to `prompt`, `resource` or `resource_template` (a real tool has no
`kind`). Its `id` is what the client sees: the prompt's `namespace__name`, the resource's
gateway URI. Listing asks the `active` phase (a listed prompt is like a pinned tool); getting
a prompt, reading a resource, subscribing to it and completing an argument ask `call`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, TypeAlias, TypeVar

import anyio
from pydantic import BaseModel, ValidationError

from toolscout.catalog.tool import Tool
from toolscout.errors import ToolScoutError
from toolscout.gateway.tools import shown
from toolscout.gateway.upstream import Upstream, _not_unicode

logger = logging.getLogger("toolscout.gateway")

Kind: TypeAlias = Literal["prompt", "resource", "resource_template"]
"""What a stand-in stands for, in its `metadata["kind"]`."""

#: Most pages of one list read from one server.
_MAX_PAGES = 100
_ItemT = TypeVar("_ItemT", bound=BaseModel)


async def list_all(
    upstream: Upstream,
    what: str,
    fetch: Callable[[str | None], Awaitable[tuple[Sequence[_ItemT], str | None]]],
    label: Callable[[_ItemT], str],
) -> list[_ItemT] | None:
    """Every item of one of the server's lists, page after page, within its connect timeout;
    None (and a warning) when the server fails to list them. An item holding text that is
    not Unicode is left out with a warning, since no client could be sent the list.

    Args:
        what: The list, for messages: `prompts`.
        fetch: Reads the page at a cursor: its items and the next cursor.
        label: How a message names an item.
    """
    items: list[_ItemT] = []
    cursor: str | None = None
    try:
        with anyio.fail_after(upstream.connect_timeout):
            for _ in range(_MAX_PAGES):
                page, cursor = await fetch(cursor)
                items += page
                if not cursor:
                    break
    except Exception as error:  # a list the server cannot give: none
        logger.warning("upstream %r: cannot list its %s (%s)", upstream.name, what, _why(error))
        logger.debug("upstream %r: listing %s failed", upstream.name, what, exc_info=True)
        return None
    kept: list[_ItemT] = []
    for item in items:
        where = _not_unicode(item.model_dump(by_alias=True, exclude_none=True))
        if where is None:
            kept.append(item)
        else:
            logger.warning(
                "upstream %r: %s is skipped: its %s is not valid Unicode (a lone surrogate)",
                upstream.name,
                shown(label(item)),
                where or "definition",
            )
    return kept


def stand_in(
    kind: Kind,
    *,
    exposed: str,
    name: str,
    upstream: Upstream,
    description: str | None,
    metadata: dict[str, Any],
) -> Tool | None:
    """The `Tool` a filter is asked about for a prompt, resource or template (see the module
    docstring); None when no tool can be made of it, which the caller treats as a denial.

    Args:
        exposed: What the client sees: the prompt's name, the resource's URI.
        name: The server's own name for it.
    """
    try:
        return Tool(
            id=exposed,
            name=name[:256] or kind,
            namespace=upstream.namespace,
            description=description or "",
            tags=upstream.settings.tags,
            metadata={**metadata, "kind": kind},
        )
    except (ToolScoutError, ValueError):
        return None


def _why(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, ValidationError):
        return "malformed answer"
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
