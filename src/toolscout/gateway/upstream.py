"""One upstream MCP server: started, listed, followed, restarted with backoff, called.

`Upstream.run()` is a supervisor that never returns: it connects (spawning the command, or
opening the URL), lists the tools, follows `notifications/tools/list_changed`, and when the
connection ends (the process exits, the server stops answering) it waits and connects again,
each wait twice as long as the one before. Meanwhile `Upstream.call()` answers at once with an
error that says what happened and when the next attempt is.

Upstreams are spoken to in the session-based revisions of MCP (the `initialize` handshake),
which every server of those revisions supports and which delivers `tools/list_changed` on
the session itself; a server that speaks only the 2026-07-28 revision (it refuses
`initialize`, naming the versions it speaks) is spoken to in that one, and followed with
`subscriptions/listen`.

Everything else a server sends (its other notifications, and its requests for sampling,
elicitation and roots) goes to the `UpstreamPeer` the gateway gives it; `Upstream.request()`
sends it requests other than tool calls.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import logging
import math
import re
import shlex
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, NoReturn, Protocol, Self, TextIO, TypeAlias, TypeVar, cast

import anyio
import httpx2
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ClientRequestContext, IncomingMessage
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.dispatcher import CallOptions, ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types.methods import validate_server_result
from pydantic import BaseModel, TypeAdapter, ValidationError

import toolscout
from toolscout.errors import describe_validation_error
from toolscout.gateway.config import DEFAULT_MAX_RESULT_SIZE, RestartSettings, UpstreamSettings
from toolscout.gateway.itself import is_refusal
from toolscout.gateway.modern import (
    InputNotGiven,
    ResourceWatches,
    answer_input_required,
    follow_changes,
    log_level_meta,
    speaks_modern,
)
from toolscout.gateway.oauth import SignInFailed, has_kept_sign_in, oauth_provider
from toolscout.gateway.stderr import StderrRelay
from toolscout.gateway.tools import shown
from toolscout.gateway.transports import TOO_LARGE, legacy_sse, lenient_message, streamable_http

logger = logging.getLogger("toolscout.gateway")

UpstreamState: TypeAlias = Literal["starting", "connected", "restarting", "skipped"]
"""`starting`: the first connection is under way; `connected`: calls go through;
`restarting`: the last connection failed or ended, and the next attempt is scheduled;
`skipped`: the entry starts this gateway itself, and is never connected to."""

#: Most pages of `tools/list` read from one server.
_MAX_PAGES = 100
#: Seconds a server that reported a transport fault has to answer a `tools/list`.
_PROBE_TIMEOUT = 5.0
#: A UTF-16 surrogate on its own: text JSON can carry and no UTF-8 encoder can write.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ExceptionT = TypeVar("_ExceptionT", bound=BaseException)
_CLIENT_INFO = types.Implementation(name="toolscout-gateway", version=toolscout.__version__)
_TRANSPORT_ERRORS: tuple[type[Exception], ...] = (
    httpx2.HTTPError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    OSError,
)


@dataclass(frozen=True)
class UpstreamStatus:
    """Where an upstream stands, for the progress display and for error messages."""

    name: str
    namespace: str
    state: UpstreamState
    tools: int = 0
    """Tools the gateway offers from it (kept while it restarts)."""
    error: str | None = None
    """Why the last connection failed or ended."""
    failures: int = 0
    """Connection attempts that failed in a row."""
    retry_at: float | None = None
    """When the next attempt starts (`time.monotonic()`), while restarting."""
    retry_delay: float | None = None
    """The wait before that attempt, in seconds: it doubles after each failure up to the
    restart settings' `max_delay`."""
    connected_in: float | None = None
    """Seconds the last successful connection took, tools listed."""
    connections: int = 0
    """Connections made so far: more than one means it was restarted."""


ToolsCallback: TypeAlias = Callable[["Upstream", list[types.Tool], list[str]], Awaitable[int]]
"""Called with an upstream's tools (and sentences about those it listed wrongly) whenever they
are (re)listed; returns how many tools the gateway offers from it."""
StatusCallback: TypeAlias = Callable[[UpstreamStatus], None]
_ResultT = TypeVar("_ResultT", bound=BaseModel)


