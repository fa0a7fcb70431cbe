"""The MCP server clients connect to: the gateway's tool list and its calls, over stdio.

`tools/list` is what `ToolSearch.aprepare` gives for the session: in `proxy` mode, the
pinned tools (under their ids, with their servers' own definitions) then `search_tools` and
`call_tool`. With an experimental `query` parameter (SEP-1821),
`tools/list` answers with the tools a search finds (`toolscout.gateway.list_query`).
`tools/call` goes through `ToolSearch.aexecute`, which checks the filter and the
session's discoveries, and relays the call; the upstream's result comes back untouched.

Prompts, resources, completions and logging are answered by `gateway.passthrough`, which
adds their handlers here (`toolscout.gateway.passthrough`).

A session is the MCP session (`Mcp-Session-Id` over HTTP; the one connection over stdio).
Over HTTP the gateway speaks the session-based revisions of MCP, since the 2026-07-28 one has
no sessions to keep discoveries under: a client that probes for it with `server/discover` is
told to use `initialize`, as the specification's fallback intends.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ServerEvent,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

import toolscout
from toolscout.gateway.auth import identity_of
from toolscout.gateway.config import Transport
from toolscout.gateway.gateway import Gateway, GatewayRequest, Relayed
from toolscout.gateway.list_query import ToolListParams, ranked_tools, read_search
from toolscout.gateway.stdio import StdinLines
from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult
from toolscout.protocol.modes import mode_strategy

logger = logging.getLogger("toolscout.gateway")

#: Sessions whose connection is kept to tell them the tool list changed.
_MAX_SESSIONS = 10_000


class GatewayServer:
    """The gateway's MCP face: a low-level MCP `Server` whose handlers ask the gateway.

    Args:
        gateway: The gateway to serve.
        transport: How it is served: `stdio` (one client) or `http`.
    """

    def __init__(self, gateway: Gateway, transport: Transport) -> None:
        self.gateway = gateway
        self.transport: Transport = transport
        self._stdio_session = f"stdio-{uuid.uuid4().hex}"
        self.url: str | None = None
        """The MCP endpoint's URL once served over HTTP."""
        self._sessions: OrderedDict[str, ServerSession] = OrderedDict()
        self._bus = InMemorySubscriptionBus()
        self.server: Server[Any] = _Server(
            gateway.config.gateway.name,
            version=toolscout.__version__,
            instructions=_instructions(gateway),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
            advertised=gateway.passthrough.advertised,
        )
        entry = self.server.get_request_handler("server/discover")
        self._discover = entry.handler if entry is not None else None
        self.server.add_request_handler("server/discover", types.RequestParams, self._on_discover)
        self.server.add_request_handler("tools/list", ToolListParams, self._list_tools)
        gateway.on_list_changed(self.notify_list_changed)
        gateway.passthrough.serve(self)

    def initialization_options(self) -> InitializationOptions:
        return self.server.create_initialization_options()

    async def serve_stdio(self) -> None:
        """Serve the one client on this process's stdin and stdout, until it disconnects."""
        # Read so that a cancellation (Ctrl-C) never waits for a line (`StdinLines`).
        async with StdinLines() as lines:
            stdin = cast("anyio.AsyncFile[str]", lines)
            async with stdio_server(stdin=stdin) as (read, write):
                await self.server.run(read, write, self.initialization_options())

    async def notify_list_changed(self, session_id: str | None = None) -> None:
        """Send `notifications/tools/list_changed` to one session, or to all."""
        targets = None if session_id is None else [session_id]
        await self.notify(types.ToolListChangedNotification(), targets, event=ToolsListChanged())

    async def notify(
        self,
        notification: types.ServerNotification,
        session_ids: Iterable[str] | None = None,
        *,
        event: ServerEvent | None = None,
    ) -> set[str]:
        """Send a notification to some sessions, or to all at once (a client that does not
        take it within a second is skipped, and forgotten if gone); the sessions found gone.
        `event` is published for the clients of the 2026-07-28 revision (stdio), which learn
        of changes on `subscriptions/listen`."""
        if session_ids is None:
            targets = list(self._sessions.items())
        else:
            targets = [(key, self._sessions[key]) for key in session_ids if key in self._sessions]
        gone: set[str] = set()

        async def send(key: str, session: ServerSession) -> None:
            try:
                with anyio.fail_after(1):
                    await session.send_notification(notification)
            except TimeoutError:
                logger.debug("session %r did not take the notification in time", key)
            except Exception:  # a client that went away
                logger.debug("cannot notify session %r", key, exc_info=True)
                self._sessions.pop(key, None)
                gone.add(key)

        async with anyio.create_task_group() as group:
            for key, session in targets:
                group.start_soon(send, key, session)
        if event is not None:
            await self.publish(event)
        return gone

    async def publish(self, event: ServerEvent) -> None:
        """Tell the `subscriptions/listen` streams of the clients of the 2026-07-28 revision;
        each stream passes on what it subscribed to."""
        await self._bus.publish(event)

    def session_ids(self) -> list[str]:
        """The sessions that have made requests, the most recent first."""
        return list(reversed(self._sessions))

    def session(self, session_id: str) -> ServerSession | None:
        """A session by its id, while the gateway keeps it (it forgets the oldest of more
        than 10,000, and those found gone)."""
        return self._sessions.get(session_id)

    def request_for(self, ctx: ServerRequestContext[Any]) -> GatewayRequest:
        """Who is asking, for one of a client's requests (and its session, noted)."""
        return self._request(ctx)

    # -- handlers --------------------------------------------------------------------------

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        request = self._request(ctx)
        search = read_search(params) if isinstance(params, ToolListParams) else None
        if search is not None:
            ranked = await ranked_tools(self.gateway, request, search)
            if ranked is not None:
                return types.ListToolsResult(tools=ranked)
        definitions = await self.gateway.search.aprepare(
            request.session_id, request_context=request
        )
        return types.ListToolsResult(tools=[self._mcp_tool(d) for d in definitions])

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        relay = self.gateway.passthrough.relay
        return await relay.across_rounds(ctx, params, lambda: self._run_tool(ctx, params))

    async def _run_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        report_progress = self.gateway.passthrough.relay.progress_reporter(ctx.session)
        request = self._request(ctx, report_progress=report_progress)
        search = self.gateway.search
        names = search.config.meta_tool_names
        mode = mode_strategy(search.config.mode)
        calls_through = mode.actions(search.config).get(params.name) == "call"
        target = _target(params) if calls_through else params.name
        started = time.perf_counter()
        unavailable = self.gateway.unavailable(target) if target is not None else None
        if unavailable is not None:
            self.gateway.metrics.observe_call(target or "", 0.0, error=True)
            return _mcp_result(ToolResult(None, params.name, unavailable, is_error=True))
        # Where the list holds discovered tools, discovering changes this session's list.
        watch = mode.lists_discovered and params.name in names.model_dump().values()
        before = await self._names(request) if watch else None
        result = await search.aexecute(
            ToolCall(params.name, params.arguments or {}), request.session_id, request
        )
        elapsed = time.perf_counter() - started
        if params.name == names.search:
            self.gateway.metrics.observe_search(elapsed)
        elif target is not None and target not in names.model_dump().values():
            self.gateway.metrics.observe_call(target, elapsed, error=_is_error(result))
        if watch and await self._names(request) != before:
            await self.notify_list_changed(request.session_id)
        return _mcp_result(result)

    async def _on_discover(
        self, ctx: ServerRequestContext[Any], params: types.RequestParams
    ) -> Any:
        if ctx.request is not None or self._discover is None:
            raise MCPError(
                types.METHOD_NOT_FOUND,
                "this gateway keeps what each session discovers, so over HTTP it speaks the "
                "session-based protocol: connect with initialize",
            )
        return await self._discover(ctx, params)

    # -- helpers ---------------------------------------------------------------------------

    def _request(self, ctx: ServerRequestContext[Any], **extra: Any) -> GatewayRequest:
        http = ctx.request
        identity = None
        if http is None:
            session_id: str | None = self._stdio_session
            headers: dict[str, str] = {}
        else:
            headers = {
                key: value for key, value in http.headers.items() if key.lower() != "authorization"
            }
            session_id = headers.get("mcp-session-id") or None
            identity = identity_of(http.scope)
        if session_id is not None:
            self._sessions[session_id] = ctx.session
            self._sessions.move_to_end(session_id)
            if len(self._sessions) > _MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return GatewayRequest(session_id, self.transport, headers, identity, **extra)

    async def _names(self, request: GatewayRequest) -> list[str]:
        definitions = await self.gateway.search.aprepare(
            request.session_id, request_context=request
        )
        return [definition.name for definition in definitions]

    def _mcp_tool(self, definition: ToolDefinition) -> types.Tool:
        """A tool of the list as MCP shows it: an upstream tool with its server's own
        definition, named by its id; a meta-tool as tool search defines it."""
        original = self.gateway.definition(definition.tool_id) if definition.tool_id else None
        if original is not None:
            return original.model_copy(update={"name": definition.name})
        return types.Tool(
            name=definition.name,
            title=definition.title,
            description=definition.description,
            input_schema=definition.input_schema,
        )


