"""Every upstream's resources and resource templates, under URIs of the gateway's own, and the
clients' subscriptions to them.

A resource `memo://insights` of the server `sqlite` is `toolscout://sqlite/memo://insights`
to the clients: the scheme `toolscout`, the server's namespace as the authority, then the
server's URI exactly as it wrote it. Taking the prefix off gives the server's URI back,
whatever it holds (another scheme, a path, a query, no scheme at all), and two servers never
collide, since namespaces differ. A template is written the same way
(`toolscout://files/file:///{path}`), so a client that fills in its variables gets a gateway
URI. The server's URI is also accepted as it is when exactly one server lists it, so that a
resource link in a tool result, or a tool's `_meta` that names a resource, can be read.

Read results and `notifications/resources/updated` carry gateway URIs; URIs inside tool
results and prompt messages are content, and pass through as the server wrote them.

A client's subscription is one subscription of the gateway to the server, made for its first
subscriber and ended with its last, made again when the server reconnects. An update reaches
the sessions subscribed to that URI, or to a URI it extends (a sub-resource).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

from toolscout.catalog.tool import Tool
from toolscout.gateway.listing import list_all, stand_in
from toolscout.gateway.tools import shown
from toolscout.gateway.upstream import Upstream
from toolscout.protocol.policy import Phase, PolicyCheck

logger = logging.getLogger("toolscout.gateway")

SCHEME = "toolscout"
"""The scheme of the gateway's resource URIs."""
_PREFIX = f"{SCHEME}://"


def gateway_uri(namespace: str, uri: str) -> str:
    """A server's resource URI (or URI template) as the gateway's clients see it."""
    return f"{_PREFIX}{namespace}/{uri}"


def split_gateway_uri(uri: str) -> tuple[str, str] | None:
    """`(namespace, the server's URI)` of a gateway URI; None for any other URI."""
    if not uri.startswith(_PREFIX):
        return None
    namespace, slash, original = uri[len(_PREFIX) :].partition("/")
    return (namespace, original) if slash and namespace else None


@dataclass(frozen=True)
class ResourceTarget:
    """What a client's URI points to: the server and its own URI, and what the filter is
    asked about for it."""

    upstream: Upstream
    uri: str
    stand_in: Tool | None

    async def allowed(self, policy: PolicyCheck, phase: Phase) -> bool:
        return self.stand_in is not None and await policy.allows(self.stand_in, phase)


@dataclass
class _Listing:
    """One upstream's resources and templates, as last listed."""

    resources: dict[str, tuple[types.Resource, Tool | None]] = field(default_factory=dict)
    """By the server's URI: the resource as clients see it, and its stand-in."""
    templates: dict[str, tuple[types.ResourceTemplate, Tool | None, UriTemplate | None]] = field(
        default_factory=dict
    )
    """By the server's URI template: as clients see it, its stand-in, and its parsed form
    (None when it does not parse)."""