class UpstreamPeer(Protocol):
    """What the gateway does with what an upstream sends besides its tools: its
    notifications, and its requests to the client (`toolscout.gateway.passthrough`)."""

    async def connected(self, upstream: Upstream, session: ClientSession) -> None:
        """A connection is initialized and its tools listed; runs as calls start to go
        through (the upstream is not reported connected until it returns). Must not
        raise."""

    async def notified(self, upstream: Upstream, notification: types.ServerNotification) -> None:
        """A notification other than `tools/list_changed` and those the SDK applies itself."""

    async def sample(
        self,
        upstream: Upstream,
        context: ClientRequestContext,
        params: types.CreateMessageRequestParams,
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        """`sampling/createMessage`."""
        ...

    async def elicit(
        self, upstream: Upstream, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """`elicitation/create`."""
        ...

    async def list_roots(
        self, upstream: Upstream, context: ClientRequestContext
    ) -> types.ListRootsResult | types.ErrorData:
        """`roots/list`."""
        ...

    async def provide(
        self, upstream: Upstream, requests: types.InputRequests
    ) -> types.InputResponses | types.ErrorData:
        """What a server of the 2026-07-28 revision asks for in an `input_required` result
        (sampling, elicitation, roots): the client's answers, by the server's keys."""
        ...

    def log_level(self, upstream: Upstream) -> types.LoggingLevel | None:
        """The least severe level of log messages a server of the 2026-07-28 revision is
        asked for about the request being made to it (it logs only when asked); None for
        none."""
        ...


class Upstream:
    """One upstream server and its supervisor.

    Args:
        name: The server's key in the config.
        settings: Its settings.
        namespace: The namespace of its tools.
        on_tools: Receives its tools each time they are listed.
        call_timeout: Seconds a call may take, unless `settings.timeout` says otherwise.
        connect_timeout: Seconds to start it and list its tools.
        max_result_size: Bytes of the largest message an HTTP server may send.
        restart: The backoff between attempts.
        on_status: Told of every change of state.
        errlog: Where a stdio server's stderr goes (`toolscout.gateway.stderr`).
        environment: Variables given to a stdio server on top of its own `env` (the
            gateway's marker, `toolscout.gateway.itself`).
        oauth_dir: Where the tokens of a server signed in to are kept.
        peer: Receives the server's other notifications and its requests to the client;
            without one, the gateway declares no client capabilities to the server.
    """

    def __init__(
        self,
        name: str,
        settings: UpstreamSettings,
        *,
        namespace: str,
        on_tools: ToolsCallback,
        call_timeout: float,
        connect_timeout: float,
        restart: RestartSettings,
        max_result_size: int = DEFAULT_MAX_RESULT_SIZE,
        on_status: StatusCallback | None = None,
        errlog: TextIO | None = None,
        environment: Mapping[str, str] | None = None,
        oauth_dir: Path | None = None,
        peer: UpstreamPeer | None = None,
    ) -> None:
        self.name = name
        self.settings = settings
        self.namespace = namespace
        self.timeout = settings.timeout or call_timeout
        self.connect_timeout = connect_timeout
        self.max_result_size = max_result_size
        self._restart = restart
        self._on_tools = on_tools
        self._on_status = on_status
        self._stderr = StderrRelay(name, errlog or sys.stderr)
        self._environment = dict(environment or {})
        self._oauth_dir = oauth_dir
        self._sign_in_now = False
        """The server answered `401` to an attempt made without signing in."""
        self._peer = peer
        self._connection: _Connection | None = None
        self._connected_at: float | None = None
        self._delay = restart.initial_delay
        self._status = UpstreamStatus(name, namespace, "starting")
        self.settled = anyio.Event()
        """Set once the first attempt has connected and listed the tools, or failed."""

    @property
    def status(self) -> UpstreamStatus:
        return self._status

    # -- the supervisor --------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, follow, and reconnect with backoff, until cancelled (or until the server
        turns out to be this gateway itself)."""
        while True:
            started = time.monotonic()
            self._connected_at = None
            try:
                await self._serve_one_connection(started)
            except Exception as failure:  # any failure of one attempt: the next one may work
                refusal = _found(failure, _ThisGateway)
                if refusal is not None:
                    self._skip(str(refusal))
                    return
                if self._sign_in_now:
                    continue  # it answered 401: the next attempt signs in, at once
                error = _describe(failure, self)
                logger.debug("upstream %r failed", self.name, exc_info=True)
            finally:
                self._connection = None
            self._stderr.failed()
            if self._connected_at is not None:
                self._delay = self._delay_after_connection()
                failures = 1
            else:
                failures = self._status.failures + 1
            # Said once per outage; the retries of a server that stays down are details.
            log = logger.warning if failures == 1 else logger.info
            log(
                "upstream %r: %s; retrying in %.1f s (attempt %d)",
                self.name,
                error,
                self._delay,
                failures + 1,
            )
            self._set_status(
                state="restarting",
                error=error,
                failures=failures,
                retry_at=time.monotonic() + self._delay,
                retry_delay=self._delay,
            )
            self.settled.set()
            await anyio.sleep(self._delay)
            self._delay = min(self._delay * 2, self._restart.max_delay)

    def _skip(self, reason: str) -> None:
        logger.warning("upstream %r is skipped: %s", self.name, reason)
        self._set_status(state="skipped", error=reason, retry_at=None, retry_delay=None)
        self.settled.set()

    def _delay_after_connection(self) -> float:
        """The wait before reconnecting once a connection ends: the backoff starts over when
        the connection had lasted `max_delay`, and goes on growing when it had not (a server
        that crashes soon after each start)."""
        lasted = time.monotonic() - (self._connected_at or time.monotonic())
        return self._restart.initial_delay if lasted >= self._restart.max_delay else self._delay

    async def _serve_one_connection(self, started: float) -> NoReturn:
        async with self._open() as connection:
            await self._list(connection)
            self._stderr.connected()
            async with anyio.create_task_group() as group:
                # What lives as long as the connection: following it, and the streams of
                # resource updates of a server of the 2026-07-28 revision.
                connection.watches = ResourceWatches(
                    connection.session, group, self._notified, connection.lose
                )
                self._connection = connection
                if self._peer is not None:
                    await self._peer.connected(self, connection.session)
                self._connected_at = time.monotonic()
                self._set_status(
                    state="connected",
                    error=None,
                    failures=0,
                    retry_at=None,
                    retry_delay=None,
                    connected_in=self._connected_at - started,
                    connections=self._status.connections + 1,
                )
                self.settled.set()
                again = self._status.connections > 1
                (logger.warning if again else logger.info)(
                    "upstream %r: connected%s, %d tools",
                    self.name,
                    " again" if again else "",
                    self._status.tools,
                )
                group.start_soon(self._follow, connection)
                await connection.lost.wait()
                group.cancel_scope.cancel()
            raise _ConnectionLost(connection.lost_reason)

    def _lost(self, connection: _Connection, reason: str) -> None:
        """Stop sending calls to a connection that ended, at once: until the supervisor has
        shut it down, calls are told when the next attempt is."""
        if connection is self._connection:
            self._connection = None
            delay = self._delay_after_connection()
            self._set_status(
                state="restarting",
                error=reason,
                failures=1,
                retry_at=time.monotonic() + delay,
                retry_delay=delay,
            )

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[_Connection]:
        """A connected, initialized session with the server.

        The session's requests time out after `connect_timeout`, which bounds the start: the
        transports are context managers with task groups of their own, which must not be
        entered under a cancel scope that ends first. (The SDK stops that clock while a
        person signs in to an OAuth server.)
        """
        async with AsyncExitStack() as stack:
            settings = self.settings.expanded()  # `${VAR}` read now, kept nowhere else
            if settings.command:
                parameters = StdioServerParameters(
                    command=settings.command,
                    args=list(settings.args),
                    env={**settings.env, **self._environment} or None,
                    cwd=settings.cwd,
                )
                retrying = self._status.failures > 0
                errlog = await stack.enter_async_context(self._stderr.attempt(retrying=retrying))
                read, write = await stack.enter_async_context(
                    stdio_client(parameters, errlog=errlog)  # type: ignore[arg-type]
                )
            else:
                assert settings.url is not None  # one of the two, by validation
                auth = self._sign_in(settings)
                http = create_mcp_http_client(headers=dict(settings.headers) or None, auth=auth)
                if auth is None and settings.oauth.enabled:
                    http.event_hooks["response"].append(self._on_response)
                await stack.enter_async_context(http)
                connect = legacy_sse if settings.type == "sse" else streamable_http
                read, write = await stack.enter_async_context(
                    connect(settings.url, http, max_result_size=self.max_result_size)
                )
            closed = (
                "it closed the connection (did its process exit?)"
                if settings.command
                else "the connection to it closed"
            )
            connection = _Connection(self._lost, closed, self._notified)
            session = _RelaySession(
                _WatchedStream(read, connection),
                write,
                read_timeout_seconds=self.connect_timeout,
                message_handler=connection.on_message,
                client_info=_CLIENT_INFO,
                **self._client_callbacks(),
            )
            connection.session = await stack.enter_async_context(session)
            await _handshake(session)
            yield connection

    def _client_callbacks(self) -> dict[str, Any]:
        """The session's answers to the server's requests: the peer's, which declares to the
        server that the gateway can sample, elicit (form and URL) and list roots."""
        peer = self._peer
        if peer is None:
            return {}

        async def sample(
            context: ClientRequestContext, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
            return await peer.sample(self, context, params)

        async def elicit(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult | types.ErrorData:
            return await peer.elicit(self, context, params)

        async def list_roots(
            context: ClientRequestContext,
        ) -> types.ListRootsResult | types.ErrorData:
            return await peer.list_roots(self, context)

        return {
            "sampling_callback": sample,
            "sampling_capabilities": types.SamplingCapability(
                context=types.SamplingContextCapability(), tools=types.SamplingToolsCapability()
            ),
            "elicitation_callback": elicit,
            "list_roots_callback": list_roots,
        }

    async def _notified(self, notification: types.ServerNotification) -> None:
        if self._peer is not None:
            await self._peer.notified(self, notification)

    def _sign_in(self, settings: UpstreamSettings) -> httpx2.Auth | None:
        """The OAuth sign-in, for a server that asked for it (a `401`) or whose tokens are
        kept. Only then: the SDK's provider lets one request at a time past it until its
        answer starts, which would serialize the calls of a server that never asks."""
        assert settings.url is not None
        if not settings.oauth.enabled or any(
            k.lower() == "authorization" for k in settings.headers
        ):
            return None
        if not (self._sign_in_now or has_kept_sign_in(settings.url, self._oauth_dir)):
            return None
        self._sign_in_now = False
        return oauth_provider(self.name, settings.url, settings.oauth, self._oauth_dir)

    async def _on_response(self, response: httpx2.Response) -> None:
        if response.status_code == 401 and not self._sign_in_now:
            logger.info("upstream %r answered 401: signing in", self.name)
            self._sign_in_now = True

    async def _follow(self, connection: _Connection) -> None:
        """Re-list the tools when the server says they changed; check the connection when
        the transport reports a fault. A server of the 2026-07-28 revision says what changed
        on a `subscriptions/listen` stream (`toolscout.gateway.modern`)."""
        if speaks_modern(connection.session):
            async with anyio.create_task_group() as group:
                group.start_soon(self._listen_for_changes, connection)
                await self._follow_signals(connection)
                group.cancel_scope.cancel()
        else:
            await self._follow_signals(connection)

    async def _listen_for_changes(self, connection: _Connection) -> None:
        def tools_changed() -> None:
            connection.needs_listing = True
            connection.wake.set()

        changed = self._notified if self._peer is not None else None
        ended = await follow_changes(
            connection.session, tools_changed=tools_changed, changed=changed
        )
        if ended is not None:
            connection.lose(ended)

    async def _follow_signals(self, connection: _Connection) -> None:
        while True:
            await connection.wake.wait()
            connection.wake = anyio.Event()
            if connection.needs_check:
                connection.needs_check = False
                try:
                    with anyio.fail_after(_PROBE_TIMEOUT):
                        await connection.session.list_tools()
                except Exception as failure:
                    connection.lose(f"it stopped answering ({_describe(failure, self)})")
                    return
            if connection.needs_listing:
                connection.needs_listing = False
                await self._list(connection)

    async def _list(self, connection: _Connection) -> None:
        with anyio.fail_after(self.connect_timeout):
            definitions, problems = await list_tools(connection.session)
        offered = await self._on_tools(self, definitions, problems)
        self._set_status(tools=offered)

    # -- calls -----------------------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        progress: ProgressFnT | None = None,
    ) -> types.CallToolResult:
        """Call one of the server's tools by its own name; the result as the server sent it,
        or an error result that says what went wrong. Cancelling the call cancels it on the
        server too."""
        connection = self._connection
        if connection is None:
            return error_result(self.unavailable(tool))
        session = connection.session
        meta = self._meta(session)

        async def again(
            responses: types.InputResponses | None, state: str | None
        ) -> types.CallToolResult | types.InputRequiredResult:
            return await session.call_tool(
                tool,
                arguments,
                read_timeout_seconds=self.timeout,
                progress_callback=progress,
                input_responses=responses,
                request_state=state,
                meta=meta,
                allow_input_required=True,
            )

        try:
            if speaks_modern(session):
                result = await answer_input_required(await again(None, None), self._ask, again)
            else:
                result = await session.call_tool(
                    tool, arguments, read_timeout_seconds=self.timeout, progress_callback=progress
                )
        except InputNotGiven as refusal:
            return error_result(
                f"The server {self.name!r} needs input from the client to run {tool!r}, and "
                f"did not get it: {refusal.error.message}"
            )
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED and TOO_LARGE in error.message:
                # The SDK gives up on the one response; the session itself is fine.
                return error_result(
                    f"The result of {shown(tool)} on {self.name!r} is larger than "
                    f"{self.max_result_size:,} bytes (gateway.max_result_size), so the gateway "
                    "did not take it. Ask for less (a narrower query, fewer items, a smaller "
                    "file), or raise gateway.max_result_size."
                )
            if error.code == types.CONNECTION_CLOSED:
                connection.lose(connection.closed_reason)
                return error_result(
                    f"The server {self.name!r} disconnected during the call to {tool!r}, so "
                    f"its result is lost. The gateway is {self._again('restarting it')}; try "
                    "again in a few seconds if the call is safe to repeat."
                )
            if error.code == types.REQUEST_TIMEOUT:
                return error_result(
                    f"The call to {tool!r} on {self.name!r} took longer than {self.timeout:g} "
                    "s and was cancelled."
                )
            return error_result(
                f"The server {self.name!r} refused the call to {tool!r}: {error.message} "
                f"(MCP error {error.code})."
            )
        except _TRANSPORT_ERRORS as error:
            connection.check()
            return error_result(
                f"The call to {tool!r} on {self.name!r} failed in transit "
                f"({type(error).__name__}: {error}); the gateway is checking the connection."
            )
        where = _not_unicode(result.model_dump(by_alias=True, exclude_none=True))
        if where is not None:
            return error_result(
                f"The result of {shown(tool)} on {self.name!r} holds text that is not valid "
                f"Unicode (a lone surrogate, at {where}), so the gateway cannot pass it on."
            )
        return result

    async def request(
        self,
        request: types.ClientRequest,
        result_type: type[_ResultT],
        *,
        what: str,
        progress: ProgressFnT | None = None,
    ) -> _ResultT:
        """Send the server a request other than a tool call, within the call timeout; its
        result as the server sent it. Cancelling it cancels it on the server too.

        Args:
            what: What is asked, for error messages: `the prompt 'greet'`.

        Raises:
            MCPError: the server is not connected, disconnected, took too long, or answered
                with an error (its code kept, the server named in the message).
        """
        connection = self._connection
        if connection is None:
            raise MCPError(types.INTERNAL_ERROR, self._unavailable(what, "be answered"))
        session = connection.session
        params = request.params
        meta = self._meta(session)
        if meta is not None and params is not None:
            params = params.model_copy(update={"meta": meta})
            request = request.model_copy(update={"params": params})

        async def again(
            responses: types.InputResponses | None, state: str | None
        ) -> _ResultT | types.InputRequiredResult:
            update = {"input_responses": responses, "request_state": state}
            return await session.send_request(
                request.model_copy(update={"params": cast(Any, params).model_copy(update=update)}),
                _or_input_required(result_type),
                request_read_timeout_seconds=self.timeout,
                progress_callback=progress,
            )

        try:
            if speaks_modern(session) and isinstance(params, types.InputResponseRequestParams):
                return await answer_input_required(await again(None, None), self._ask, again)
            return await session.send_request(
                request,
                result_type,
                request_read_timeout_seconds=self.timeout,
                progress_callback=progress,
            )
        except InputNotGiven as refusal:
            raise MCPError(
                refusal.error.code,
                f"The server {self.name!r} needs input from the client to answer for {what}, "
                f"and did not get it: {refusal.error.message}",
            ) from None
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED and TOO_LARGE in error.message:
                # The SDK gives up on the one response; the session itself is fine.
                raise MCPError(
                    types.INTERNAL_ERROR,
                    f"The answer of {self.name!r} for {what} is larger than "
                    f"{self.max_result_size:,} bytes (gateway.max_result_size), so the gateway "
                    "did not take it.",
                ) from None
            if error.code == types.CONNECTION_CLOSED:
                connection.lose(connection.closed_reason)
                raise MCPError(
                    types.INTERNAL_ERROR,
                    f"The server {self.name!r} disconnected while answering for {what}. The "
                    f"gateway is {self._again('restarting it')}; try again in a few seconds.",
                ) from None
            if error.code == types.REQUEST_TIMEOUT:
                raise MCPError(
                    types.INTERNAL_ERROR,
                    f"The server {self.name!r} took longer than {self.timeout:g} s to answer "
                    f"for {what}, so the request was cancelled.",
                ) from None
            raise MCPError(
                error.code, f"{error.message} (the server {self.name!r}, for {what})", error.data
            ) from None
        except _TRANSPORT_ERRORS as error:
            connection.check()
            raise MCPError(
                types.INTERNAL_ERROR,
                f"The request for {what} to {self.name!r} failed in transit "
                f"({type(error).__name__}: {error}); the gateway is checking the connection.",
            ) from None
        except ValidationError as error:
            raise MCPError(
                types.INTERNAL_ERROR,
                f"The server {self.name!r} answered for {what} with a malformed result "
                f"({describe_validation_error(error, most=1)}).",
            ) from None

    async def subscribe(self, uri: str) -> None:
        """Have the server send updates of one of its resources, which reach the peer as
        `notifications/resources/updated`, until `unsubscribe` or the end of the connection:
        `resources/subscribe`, or on the 2026-07-28 revision a `subscriptions/listen` stream
        of that resource's own.

        Raises:
            MCPError: as `request()` does.
        """
        connection = self._connection
        if connection is None or not speaks_modern(connection.session):
            request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
            await self.request(request, types.EmptyResult, what=f"a subscription to {shown(uri)}")
            return
        try:
            await connection.watches.open(uri)
        except MCPError as error:
            raise MCPError(
                types.INTERNAL_ERROR,
                f"The server {self.name!r} did not take a subscription to {shown(uri)}: "
                f"{error.message}.",
            ) from None

    async def unsubscribe(self, uri: str) -> None:
        """End what `subscribe` started.

        Raises:
            MCPError: as `request()` does.
        """
        connection = self._connection
        if connection is not None and speaks_modern(connection.session):
            connection.watches.close(uri)
            return
        request = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
        await self.request(
            request, types.EmptyResult, what=f"ending a subscription to {shown(uri)}"
        )

    def _meta(self, session: ClientSession) -> types.RequestParamsMeta | None:
        """The `_meta` of a request to the server: on the 2026-07-28 revision, the log level
        the client asks for about it."""
        if self._peer is None or not speaks_modern(session):
            return None
        return log_level_meta(self._peer.log_level(self))

    async def _ask(self, requests: types.InputRequests) -> types.InputResponses | types.ErrorData:
        if self._peer is None:
            return types.ErrorData(
                code=types.INVALID_REQUEST, message="the gateway has no client to ask"
            )
        return await self._peer.provide(self, requests)

    def unavailable(self, tool: str) -> str:
        """What a call to `tool` answers while the server is not connected: its name, its
        state, its last error and when the next attempt is."""
        return self._unavailable(repr(tool), "run")

    def _unavailable(self, subject: str, verb: str) -> str:
        """That `subject` cannot `verb` while the server is not connected, and why."""
        status = self._status
        if status.state == "starting":
            return f"The server {self.name!r} is still starting; try {subject} again shortly."
        if status.state == "skipped":
            return (
                f"The server {self.name!r} is skipped ({status.error}), so {subject} cannot {verb}."
            )
        wait = max(0.0, (status.retry_at or time.monotonic()) - time.monotonic())
        return (
            f"The server {self.name!r} is not connected ({status.error}), so {subject} cannot "
            f"{verb} now. The gateway {self._again('restarts it')} in "
            f"{math.ceil(wait * 10) / 10:g} s (attempt "
            f"{status.failures + 1}); try again after that."
        )

    def _again(self, stdio_words: str) -> str:
        """`restarts it` for a server the gateway runs, `reconnects to it` for a URL."""
        if self.settings.command:
            return stdio_words
        return stdio_words.replace("restart", "reconnect").replace(" it", " to it")

    def _set_status(self, **changes: Any) -> None:
        self._status = dataclasses.replace(self._status, **changes)
        if self._on_status is not None:
            self._on_status(self._status)

    def __repr__(self) -> str:
        return f"Upstream({self.name!r}, state={self._status.state!r})"


async def _handshake(session: ClientSession) -> None:
    """`initialize`; for a server that refuses it, naming only the 2026-07-28 revision,
    `server/discover` in that revision.

    Raises:
        _ThisGateway: the server is this gateway, started by itself.
    """
    try:
        await session.initialize()
    except MCPError as error:
        if is_refusal(error.error):
            raise _ThisGateway(error.message) from None
        if error.code != types.UNSUPPORTED_PROTOCOL_VERSION:
            raise
        await session.discover()


def error_result(message: str) -> types.CallToolResult:
    """A tool result that reports an error the model can read."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


async def list_tools(session: ClientSession) -> tuple[list[types.Tool], list[str]]:
    """Every tool the server lists, page after page, and a sentence for each tool whose
    definition is malformed (which is left out instead of failing the whole listing)."""
    tools: list[types.Tool] = []
    problems: list[str] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        try:
            page = await session.list_tools(params=params)
        except ValidationError:
            page, skipped = await _salvaged_page(session, params)
            problems += skipped
        for tool in page.tools:
            where = _not_unicode(tool.model_dump(by_alias=True, exclude_none=True))
            if where is None:
                tools.append(tool)
            else:
                problems.append(
                    f"{shown(tool.name)} is skipped: its {where or 'definition'} is not valid "
                    "Unicode (a lone surrogate)"
                )
        cursor = page.next_cursor
        if not cursor:
            break
    return tools, problems


async def _salvaged_page(
    session: ClientSession, params: types.PaginatedRequestParams | None
) -> tuple[types.ListToolsResult, list[str]]:
    """One page of `tools/list` read tool by tool.

    The SDK rejects a whole listing when one tool is malformed; a gateway in front of
    someone else's servers keeps the others. The SDK has no public way to read a result
    unvalidated, so this sends the request as `ClientSession.send_request` does, minus the
    validation.
    """
    data = types.ListToolsRequest(params=params).model_dump(
        by_alias=True, mode="json", exclude_none=True
    )
    options: CallOptions = {}
    session._stamp(data, options)
    raw = await session._dispatcher.send_raw_request(data["method"], data.get("params"), options)
    version = session.protocol_version or types.LATEST_PROTOCOL_VERSION
    items = raw.get("tools")
    if not isinstance(items, list):
        items = []
    tools: list[types.Tool] = []
    problems: list[str] = []
    for position, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        label = shown(name) if isinstance(name, str) else f"tools[{position}]"
        try:
            validate_server_result("tools/list", version, {"tools": [item]})
            tools.append(types.Tool.model_validate(item, by_name=False))
        except ValidationError as error:
            detail = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in detail["loc"][2:]) or "definition"
            problems.append(f"{label} is skipped: its {where} is malformed ({detail['msg']})")
    cursor = raw.get("nextCursor")
    return types.ListToolsResult(
        tools=tools, next_cursor=cursor if isinstance(cursor, str) else None
    ), problems


