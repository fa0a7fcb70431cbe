"""What the upstreams send the clients outside results: their requests to the client
(sampling, elicitation, roots) and their log messages, each to the client session it
belongs to.

A server asks its client while serving one of the client's requests, but the gateway has one
connection to each server for all of its clients. So for each request a server makes, the
gateway finds the client session it is for, and asks no other:

1. Over streamable HTTP, a server sends a request made for a call on that call's response
   stream. The gateway handles it in the context of the client request that made the call
   (its `Origin`), so this is exact however many clients call the server at once.
2. Otherwise (a stdio server, or an HTTP server that sends it on its standalone stream) the
   message does not say which call it is for. It goes to the one client session that has
   requests in flight to that server; when several sessions have, the server is answered
   with an error rather than the question put to the wrong person.
3. With nothing in flight, the gateway's one client over stdio is asked; over HTTP nobody
   is, and the server gets an error.

A client of the 2026-07-28 revision of MCP, which cannot be sent requests, is asked in an
`input_required` result of its `tools/call`, `prompts/get` or `resources/read`
(`toolscout.gateway.rounds`, `Relay.across_rounds`); the upstreams' progress and log
messages for that request go on the client's request of the current round. A client that did
not declare the capability (sampling, with tools or context if asked; elicitation in the
mode asked; roots), or that cannot be asked at all (its request is another one of that
revision, or stateless HTTP has no stream for it), is not asked: the server gets an error
that says so. The client's answer, or its error, goes back as it came. Progress the client
reports on such a request reaches the server under the server's own token, and a server that
cancels its request cancels it at the client (or withdraws it from the next
`input_required`). What a server of the 2026-07-28 revision asks for in an `input_required`
result is asked the same way (`Relay.provide`), and each request to such a server asks for
the log level its client wants (`Relay.requested_level`).

Log messages (`notifications/message`) go where a request would, at or above the level the
session set with `logging/setLevel`. Over HTTP, one the gateway cannot tie to a session goes
to no client (it may be about another client's call) but to the gateway's own log, at its
level. Each upstream is set to the most detailed level any session asked for.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import anyio
import anyio.abc
import mcp_types as types
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.server.connection import allowed_log_levels
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ServerEvent
from mcp.server.validation import wants_sampling_tools
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from toolscout.gateway.config import InputRequiredSettings, Transport
from toolscout.gateway.rounds import InputRounds, Rounds, request_owner

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from toolscout.gateway.gateway import GatewayRequest
    from toolscout.gateway.upstream import Upstream

logger = logging.getLogger("toolscout.gateway")

#: MCP's log levels, least severe first.
LEVELS: tuple[types.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
#: How the gateway's own log writes an upstream's message of each level.
_PYTHON_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
#: Sessions whose log level, and URL elicitations whose completion, are remembered.
_MAX_REMEMBERED = 10_000
_ResultT = TypeVar("_ResultT", bound=BaseModel)
_ServedT = TypeVar("_ServedT")


class Clients(Protocol):
    """The gateway's client sessions, as `GatewayServer` keeps them."""

    transport: Transport
    server: Server[Any]

    def request_for(self, ctx: ServerRequestContext[Any]) -> GatewayRequest:
        """Who is asking, for one of a client's requests."""
        ...

    def session_ids(self) -> list[str]:
        """The sessions that have made requests, the most recent first."""
        ...

    def session(self, session_id: str) -> ServerSession | None:
        """A session by its id, while the gateway knows it."""
        ...

    async def notify(
        self,
        notification: types.ServerNotification,
        session_ids: Iterable[str] | None = None,
        *,
        event: ServerEvent | None = None,
    ) -> set[str]:
        """Send a notification to some sessions, or to all; returns the ones found gone."""
        ...

    async def publish(self, event: ServerEvent) -> None:
        """Tell the `subscriptions/listen` streams (clients of the 2026-07-28 revision)."""
        ...


