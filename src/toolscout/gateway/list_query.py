"""Search in `tools/list` (experimental): a `query` parameter, as SEP-1821 proposes to MCP.

A client that sends `{"query": "send an email", "limit": 3}` with `tools/list` gets the
tools `search_tools` would return for that query (the same `ToolSearch.find`: the filter,
the threshold and `max_results`), ranked, each with its server's own definition, so it
needs no meta-tool. A `tools/list` without `query` is unchanged. The proposal is not part of
MCP yet: the parameters' names may change with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolscout.protocol.choices import MAX_RESULTS_LIMIT
from toolscout.search.index import MAX_QUERY_CHARS

if TYPE_CHECKING:
    from toolscout.gateway.gateway import Gateway, GatewayRequest


class ToolListParams(types.PaginatedRequestParams):
    """`tools/list`'s parameters, with the experimental search's as they were sent: read by
    `read_search`, so that a bad value is an error that says what is wrong (the SDK's own
    validation answers only "Invalid request parameters")."""

    query: Any = None
    limit: Any = None


class ListSearch(BaseModel):
    """The search a `tools/list` asks for."""

    model_config = ConfigDict(frozen=True, strict=True)

    query: str = Field(max_length=MAX_QUERY_CHARS)
    """What the client needs, in words or a tool's name."""
    limit: int | None = Field(default=None, ge=1, le=MAX_RESULTS_LIMIT)
    """At most this many tools; `tool_search.max_results` caps it, and is the default."""

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is empty: describe the tool you need, or leave query out")
        return value


def read_search(params: ToolListParams) -> ListSearch | None:
    """The search `params` ask for; None for a plain `tools/list`.

    Raises:
        MCPError: `INVALID_PARAMS`, naming each bad parameter and what it must be.
    """
    if params.query is None and params.limit is None:
        return None
    given = {"query": params.query, "limit": params.limit}
    try:
        return ListSearch.model_validate({k: v for k, v in given.items() if v is not None})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, detail['loc']))} {_problem(detail)}" for detail in error.errors()
        )
        raise MCPError(types.INVALID_PARAMS, f"tools/list search: {problems}") from None


def _problem(detail: Any) -> str:
    if detail["type"] == "value_error":
        return str(detail["ctx"]["error"])
    return str(detail["msg"]).lower()


async def ranked_tools(
    gateway: Gateway, request: GatewayRequest, search: ListSearch
) -> list[types.Tool] | None:
    """The tools `search_tools` would return for `search.query`, best first, under their ids with
    their servers' definitions; None when tool search is off (then every tool is listed
    anyway, and the query is ignored as a server without the proposal would)."""
    if not gateway.search_on:
        return None
    answer = await gateway.search.afind(
        search.query, request_context=request, max_results=search.limit, explain=False
    )
    tools = []
    for entry in answer.found:
        original = gateway.definition(entry.tool.id)
        if original is not None:
            tools.append(original.model_copy(update={"name": entry.name}))
    return tools