class _RelaySession(ClientSession):
    """A session that relays results as the server sent them.

    `ClientSession` checks structured content against the tool's output schema, and fetches
    `tools/list` to do so. That check belongs to the client at the end of the line, which
    runs it itself; in the middle it would turn a server's schema mistake into a gateway
    error and hide the real result.
    """

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        return None


class _Connection:
    """One session with the server, and the signals that keep it followed."""

    def __init__(
        self,
        on_lost: Callable[[_Connection, str], None],
        closed_reason: str,
        on_notification: Callable[[types.ServerNotification], Awaitable[None]],
    ) -> None:
        self._on_lost = on_lost
        self._on_notification = on_notification
        self.closed_reason = closed_reason
        """What to say when the connection closes under a call."""
        self.session: ClientSession
        self.watches: ResourceWatches
        """Its streams of resource updates, on the 2026-07-28 revision."""
        self.lost = anyio.Event()
        self.lost_reason = "the connection ended"
        self.wake = anyio.Event()
        self.needs_listing = False
        self.needs_check = False

    async def on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.needs_listing = True
            self.wake.set()
        elif isinstance(message, Exception):
            logger.debug("upstream transport fault: %r", message)
            self.check()
        else:
            await self._on_notification(message)

    def check(self) -> None:
        """Make sure the server still answers (after a transport fault)."""
        self.needs_check = True
        self.wake.set()

    def lose(self, reason: str) -> None:
        if not self.lost.is_set():
            self.lost_reason = reason
            self.lost.set()
            self._on_lost(self, reason)