@dataclass(frozen=True, eq=False)
class Origin:
    """A client's request being served: where a server's request made for it is asked."""

    session: ServerSession
    """The session as the request's handler has it: its request-scoped channel rides the
    request's own response stream."""
    request_id: types.RequestId | None
    """The client's request; None for the stdio client when no request is in flight."""
    session_id: str | None
    log_levels: frozenset[str]
    """Log levels that may be sent for it: all, except on the 2026-07-28 revision, where a
    request opts in to a level in its `_meta`."""
    rounds: Rounds[Any, Origin] | None = None
    """Where a request of the 2026-07-28 revision asks its client, and tells it of its
    progress and log messages (`Relay.across_rounds`)."""


_ORIGIN: ContextVar[Origin | None] = ContextVar("toolscout_gateway_origin", default=None)


class OriginMiddleware:
    """Records each client request as the origin of what the gateway does to serve it (a
    `Server.middleware`, so every request is covered, tool calls included)."""

    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.request_id is None or ctx.method == "initialize":
            return await call_next(ctx)
        meta = ctx.params.get("_meta") if isinstance(ctx.params, Mapping) else None
        origin = Origin(
            session=ctx.session,
            request_id=ctx.request_id,
            session_id=self._clients.request_for(ctx).session_id,
            log_levels=allowed_log_levels(
                ctx.protocol_version, meta if isinstance(meta, Mapping) else None
            ),
        )
        token = _ORIGIN.set(origin)
        try:
            return await call_next(ctx)
        finally:
            _ORIGIN.reset(token)