class Resources:
    """The resources and templates of every upstream, and the clients' subscriptions."""

    def __init__(self) -> None:
        self._listed: dict[str, _Listing] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._subscribers: dict[tuple[str, str], set[str]] = {}

    async def refresh(self, upstream: Upstream, session: ClientSession) -> bool:
        """List the server's resources and templates again; whether what clients are shown
        changed. A list the server fails to give keeps what was listed before."""
        async with self._locks.setdefault(upstream.name, anyio.Lock()):
            before = self._listed.get(upstream.namespace, _Listing())
            capabilities = session.server_capabilities
            if capabilities is None or capabilities.resources is None:
                listing = _Listing()
            else:
                listing = _Listing(before.resources, before.templates)

                async def resources_page(
                    cursor: str | None,
                ) -> tuple[list[types.Resource], str | None]:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    result = await session.list_resources(params=params)
                    return result.resources, result.next_cursor

                async def templates_page(
                    cursor: str | None,
                ) -> tuple[list[types.ResourceTemplate], str | None]:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    result = await session.list_resource_templates(params=params)
                    return result.resource_templates, result.next_cursor

                resources = await list_all(upstream, "resources", resources_page, _uri)
                templates = await list_all(
                    upstream, "resource templates", templates_page, _uri_template
                )
                if resources is not None:
                    listing.resources = _resources(upstream, resources)
                if templates is not None:
                    listing.templates = _templates(upstream, templates)
            self._listed[upstream.namespace] = listing
            return _shown(before) != _shown(listing)

    def forget(self, upstream: Upstream) -> bool:
        """Drop a server's resources and templates (it was stopped); whether clients were
        shown any."""
        self._locks.pop(upstream.name, None)
        listing = self._listed.pop(upstream.namespace, None)
        return listing is not None and any(_shown(listing))

    async def listed(self, policy: PolicyCheck, namespaces: Iterable[str]) -> list[types.Resource]:
        """The resources of these servers the filter lets this request see, server by
        server."""
        return [
            resource
            for namespace in sorted(set(namespaces) & self._listed.keys())
            for resource, standing in self._listed[namespace].resources.values()
            if standing is not None and await policy.allows(standing, "active")
        ]

    async def listed_templates(
        self, policy: PolicyCheck, namespaces: Iterable[str]
    ) -> list[types.ResourceTemplate]:
        """The resource templates of these servers the filter lets this request see, server
        by server."""
        return [
            template
            for namespace in sorted(set(namespaces) & self._listed.keys())
            for template, standing, _ in self._listed[namespace].templates.values()
            if standing is not None and await policy.allows(standing, "active")
        ]

    def target(self, uri: str, upstreams: Mapping[str, Upstream]) -> ResourceTarget | None:
        """What a client's resource URI points to: a gateway URI of a known server, or a
        server's own URI that exactly one server lists; None otherwise.

        Args:
            upstreams: The upstreams by namespace.
        """
        split = split_gateway_uri(uri)
        if split is None:
            owners = [
                namespace
                for namespace, listing in self._listed.items()
                if uri in listing.resources and namespace in upstreams
            ]
            if len(owners) != 1:
                return None
            split = owners[0], uri
        namespace, original = split
        upstream = upstreams.get(namespace)
        if upstream is None:
            return None
        listing = self._listed.get(namespace, _Listing())
        if original in listing.resources:
            return ResourceTarget(upstream, original, listing.resources[original][1])
        for _, standing, parsed in listing.templates.values():
            if parsed is not None and parsed.match(original) is not None:
                return ResourceTarget(upstream, original, standing)
        return ResourceTarget(upstream, original, _unlisted(upstream, original))

    def template_target(self, uri: str, upstreams: Mapping[str, Upstream]) -> ResourceTarget | None:
        """What a completion's template reference (a gateway URI) points to."""
        split = split_gateway_uri(uri)
        upstream = upstreams.get(split[0]) if split is not None else None
        if split is None or upstream is None:
            return None
        listed = self._listed.get(split[0], _Listing()).templates.get(split[1])
        if listed is not None:
            return ResourceTarget(upstream, split[1], listed[1])
        return ResourceTarget(upstream, split[1], _unlisted(upstream, split[1]))

    # -- subscriptions -----------------------------------------------------------------

    def subscribe(self, upstream: Upstream, uri: str, session_id: str) -> bool:
        """Record a session's subscription; whether it is the first to that URI (the
        gateway must then subscribe to it at the server)."""
        sessions = self._subscribers.setdefault((upstream.name, uri), set())
        first = not sessions
        sessions.add(session_id)
        return first

    def unsubscribe(self, upstream: Upstream, uri: str, session_id: str) -> bool:
        """Forget a session's subscription; whether it was the last to that URI."""
        key = (upstream.name, uri)
        sessions = self._subscribers.get(key)
        if sessions is None or session_id not in sessions:
            return False
        sessions.discard(session_id)
        if sessions:
            return False
        del self._subscribers[key]
        return True

    def subscribers(self, upstream: Upstream, uri: str) -> set[str]:
        """The sessions an update of `uri` is for: subscribed to it, or to a URI it extends."""
        return {
            session_id
            for (name, subscribed), sessions in self._subscribers.items()
            if name == upstream.name and uri.startswith(subscribed)
            for session_id in sessions
        }

    def subscribed(self, upstream: Upstream) -> list[str]:
        """The URIs of the server someone is subscribed to."""
        return [uri for (name, uri) in self._subscribers if name == upstream.name]

    def end_subscriptions(self, upstream: Upstream) -> None:
        """Forget every subscription to the server's resources (it left the config)."""
        for key in [key for key in self._subscribers if key[0] == upstream.name]:
            del self._subscribers[key]

    def drop_sessions(self, session_ids: Iterable[str]) -> list[tuple[str, str]]:
        """Forget the subscriptions of sessions that are gone; `(upstream name, URI)` of each
        subscription nobody holds any more."""
        gone = set(session_ids)
        ended: list[tuple[str, str]] = []
        for key, sessions in list(self._subscribers.items()):
            if sessions & gone:
                sessions -= gone
                if not sessions:
                    del self._subscribers[key]
                    ended.append(key)
        return ended