class _WatchedStream:
    """The session's read stream, which marks the connection lost when it ends: that is
    how a stdio server's exit is noticed at once."""

    def __init__(self, inner: Any, connection: _Connection) -> None:
        self._inner = inner
        self._connection = connection

    @property
    def last_context(self) -> contextvars.Context | None:
        """The context of whoever sent the last message, which the SDK runs its handling
        of it in: over streamable HTTP, a message that came on the response stream of a
        request is handled in the context of the gateway task that made that request, so
        a server's request during a call is known to belong to that call."""
        context: contextvars.Context | None = getattr(self._inner, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except anyio.EndOfStream:  # the other end closed: the server is gone
            self._ended()
            raise
        if isinstance(item, ValidationError):
            return _read_leniently(item) or item
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Not `_ended()`: the session also closes the stream when the gateway shuts down.
        await self._inner.aclose()

    def _ended(self) -> None:
        self._connection.lose(self._connection.closed_reason)


def _read_leniently(error: ValidationError) -> SessionMessage | None:
    """A response the SDK's JSON parser refused, read with Python's, when the text is JSON
    that holds a string which is not Unicode: a lone surrogate escape such as `"\\ud800"`,
    which JSON's grammar allows. What is wrong in it is then judged where it matters (the
    one tool of a listing is left out, a result is refused) instead of the whole message
    being lost and its request left to time out. None for anything else."""
    details = error.errors(include_url=False)
    if len(details) != 1 or details[0]["type"] != "json_invalid":
        return None
    raw = details[0].get("input")
    if not isinstance(raw, str | bytes):
        return None
    message = lenient_message(raw)
    return SessionMessage(message) if isinstance(message, types.JSONRPCResponse) else None


def _unless_read_leniently(record: logging.LogRecord) -> bool:
    """A filter for the SDK's stdio log: its traceback for a line it cannot parse is left
    out when the gateway reads the line itself."""
    error = record.exc_info[1] if record.exc_info else None
    return not (isinstance(error, ValidationError) and _read_leniently(error) is not None)


logging.getLogger("mcp.client.stdio").addFilter(_unless_read_leniently)


def _not_unicode(value: Any) -> str | None:
    """Where `value` (JSON data) holds text that is not valid Unicode, as a dotted path
    (`inputSchema.properties`), or None when all of it is."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return path
                pending.append((f"{path}.{key}" if path else str(key), child))
        elif isinstance(item, list | tuple):
            pending += [(f"{path}.{i}" if path else str(i), child) for i, child in enumerate(item)]
    return None


class _ConnectionLost(Exception):
    """The connection ended after it had worked."""


@functools.cache
def _or_input_required(
    result_type: type[_ResultT],
) -> TypeAdapter[_ResultT | types.InputRequiredResult]:
    """Reads a result of that type, or `input_required` (the 2026-07-28 revision)."""
    return TypeAdapter(cast(Any, result_type | types.InputRequiredResult))


class _ThisGateway(Exception):
    """The server is this gateway itself, which refused to start its servers again."""


def _found(failure: BaseException, kind: type[_ExceptionT]) -> _ExceptionT | None:
    """`failure`, or the first exception of that kind inside its task groups' groups."""
    if isinstance(failure, kind):
        return failure
    if isinstance(failure, BaseExceptionGroup):
        for inner in failure.exceptions:
            found = _found(inner, kind)
            if found is not None:
                return found
    return None


def _describe(failure: BaseException, upstream: Upstream) -> str:
    """Why an attempt failed, in a few words: the first real cause inside task groups."""
    while isinstance(failure, BaseExceptionGroup) and failure.exceptions:
        failure = failure.exceptions[0]
    if isinstance(failure, _ConnectionLost | SignInFailed):
        return str(failure)
    if isinstance(failure, TimeoutError):
        return f"it did not start and list its tools within {upstream.connect_timeout:g} s"
    if isinstance(failure, FileNotFoundError) and upstream.settings.command:
        return f"cannot run {shlex.quote(upstream.settings.command)}: command not found"
    if isinstance(failure, MCPError):
        if failure.code == types.CONNECTION_CLOSED:
            if upstream.settings.command:
                return "it closed the connection (did its process exit?)"
            return "the connection to it closed"
        return f"it answered with an error: {failure.message}"
    if isinstance(failure, httpx2.HTTPStatusError):
        return f"{upstream.settings.url} answered HTTP {failure.response.status_code}"
    if isinstance(failure, httpx2.HTTPError):
        return f"cannot reach {upstream.settings.url} ({type(failure).__name__})"
    text = str(failure).strip()
    return f"{type(failure).__name__}: {text}" if text else type(failure).__name__
