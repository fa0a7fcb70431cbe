"""Everything MCP carries besides tools, passed between the gateway's clients and its
upstreams: prompts (`toolscout.gateway.prompts`), resources, templates and subscriptions
(`toolscout.gateway.resources`), completions, logging, and the servers' requests to the
client (`toolscout.gateway.relay`).

`Passthrough` is every upstream's `UpstreamPeer`: it learns each server's capabilities and
lists when it connects, follows its notifications, and answers its requests through the
relay. `Passthrough.serve(front)` adds the matching request handlers to the gateway's MCP
server, and the server advertises a capability (`prompts`, `resources` and their
`subscribe`, `completions`, `logging`) only when an upstream has declared it.

A client of the 2026-07-28 revision subscribes to resources on a `subscriptions/listen`
stream: the gateway subscribes to each at its server for as long as the stream is open, as it
does for a session's `resources/subscribe`, and passes the server's updates of exactly those
URIs (that revision's streams carry no other: `mcp.shared.subscriptions.event_matches`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import PromptsListChanged, ResourcesListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolscout.gateway.config import GatewayConfig
from toolscout.gateway.modern import speaks_modern
from toolscout.gateway.prompts import Prompts
from toolscout.gateway.relay import Clients, OriginMiddleware, Relay
from toolscout.gateway.resources import (
    Resources,
    ResourceTarget,
    exposed_contents,
    gateway_uri,
)
from toolscout.gateway.tools import shown
from toolscout.gateway.upstream import Upstream
from toolscout.protocol.policy import PolicyCheck

if TYPE_CHECKING:
    from toolscout.gateway.gateway import GatewayRequest
    from toolscout.protocol.processor import ToolSearch

logger = logging.getLogger("toolscout.gateway")

_ListenHandler = Callable[
    [ServerRequestContext[Any], types.SubscriptionsListenRequestParams],
    Awaitable[types.SubscriptionsListenResult],
]
#: The MCP error code of a resource that does not exist (specification 2025-11-25).
_RESOURCE_NOT_FOUND = -32002


class Passthrough:
    """Prompts, resources, completions, logging and the servers' requests to the client.

    Args:
        config: The gateway's configuration.
        search: The gateway's tool search as it is now (a reload may replace it), whose
            filter also decides which prompts and resources a request may see and use
            (`toolscout.gateway.listing`).
        upstreams: The gateway's upstreams by name, as they are now.
    """

    def __init__(
        self,
        config: GatewayConfig,
        search: Callable[[], ToolSearch],
        upstreams: Callable[[], Mapping[str, Upstream]],
    ) -> None:
        self._search = search
        self._upstreams = upstreams
        self._stateless = config.gateway.stateless
        self.prompts = Prompts()
        self.resources = Resources()
        self.relay = Relay(config.gateway.input_required)
        self._capabilities: dict[str, types.ServerCapabilities] = {}
        self._sessions: dict[str, ClientSession] = {}
        self._clients: Clients | None = None
        self._listen: _ListenHandler | None = None
        self._streams: dict[str, dict[tuple[str, str], set[str]]] = {}
        """The open `subscriptions/listen` streams with resource subscriptions: by the
        stream's key in `resources`, the URIs it subscribed to as the client wrote them, by
        `(upstream name, the server's URI)`."""

    # -- the upstreams' side (`UpstreamPeer`) --------------------------------------------

    async def connected(self, upstream: Upstream, session: ClientSession) -> None:
        """Learn a server's capabilities and lists; set its log level and renew the
        clients' subscriptions to it."""
        self._capabilities[upstream.name] = (
            session.server_capabilities or types.ServerCapabilities()
        )
        self._sessions[upstream.name] = session
        async with anyio.create_task_group() as group:
            group.start_soon(self._refresh_prompts, upstream, session)
            group.start_soon(self._refresh_resources, upstream, session)
            group.start_soon(self._restore, upstream, session)

    async def stopped(self, upstream: Upstream, *, removed: bool) -> None:
        """An upstream the gateway stopped for a reload: its prompts and resources leave the
        lists, and the clients are told. The subscriptions to a server removed from the config
        end; those to a server that changed are made again when it connects."""
        self._capabilities.pop(upstream.name, None)
        self._sessions.pop(upstream.name, None)
        if removed:
            self.resources.end_subscriptions(upstream)
        prompts_changed = self.prompts.forget(upstream)
        resources_changed = self.resources.forget(upstream)
        if self._clients is None:
            return
        if prompts_changed:
            await self._clients.notify(
                types.PromptListChangedNotification(), event=PromptsListChanged()
            )
        if resources_changed:
            await self._clients.notify(
                types.ResourceListChangedNotification(), event=ResourcesListChanged()
            )

    async def notified(self, upstream: Upstream, notification: types.ServerNotification) -> None:
        session = self._sessions.get(upstream.name)
        if isinstance(notification, types.PromptListChangedNotification) and session:
            await self._refresh_prompts(upstream, session)
        elif isinstance(notification, types.ResourceListChangedNotification) and session:
            await self._refresh_resources(upstream, session)
        elif isinstance(notification, types.ResourceUpdatedNotification):
            await self._updated(upstream, notification.params)
        elif isinstance(notification, types.LoggingMessageNotification):
            await self.relay.log(upstream, notification.params)
        elif isinstance(notification, types.ElicitCompleteNotification):
            await self.relay.elicitation_complete(upstream, notification.params)

    async def sample(
        self,
        upstream: Upstream,
        context: ClientRequestContext,
        params: types.CreateMessageRequestParams,
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        return await self.relay.sample(upstream, context, params)

    async def elicit(
        self, upstream: Upstream, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        return await self.relay.elicit(upstream, context, params)

    async def list_roots(
        self, upstream: Upstream, context: ClientRequestContext
    ) -> types.ListRootsResult | types.ErrorData:
        return await self.relay.list_roots(upstream, context)

    async def provide(
        self, upstream: Upstream, requests: types.InputRequests
    ) -> types.InputResponses | types.ErrorData:
        return await self.relay.provide(upstream, requests)

    def log_level(self, upstream: Upstream) -> types.LoggingLevel | None:
        return self.relay.requested_level()

    async def _refresh_prompts(self, upstream: Upstream, session: ClientSession) -> None:
        if await self.prompts.refresh(upstream, session) and self._clients is not None:
            await self._clients.notify(
                types.PromptListChangedNotification(), event=PromptsListChanged()
            )

    async def _refresh_resources(self, upstream: Upstream, session: ClientSession) -> None:
        if await self.resources.refresh(upstream, session) and self._clients is not None:
            await self._clients.notify(
                types.ResourceListChangedNotification(), event=ResourcesListChanged()
            )

    async def _restore(self, upstream: Upstream, session: ClientSession) -> None:
        """What the clients had asked of the server's previous connection: the log level,
        the subscriptions."""
        capabilities = self._capabilities[upstream.name]
        level = self.relay.upstream_level
        if level is not None and _takes_level(session):
            await _set_level(upstream, session, level)
        resources = capabilities.resources
        if resources is not None and resources.subscribe:
            for uri in self.resources.subscribed(upstream):
                try:
                    await upstream.subscribe(uri)
                except MCPError as error:  # the subscription is kept for the next connection
                    logger.warning(
                        "upstream %r: cannot subscribe again to %s (%s)",
                        upstream.name,
                        shown(uri),
                        error.message,
                    )

    async def _updated(
        self, upstream: Upstream, params: types.ResourceUpdatedNotificationParams
    ) -> None:
        if self._clients is None:
            return
        written = {
            uri
            for uris in self._streams.values()
            for uri in uris.get((upstream.name, params.uri), ())
        }
        for uri in sorted(written):
            await self._clients.publish(ResourceUpdated(uri=uri))
        sessions = self.resources.subscribers(upstream, params.uri) - self._streams.keys()
        if not sessions:
            return
        exposed = params.model_copy(update={"uri": gateway_uri(upstream.namespace, params.uri)})
        gone = await self._clients.notify(
            types.ResourceUpdatedNotification(params=exposed), sessions
        )
        for name, uri in self.resources.drop_sessions(gone):
            ended = self._upstreams().get(name)
            if ended is not None:
                await _unsubscribe(ended, uri)

    # -- the clients' side ---------------------------------------------------------------

    def serve(self, clients: Clients) -> None:
        """Answer these clients' prompt, resource, completion and logging requests, and
        relay the servers' requests to them."""
        self._clients = clients
        self.relay.attach(clients)
        server = clients.server
        server.middleware.append(OriginMiddleware(clients))
        handlers: list[tuple[str, type[types.RequestParams], Any]] = [
            ("prompts/list", types.PaginatedRequestParams, self._list_prompts),
            ("prompts/get", types.GetPromptRequestParams, self._get_prompt),
            ("resources/list", types.PaginatedRequestParams, self._list_resources),
            ("resources/templates/list", types.PaginatedRequestParams, self._list_templates),
            ("resources/read", types.ReadResourceRequestParams, self._read_resource),
            ("resources/subscribe", types.SubscribeRequestParams, self._subscribe),
            ("resources/unsubscribe", types.UnsubscribeRequestParams, self._unsubscribe),
            ("completion/complete", types.CompleteRequestParams, self._complete),
            ("logging/setLevel", types.SetLevelRequestParams, self._set_level),
        ]
        for method, params_type, handler in handlers:
            server.add_request_handler(method, params_type, handler)
        listen = server.get_request_handler("subscriptions/listen")
        if listen is not None:
            # The SDK's `ListenHandler` the gateway's server was built with.
            self._listen = cast("_ListenHandler", listen.handler)
            server.add_request_handler(
                "subscriptions/listen", types.SubscriptionsListenRequestParams, self._listened
            )
        server.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, self._roots_changed
        )

    def advertised(
        self, capabilities: types.ServerCapabilities, protocol_version: str | None = None
    ) -> types.ServerCapabilities:
        """The server's capabilities, less those no upstream has declared (in any connection
        so far). Subscriptions also need sessions (not `gateway.stateless`) and the
        session-based revisions of MCP."""
        upstreams = self._upstreams()
        declared = [c for name, c in self._capabilities.items() if name in upstreams]
        resources = capabilities.resources
        if resources is not None:
            if not any(c.resources for c in declared):
                resources = None
            else:
                # In the 2026-07-28 revision, the stream itself keeps the subscription.
                subscribe = any(c.resources and c.resources.subscribe for c in declared) and (
                    not self._stateless or protocol_version in MODERN_PROTOCOL_VERSIONS
                )
                resources = resources.model_copy(update={"subscribe": subscribe})
        return capabilities.model_copy(
            update={
                "prompts": capabilities.prompts if any(c.prompts for c in declared) else None,
                "resources": resources,
                "completions": (
                    capabilities.completions if any(c.completions for c in declared) else None
                ),
                "logging": capabilities.logging if any(c.logging for c in declared) else None,
            }
        )

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListPromptsResult:
        prompts = await self.prompts.listed(self._policy(ctx), self._by_namespace())
        return types.ListPromptsResult(prompts=prompts)

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        return await self.relay.across_rounds(ctx, params, lambda: self._prompt(ctx, params))

    async def _prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        prompt = self.prompts.find(params.name, self._by_namespace())
        if prompt is None or not await prompt.allowed(self._policy(ctx), "call"):
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {shown(params.name)}")
        request = types.GetPromptRequest(
            params=types.GetPromptRequestParams(name=prompt.name, arguments=params.arguments)
        )
        with self.relay.on_behalf(prompt.upstream):
            return await prompt.upstream.request(
                request,
                types.GetPromptResult,
                what=f"the prompt {shown(prompt.name)}",
                progress=self.relay.progress_reporter(ctx.session),
            )

    async def _list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListResourcesResult:
        resources = await self.resources.listed(self._policy(ctx), self._by_namespace())
        return types.ListResourcesResult(resources=resources)

    async def _list_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListResourceTemplatesResult:
        templates = await self.resources.listed_templates(self._policy(ctx), self._by_namespace())
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def _read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult | types.InputRequiredResult:
        return await self.relay.across_rounds(ctx, params, lambda: self._read(ctx, params))

    async def _read(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        target = self.resources.target(params.uri, self._by_namespace())
        if target is None or not await target.allowed(self._policy(ctx), "call"):
            raise _not_found(params.uri)
        request = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=target.uri))
        with self.relay.on_behalf(target.upstream):
            result = await target.upstream.request(
                request,
                types.ReadResourceResult,
                what=f"the resource {shown(target.uri)}",
                progress=self.relay.progress_reporter(ctx.session),
            )
        return exposed_contents(target.upstream, result)

    async def _subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        session_id = self._request(ctx).session_id
        if self._stateless or session_id is None:
            raise MCPError(
                types.INVALID_REQUEST,
                "Subscriptions need a session, and this gateway serves every HTTP request on "
                "its own (gateway.stateless).",
            )
        await self._subscribe_to(await self._subscribable(ctx, params.uri), session_id)
        return types.EmptyResult()

    async def _listened(
        self, ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        """A `subscriptions/listen` stream of a client of the 2026-07-28 revision: each of
        its resources is subscribed to for as long as the stream is open. One the client may
        not subscribe to (unknown, hidden by the filter, of a server without subscriptions,
        or refused by its server) is left out of the acknowledgment, which says what the
        stream carries."""
        assert self._listen is not None  # the handler is added in place of the server's
        wanted = params.notifications.resource_subscriptions or []
        if not wanted:
            return await self._listen(ctx, params)
        stream = f"listen-{uuid.uuid4().hex}"
        uris = self._streams.setdefault(stream, {})
        held: list[ResourceTarget] = []
        try:
            for uri in dict.fromkeys(wanted):
                try:
                    target = await self._subscribable(ctx, uri)
                    await self._subscribe_to(target, stream)
                except MCPError as error:
                    logger.info("a listen stream does not subscribe to %s: %s", shown(uri), error)
                    continue
                held.append(target)
                uris.setdefault((target.upstream.name, target.uri), set()).add(uri)
            honored = [uri for written in uris.values() for uri in written]
            notifications = params.notifications.model_copy(
                update={"resource_subscriptions": honored or None}
            )
            listened = params.model_copy(update={"notifications": notifications})
            return await self._listen(ctx, listened)
        finally:
            del self._streams[stream]
            # The stream ends as its client goes away: the subscriptions still end.
            with anyio.CancelScope(shield=True):
                for target in held:
                    if self.resources.unsubscribe(target.upstream, target.uri, stream):
                        with anyio.move_on_after(target.upstream.connect_timeout):
                            await _unsubscribe(target.upstream, target.uri)

    async def _subscribable(self, ctx: ServerRequestContext[Any], uri: str) -> ResourceTarget:
        """What a client subscribes to by `uri`.

        Raises:
            MCPError: the resource is unknown or hidden, or its server offers no
                subscriptions.
        """
        target = self.resources.target(uri, self._by_namespace())
        if target is None or not await target.allowed(self._policy(ctx), "call"):
            raise _not_found(uri)
        upstream = target.upstream
        resources = self._capabilities.get(upstream.name, types.ServerCapabilities()).resources
        if resources is None or not resources.subscribe:
            raise MCPError(
                types.INVALID_REQUEST,
                f"The server {upstream.name!r} does not offer subscriptions to its resources.",
            )
        return target

    async def _subscribe_to(self, target: ResourceTarget, subscriber: str) -> None:
        """Record a subscription (a session's, or a listen stream's), and subscribe at the
        server for the first one.

        Raises:
            MCPError: the server refused it, or is not connected; nothing is recorded.
        """
        upstream = target.upstream
        if self.resources.subscribe(upstream, target.uri, subscriber):
            try:
                with self.relay.on_behalf(upstream):
                    await upstream.subscribe(target.uri)
            except BaseException:
                self.resources.unsubscribe(upstream, target.uri, subscriber)
                raise

    async def _unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        session_id = self._request(ctx).session_id
        target = self.resources.target(params.uri, self._by_namespace())
        if (
            target is not None
            and session_id is not None
            and self.resources.unsubscribe(target.upstream, target.uri, session_id)
        ):
            await _unsubscribe(target.upstream, target.uri)
        return types.EmptyResult()

    async def _complete(
        self, ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        policy = self._policy(ctx)
        ref: types.PromptReference | types.ResourceTemplateReference
        if isinstance(params.ref, types.PromptReference):
            prompt = self.prompts.find(params.ref.name, self._by_namespace())
            if prompt is None or not await prompt.allowed(policy, "call"):
                raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {shown(params.ref.name)}")
            upstream, ref = prompt.upstream, params.ref.model_copy(update={"name": prompt.name})
        else:
            target = self.resources.template_target(params.ref.uri, self._by_namespace())
            if target is None or not await target.allowed(policy, "call"):
                raise MCPError(
                    types.INVALID_PARAMS, f"Unknown resource template: {shown(params.ref.uri)}"
                )
            upstream, ref = target.upstream, params.ref.model_copy(update={"uri": target.uri})
        if self._capabilities.get(upstream.name, types.ServerCapabilities()).completions is None:
            return types.CompleteResult(completion=types.Completion(values=[]))
        request = types.CompleteRequest(
            params=types.CompleteRequestParams(
                ref=ref, argument=params.argument, context=params.context
            )
        )
        with self.relay.on_behalf(upstream):
            return await upstream.request(
                request, types.CompleteResult, what=f"completing {shown(params.argument.name)}"
            )

    async def _set_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        level = self.relay.set_level(self._request(ctx).session_id, params.level)
        if level is not None:
            async with anyio.create_task_group() as group:
                for name, session in self._sessions.items():
                    upstream = self._upstreams().get(name)
                    if upstream is not None and _takes_level(session):
                        group.start_soon(_set_level, upstream, session, level)
        return types.EmptyResult()

    async def _roots_changed(
        self, ctx: ServerRequestContext[Any], params: types.NotificationParams
    ) -> None:
        """A client's roots changed: every connected server of a revision with roots is told,
        and asks for them again as it needs (`toolscout.gateway.relay` says who is asked)."""
        async with anyio.create_task_group() as group:
            for upstream in self._upstreams().values():
                session = self._sessions.get(upstream.name)
                if session is not None and not speaks_modern(session):
                    group.start_soon(_tell_roots_changed, upstream, session)

    # -- helpers ---------------------------------------------------------------------------

    def _request(self, ctx: ServerRequestContext[Any]) -> GatewayRequest:
        assert self._clients is not None  # handlers are added by `serve`
        return self._clients.request_for(ctx)

    def _policy(self, ctx: ServerRequestContext[Any]) -> PolicyCheck:
        """The filter's answers for this request, as tool search asks them."""
        search = self._search()
        return PolicyCheck(search.filter, self._request(ctx), timeout=search.config.filter_timeout)

    def _by_namespace(self) -> dict[str, Upstream]:
        return {upstream.namespace: upstream for upstream in self._upstreams().values()}


def _not_found(uri: str) -> MCPError:
    return MCPError(_RESOURCE_NOT_FOUND, f"Resource not found: {shown(uri)}")


async def _set_level(upstream: Upstream, session: ClientSession, level: types.LoggingLevel) -> None:
    request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
    try:
        with anyio.fail_after(upstream.connect_timeout):
            await session.send_request(request, types.EmptyResult)
    except Exception as error:  # the level is set again at the next connection
        logger.info("upstream %r: cannot set its log level (%s)", upstream.name, error)


async def _tell_roots_changed(upstream: Upstream, session: ClientSession) -> None:
    try:
        with anyio.fail_after(upstream.connect_timeout):
            await session.send_notification(types.RootsListChangedNotification())
    except Exception as error:  # a server that is going away asks again when it is back
        logger.debug("upstream %r: cannot tell it the roots changed (%s)", upstream.name, error)


def _takes_level(session: ClientSession) -> bool:
    """Whether a server is set to a log level: one that declares logging, in a revision
    that has `logging/setLevel` (on 2026-07-28 each request asks for its own)."""
    capabilities = session.server_capabilities
    return bool(capabilities and capabilities.logging) and not speaks_modern(session)


async def _unsubscribe(upstream: Upstream, uri: str) -> None:
    try:
        await upstream.unsubscribe(uri)
    except MCPError as error:  # a server that is down has no subscription to end
        logger.debug("upstream %r: %s", upstream.name, error.message)