def exposed_contents(
    upstream: Upstream, result: types.ReadResourceResult
) -> types.ReadResourceResult:
    """A read's result with each content's URI a gateway URI."""
    contents = [
        content.model_copy(update={"uri": gateway_uri(upstream.namespace, content.uri)})
        for content in result.contents
    ]
    return result.model_copy(update={"contents": contents})


def _resources(
    upstream: Upstream, resources: list[types.Resource]
) -> dict[str, tuple[types.Resource, Tool | None]]:
    listed: dict[str, tuple[types.Resource, Tool | None]] = {}
    for resource in resources:
        if resource.uri in listed:
            logger.warning(
                "upstream %r: resource %s is listed twice; the first is kept",
                upstream.name,
                shown(resource.uri),
            )
            continue
        exposed = gateway_uri(upstream.namespace, resource.uri)
        listed[resource.uri] = (
            resource.model_copy(update={"uri": exposed}),
            stand_in(
                "resource",
                exposed=exposed,
                name=resource.name,
                upstream=upstream,
                description=resource.description or resource.title,
                metadata=_metadata(resource),
            ),
        )
    return listed


def _templates(
    upstream: Upstream, templates: list[types.ResourceTemplate]
) -> dict[str, tuple[types.ResourceTemplate, Tool | None, UriTemplate | None]]:
    listed: dict[str, tuple[types.ResourceTemplate, Tool | None, UriTemplate | None]] = {}
    for template in templates:
        if template.uri_template in listed:
            logger.warning(
                "upstream %r: resource template %s is listed twice; the first is kept",
                upstream.name,
                shown(template.uri_template),
            )
            continue
        try:
            parsed: UriTemplate | None = UriTemplate.parse(template.uri_template)
        except InvalidUriTemplate:
            parsed = None  # still listed: the client may know what to do with it
        exposed = gateway_uri(upstream.namespace, template.uri_template)
        listed[template.uri_template] = (
            template.model_copy(update={"uri_template": exposed}),
            stand_in(
                "resource_template",
                exposed=exposed,
                name=template.name,
                upstream=upstream,
                description=template.description or template.title,
                metadata=_metadata(template),
            ),
            parsed,
        )
    return listed


def _unlisted(upstream: Upstream, uri: str) -> Tool | None:
    """The stand-in of a URI the server did not list and no template of it matches."""
    return stand_in(
        "resource",
        exposed=gateway_uri(upstream.namespace, uri),
        name=uri,
        upstream=upstream,
        description=None,
        metadata={"uri": uri},
    )


def _metadata(item: types.Resource | types.ResourceTemplate) -> dict[str, object]:
    """The keys beyond name and description, under their wire names: the server's URI
    (or template), MIME type, annotations..."""
    dumped = item.model_dump(by_alias=True, mode="json", exclude_none=True)
    for key in ("name", "description"):
        dumped.pop(key, None)
    return dumped


def _shown(listing: _Listing) -> tuple[list[types.Resource], list[types.ResourceTemplate]]:
    return (
        [resource for resource, _ in listing.resources.values()],
        [template for template, _, _ in listing.templates.values()],
    )


def _uri(resource: types.Resource) -> str:
    return resource.uri


def _uri_template(template: types.ResourceTemplate) -> str:
    return template.uri_template
