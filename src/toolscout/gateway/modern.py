"""What the gateway does differently for an upstream of the 2026-07-28 revision of MCP, which
has no session to send notifications on and no requests from server to client:

- Changes to its tools, prompts and resources come on a `subscriptions/listen` stream
  (`follow_changes`); updates of a resource on a stream of their own, opened when the gateway
  subscribes to it and closed when it unsubscribes (`ResourceWatches`). A stream the server
  ends is a connection to make again, since nothing it sent meanwhile is replayed.
- It logs only about a request that asks in its `_meta`, at a level (`log_level_meta`).
- A tool call, a prompt or a read may answer `input_required`: what it asks for (sampling,
  elicitation, roots) is asked of the client as a server's request to the client would be,
  and the request is sent again with the answers (`answer_input_required`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.abc
import mcp_types as types
from mcp import ClientSession
from mcp.client.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    SubscriptionLost,
    ToolsListChanged,
    listen,
)
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger("toolscout.gateway")

#: Rounds of `input_required` answered for one request before the gateway gives up.
MAX_INPUT_ROUNDS = 10
#: Seconds before a request whose `input_required` asks for nothing is sent again, at first
#: and at most (it doubles each round): the server is still working on it.
_STATE_ONLY_WAIT = (0.05, 0.25)
_ResultT = TypeVar("_ResultT")

Changed = Callable[[types.ServerNotification], Awaitable[None]]
"""Told of a change as the notification a server of the session-based revisions sends."""
InputProvider = Callable[[types.InputRequests], Awaitable[types.InputResponses | types.ErrorData]]
"""Asks the client for what an `input_required` result asks; its answers, or its refusal."""


def speaks_modern(session: ClientSession) -> bool:
    """Whether the connection is in the 2026-07-28 revision (or a later one)."""
    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


def log_level_meta(level: types.LoggingLevel | None) -> types.RequestParamsMeta | None:
    """The `_meta` that asks a server for log messages about a request, at `level` and above."""
    if level is None:
        return None
    meta: types.RequestParamsMeta = {}
    meta[types.LOG_LEVEL_META_KEY] = level  # type: ignore[literal-required]
    return meta


async def follow_changes(
    session: ClientSession,
    *,
    tools_changed: Callable[[], None],
    changed: Changed | None,
) -> str | None:
    """Follow what the server says changes, on one `subscriptions/listen` stream, until it
    ends: tools (`tools_changed`), and prompts and resources (`changed`, when given). Returns
    why the stream ended, or None when there was nothing to follow (or the server refused).
    """
    capabilities = session.server_capabilities or types.ServerCapabilities()
    tools = bool(capabilities.tools and capabilities.tools.list_changed)
    prompts = changed is not None and bool(
        capabilities.prompts and capabilities.prompts.list_changed
    )
    resources = changed is not None and bool(
        capabilities.resources and capabilities.resources.list_changed
    )
    if not (tools or prompts or resources):
        return None
    try:
        async with listen(
            session,
            tools_list_changed=tools,
            prompts_list_changed=prompts,
            resources_list_changed=resources,
        ) as events:
            async for event in events:
                if isinstance(event, ToolsListChanged):
                    tools_changed()
                elif changed is not None:
                    await changed(_as_notification(event))
    except MCPError as error:
        logger.debug("upstream refused subscriptions/listen: %s", error.message)
        return None
    except SubscriptionLost:
        return "its subscription to its changes was lost"
    return "it ended the subscription to its changes"


class ResourceWatches:
    """One connection's streams of resource updates, one per URI the gateway subscribes to.

    Args:
        session: The connection's session.
        tasks: Where the streams run: the connection's tasks, so they end with it.
        changed: Told of each update, as `notifications/resources/updated`.
        ended: Told why, when the server ends a stream the gateway did not close.
    """

    def __init__(
        self,
        session: ClientSession,
        tasks: anyio.abc.TaskGroup,
        changed: Changed,
        ended: Callable[[str], None],
    ) -> None:
        self._session = session
        self._tasks = tasks
        self._changed = changed
        self._ended = ended
        self._open: dict[str, anyio.CancelScope] = {}

    async def open(self, uri: str) -> None:
        """Open the stream of `uri`'s updates, once the server has acknowledged it.

        Raises:
            MCPError: the server refused it, or did not acknowledge it within the session's
                read timeout.
        """
        if uri not in self._open:
            await self._tasks.start(self._watch, uri)

    def close(self, uri: str) -> None:
        scope = self._open.pop(uri, None)
        if scope is not None:
            scope.cancel()

    async def _watch(
        self, uri: str, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        scope = anyio.CancelScope()
        with scope:
            try:
                async with listen(self._session, resource_subscriptions=[uri]) as events:
                    self._open[uri] = scope
                    task_status.started()
                    async for event in events:
                        if isinstance(event, ResourceUpdated):
                            await self._changed(_as_notification(event))
            except (SubscriptionLost, TimeoutError) as error:
                if uri not in self._open:  # before the acknowledgment: the caller is told
                    raise MCPError(
                        types.INTERNAL_ERROR, f"no acknowledgment ({type(error).__name__})"
                    ) from None
            if self._open.get(uri) is scope:
                del self._open[uri]
                self._ended(f"it ended the stream of updates of {uri!r}")


async def answer_input_required(
    result: _ResultT | types.InputRequiredResult,
    ask: InputProvider,
    again: Callable[
        [types.InputResponses | None, str | None], Awaitable[_ResultT | types.InputRequiredResult]
    ],
) -> _ResultT:
    """The final result of a request the server answered with `input_required`: what it asks
    is asked of the client (`ask`), and the request sent again with the answers and the
    server's `requestState` (`again`), until the server answers.

    Raises:
        InputNotGiven: the client refused, or could not be asked.
        MCPError: the server asked again more than `MAX_INPUT_ROUNDS` times.
    """
    wait = _STATE_ONLY_WAIT[0]
    for _ in range(MAX_INPUT_ROUNDS):
        if not isinstance(result, types.InputRequiredResult):
            return result
        responses = None
        if result.input_requests:
            answered = await ask(result.input_requests)
            if isinstance(answered, types.ErrorData):
                raise InputNotGiven(answered)
            responses = answered
        else:
            await anyio.sleep(wait)
            wait = min(wait * 2, _STATE_ONLY_WAIT[1])
        result = await again(responses, result.request_state)
    if isinstance(result, types.InputRequiredResult):
        raise MCPError(
            types.INTERNAL_ERROR,
            f"the server asked for input more than {MAX_INPUT_ROUNDS} times in a row",
        )
    return result


class InputNotGiven(Exception):
    """The client did not give what a server's `input_required` result asks for."""

    def __init__(self, error: types.ErrorData) -> None:
        super().__init__(error.message)
        self.error = error


def _as_notification(event: ServerEvent) -> types.ServerNotification:
    if isinstance(event, PromptsListChanged):
        return types.PromptListChangedNotification()
    if isinstance(event, ResourcesListChanged):
        return types.ResourceListChangedNotification()
    if isinstance(event, ResourceUpdated):
        params = types.ResourceUpdatedNotificationParams(uri=event.uri)
        return types.ResourceUpdatedNotification(params=params)
    return types.ToolListChangedNotification()