class Relay:
    """Relays the upstreams' requests and log messages to the client sessions they are for.

    Args:
        input_required: How long a client of MCP 2026-07-28 is waited for.
    """

    def __init__(self, input_required: InputRequiredSettings) -> None:
        self._clients: Clients | None = None
        self._in_flight: dict[str, list[Origin]] = {}
        self._levels: OrderedDict[str, types.LoggingLevel] = OrderedDict()
        self._upstream_level: types.LoggingLevel | None = None
        self._elicitations: OrderedDict[tuple[str, str], str] = OrderedDict()
        self.rounds: InputRounds[Origin] = InputRounds(input_required)
        """The requests of clients of the 2026-07-28 revision held across rounds of
        `input_required`; the gateway runs it."""

    def attach(self, clients: Clients) -> None:
        """Relay to these client sessions (the gateway's MCP face, once it exists)."""
        self._clients = clients

    @contextmanager
    def on_behalf(self, upstream: Upstream) -> Iterator[None]:
        """Mark a request to `upstream`, made for the client request being served, as in
        flight: a server request that does not say which call it is for may be for it."""
        origin = _ORIGIN.get()
        if origin is None:
            yield
            return
        flights = self._in_flight.setdefault(upstream.name, [])
        flights.append(origin)
        try:
            yield
        finally:
            flights.remove(origin)
            if not flights:
                del self._in_flight[upstream.name]

    # -- the servers' requests ---------------------------------------------------------

    async def sample(
        self,
        upstream: Upstream,
        context: ClientRequestContext | None,
        params: types.CreateMessageRequestParams,
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        """Ask the client's model (`context`: the server's request, for its progress)."""
        answer = await self._relay(upstream, context, types.CreateMessageRequest(params=params))
        return cast(
            "types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData",
            answer,
        )

    async def elicit(
        self,
        upstream: Upstream,
        context: ClientRequestContext | None,
        params: types.ElicitRequestParams,
    ) -> types.ElicitResult | types.ErrorData:
        """Ask the client's user."""
        answer = await self._relay(upstream, context, types.ElicitRequest(params=params))
        return cast("types.ElicitResult | types.ErrorData", answer)

    async def list_roots(
        self, upstream: Upstream, context: ClientRequestContext | None
    ) -> types.ListRootsResult | types.ErrorData:
        """Ask the client for its roots."""
        answer = await self._relay(upstream, context, types.ListRootsRequest())
        return cast("types.ListRootsResult | types.ErrorData", answer)

    async def provide(
        self, upstream: Upstream, requests: types.InputRequests
    ) -> types.InputResponses | types.ErrorData:
        """Ask the client what a server of the 2026-07-28 revision asks for in an
        `input_required` result, as if the server had sent each request itself; the answers
        by the server's keys, or the first refusal."""
        origin = self._askable(upstream)
        if isinstance(origin, Origin) and origin.rounds is not None:
            # A client of that revision too: the questions go together, in one round.
            questions: dict[str, tuple[types.InputRequest, type[BaseModel]]] = {}
            for key, request in requests.items():
                answer_type = self._answer_type(upstream, origin, request)
                if isinstance(answer_type, types.ErrorData):
                    return answer_type
                questions[key] = request, answer_type
            answered = await origin.rounds.ask(questions)
            for answer in answered.values():
                if isinstance(answer, types.ErrorData):
                    return answer
            return cast("types.InputResponses", answered)
        answers: types.InputResponses = {}
        refusal: list[types.ErrorData] = []

        async def ask(key: str, request: types.InputRequest, group: anyio.abc.TaskGroup) -> None:
            answer = await self._relay(upstream, None, request)
            if isinstance(answer, types.ErrorData):
                refusal.append(answer)
                group.cancel_scope.cancel()
            else:
                answers[key] = cast("types.InputResponse", answer)

        async with anyio.create_task_group() as group:
            for key, request in requests.items():
                group.start_soon(ask, key, request, group)
        return refusal[0] if refusal else answers

    async def across_rounds(
        self,
        ctx: ServerRequestContext[Any],
        params: types.InputResponseRequestParams,
        serve: Callable[[], Awaitable[_ServedT]],
    ) -> _ServedT | types.InputRequiredResult:
        """Serve a `tools/call`, `prompts/get` or `resources/read` (`serve`). For a client of
        the 2026-07-28 revision, over as many rounds of `input_required` as the upstreams'
        questions to it take (`toolscout.gateway.rounds`)."""
        origin = _ORIGIN.get()
        if origin is None or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return await serve()

        async def work(rounds: Rounds[_ServedT, Origin] | None) -> _ServedT:
            token = _ORIGIN.set(replace(origin, rounds=rounds))
            try:
                return await serve()
            finally:
                _ORIGIN.reset(token)

        assert self._clients is not None  # an origin is recorded by the clients' middleware
        owner = request_owner(self._clients.request_for(ctx).identity, ctx.method, params)
        return await self.rounds.serve(params, owner, origin, work)

    def progress_reporter(self, session: ServerSession) -> ProgressFnT:
        """Where an upstream's progress on the client request being served goes: to that
        request (`session`, the request's own), or, for a request held across rounds of
        `input_required`, to the client's request of the current round."""
        origin = _ORIGIN.get()
        rounds = origin.rounds if origin is not None else None
        if rounds is None:
            return session.report_progress

        async def report(progress: float, total: float | None, message: str | None) -> None:
            async def send(current: Origin) -> None:
                await current.session.report_progress(progress, total, message)

            await rounds.tell(send)

        return report

    async def _relay(
        self,
        upstream: Upstream,
        context: ClientRequestContext | None,
        request: types.InputRequest,
    ) -> BaseModel | types.ErrorData:
        """Put a server's request to the client it is for; its answer, or an error for the
        server."""
        origin = self._askable(upstream)
        if isinstance(origin, str):
            return _refused(upstream, request.method, origin)
        answer_type = self._answer_type(upstream, origin, request)
        if isinstance(answer_type, types.ErrorData):
            return answer_type
        params = request.params
        if (
            isinstance(params, types.ElicitRequestURLParams)
            and params.elicitation_id is not None
            and origin.session_id is not None
        ):
            # Its completion, announced later, goes to the session that was asked.
            key = (upstream.name, params.elicitation_id)
            self._elicitations[key] = origin.session_id
            self._elicitations.move_to_end(key)
            if len(self._elicitations) > _MAX_REMEMBERED:
                self._elicitations.popitem(last=False)
        return await self._ask(upstream, origin, context, request, answer_type)

    def _answer_type(
        self, upstream: Upstream, origin: Origin, request: types.InputRequest
    ) -> type[BaseModel] | types.ErrorData:
        """The type of the client's answer to a server's request; or, when the client did
        not declare the capability it needs, the server's refusal."""
        if isinstance(request, types.CreateMessageRequest):
            params = request.params
            tools = wants_sampling_tools(params.tools, params.tool_choice)
            context_wanted = params.include_context not in (None, "none")
            needed = types.SamplingCapability(
                context=types.SamplingContextCapability() if context_wanted else None,
                tools=types.SamplingToolsCapability() if tools else None,
            )
            if not origin.session.check_client_capability(
                types.ClientCapabilities(sampling=needed)
            ):
                extra = " with tools" if tools else " with context" if context_wanted else ""
                return _refused(
                    upstream,
                    request.method,
                    f"the client did not declare the sampling capability{extra}",
                )
            return types.CreateMessageResultWithTools if tools else types.CreateMessageResult
        if isinstance(request, types.ElicitRequest):
            url = isinstance(request.params, types.ElicitRequestURLParams)
            if not _can_elicit(origin.session.client_capabilities, url=url):
                mode = "URL" if url else "form"
                return _refused(
                    upstream,
                    request.method,
                    f"the client did not declare the elicitation capability for {mode} mode",
                )
            return types.ElicitResult
        if not origin.session.check_client_capability(
            types.ClientCapabilities(roots=types.RootsCapability())
        ):
            return _refused(
                upstream, request.method, "the client did not declare the roots capability"
            )
        return types.ListRootsResult

    async def _ask(
        self,
        upstream: Upstream,
        origin: Origin,
        context: ClientRequestContext | None,
        request: types.InputRequest,
        result_type: type[_ResultT],
    ) -> _ResultT | types.ErrorData:
        """Put a server's request to the client session it is for; its answer, or an error
        for the server."""
        what = request.method
        logger.debug(
            "upstream %r: %s relayed to session %r", upstream.name, what, origin.session_id
        )
        if origin.rounds is not None:
            answered = await origin.rounds.ask({what: (request, result_type)})
            return cast("_ResultT | types.ErrorData", answered[what])
        token = (context.meta or {}).get("progress_token") if context is not None else None
        progress = _progress_to(context.session, token) if context and token is not None else None
        related = origin.request_id
        try:
            return await origin.session.send_request(
                cast("types.ServerRequest", request),
                result_type,
                metadata=None
                if related is None
                else ServerMessageMetadata(related_request_id=related),
                progress_callback=progress,
            )
        except MCPError as error:  # the client's own refusal, passed on as it came
            return types.ErrorData(code=error.code, message=error.message, data=error.data)
        except ValidationError:
            return _refused(upstream, what, "the client answered with a malformed result")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return _refused(upstream, what, "the client disconnected before answering")

    def _askable(self, upstream: Upstream) -> Origin | str:
        """The client request a server's request is for, if its client can be asked one;
        or why not."""
        origin = self._origin_for(upstream)
        if (
            isinstance(origin, Origin)
            and origin.rounds is None
            and origin.request_id is not None
            and not origin.session.can_send_request
        ):
            if origin.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
                return (
                    "the client speaks MCP 2026-07-28, where a server asks its client only in "
                    "answer to tools/call, prompts/get and resources/read"
                )
            return "the client's connection (stateless HTTP) has no stream for requests"
        return origin

    def _origin_for(self, upstream: Upstream) -> Origin | str:
        """The client request a message from `upstream` belongs to, or why none can be
        told (see the module docstring)."""
        origin = _ORIGIN.get()
        if origin is not None:
            return origin
        flights = self._in_flight.get(upstream.name, [])
        if len({flight.session_id for flight in flights}) == 1:
            return flights[-1]
        if flights:
            return (
                f"several clients of the gateway have requests in flight to {upstream.name!r} "
                "and the request does not say which one it is for, so none of them is asked"
            )
        clients = self._clients
        if clients is not None and clients.transport == "stdio":
            for session_id in clients.session_ids():
                session = clients.session(session_id)
                if session is not None:
                    levels = allowed_log_levels(session.protocol_version, None)
                    return Origin(session, None, session_id, levels)
            return "the gateway's client has not connected yet"
        return (
            f"no client request to {upstream.name!r} is in progress, so the gateway has no "
            "client to ask"
        )

    # -- log messages ------------------------------------------------------------------

    async def log(self, upstream: Upstream, params: types.LoggingMessageNotificationParams) -> None:
        """Pass on a server's log message (see the module docstring)."""
        origin = self._origin_for(upstream)
        if not isinstance(origin, Origin):
            logger.log(
                _PYTHON_LEVELS[params.level],
                "upstream %r logged (%s): %.500s",
                upstream.name,
                params.level,
                params.data,
            )
            return
        logger.debug("upstream %r logged %s: %.500r", upstream.name, params.level, params.data)

        async def send(current: Origin) -> None:
            if params.level in current.log_levels and self._admits(
                current.session_id, params.level
            ):
                notification = types.LoggingMessageNotification(params=params)
                await current.session.send_notification(notification, current.request_id)

        if origin.rounds is not None:
            await origin.rounds.tell(send)
            return
        try:
            await send(origin)
        except Exception:  # a client that went away
            logger.debug("cannot pass a log message on", exc_info=True)

    def set_level(
        self, session_id: str | None, level: types.LoggingLevel
    ) -> types.LoggingLevel | None:
        """Record a session's `logging/setLevel`; the level the upstreams must now be set to,
        or None when theirs stays the same."""
        key = session_id or ""
        self._levels[key] = level
        self._levels.move_to_end(key)
        if len(self._levels) > _MAX_REMEMBERED:
            self._levels.popitem(last=False)
        wanted = min(self._levels.values(), key=LEVELS.index)
        if wanted == self._upstream_level:
            return None
        self._upstream_level = wanted
        return wanted

    def requested_level(self) -> types.LoggingLevel | None:
        """The least severe level of log messages the client request being served takes:
        what its own `_meta` asks (a client of the 2026-07-28 revision), or the level its
        session set with `logging/setLevel`; None when it asked for none. A server of the
        2026-07-28 revision is asked for that, since it logs only when asked."""
        origin = _ORIGIN.get()
        if origin is None:
            return None
        if origin.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            levels = [level for level in LEVELS if level in origin.log_levels]
            return levels[0] if levels else None
        return self._levels.get(origin.session_id or "")

    @property
    def upstream_level(self) -> types.LoggingLevel | None:
        """The level the upstreams are set to; None until a client sets one."""
        return self._upstream_level

    def _admits(self, session_id: str | None, level: types.LoggingLevel) -> bool:
        wanted = self._levels.get(session_id or "")
        return wanted is None or _at_least(level, wanted)

    async def elicitation_complete(
        self, upstream: Upstream, params: types.ElicitCompleteNotificationParams
    ) -> None:
        """Tell the session that was asked for a URL elicitation that it is complete."""
        session_id = self._elicitations.pop((upstream.name, params.elicitation_id), None)
        if session_id is not None and self._clients is not None:
            await self._clients.notify(
                types.ElicitCompleteNotification(params=params), [session_id]
            )


def _can_elicit(capabilities: types.ClientCapabilities | None, *, url: bool) -> bool:
    """Whether a client takes elicitations of a mode: an empty `elicitation` declares the
    form mode only."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return False
    if url:
        return elicitation.url is not None
    return elicitation.form is not None or elicitation.url is None


def _at_least(level: types.LoggingLevel, threshold: types.LoggingLevel) -> bool:
    return LEVELS.index(level) >= LEVELS.index(threshold)


def _refused(upstream: Upstream, what: str, why: str) -> types.ErrorData:
    logger.info("upstream %r: %s not relayed: %s", upstream.name, what, why)
    return types.ErrorData(
        code=types.INVALID_REQUEST,
        message=f"The gateway did not pass this {what} request on to a client: {why}.",
    )


def _progress_to(session: ClientSession, token: types.ProgressToken) -> ProgressFnT:
    """Sends a client's progress on a server's request back to the server, under its token."""

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        # Not `send_progress_notification`, which warns that the 2026-07-28 revision drops
        # it: upstreams are spoken to in the revisions that have it.
        params = types.ProgressNotificationParams(
            progress_token=token, progress=progress, total=total, message=message
        )
        await session.send_notification(types.ProgressNotification(params=params))

    return forward