class _Server(Server[Any]):
    """The low-level server, which tells every client, whatever its transport, that its
    lists can change (the SDK's HTTP transport asks for the options without any), and
    advertises only the capabilities some upstream has.

    Args:
        advertised: Narrows the capabilities the handlers give to those some upstream has.
    """

    def __init__(
        self,
        *args: Any,
        advertised: Callable[[types.ServerCapabilities, str | None], types.ServerCapabilities],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._advertised = advertised

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options
            or NotificationOptions(
                tools_changed=True, prompts_changed=True, resources_changed=True
            ),
            experimental_capabilities,
            extensions,
        )

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(
            notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        return self._advertised(capabilities, protocol_version)


def _target(params: types.CallToolRequestParams) -> str | None:
    """The tool a `call_tool` call runs: the `name` it is given."""
    name = (params.arguments or {}).get("name")
    return name if isinstance(name, str) else None


def _is_error(result: ToolResult) -> bool:
    if isinstance(result.value, Relayed):
        return bool(result.value.result.is_error)
    return result.is_error


def _mcp_result(result: ToolResult) -> types.CallToolResult:
    if isinstance(result.value, Relayed):
        return result.value.result
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.content)], is_error=result.is_error
    )


def _instructions(gateway: Gateway) -> str:
    names = gateway.config.tool_search.meta_tool_names
    servers = ", ".join(upstream.namespace for upstream in gateway.upstreams.values())
    if gateway.config.tool_search.enabled == "auto":
        # Search turns on and off with the catalog, and the instructions are given once.
        return (
            f"This server gives access to the tools of these MCP servers: {servers}; tool "
            f"names are prefixed with their server's name (server__tool). When "
            f"{names.search} is listed, most tools are not: find them with it, describing "
            f"what you need in a few words, then run them as its result says."
        )
    if not gateway.search_on:
        return f"Tools of these MCP servers, each prefixed with its server's name: {servers}."
    return (
        f"This server gives access to the tools of these MCP servers: {servers}. Most of them "
        f"are not listed: find them with {names.search}, describing what you need in a few "
        f"words, then run them as its result says. Tool names are prefixed with their "
        f"server's name (server__tool)."
    )
