"""`Gateway`: every upstream's tools in one catalog, searched and called through `ToolSearch`.

The gateway owns the catalog, the `ToolSearch` processor over it and one `Upstream` per
server. Upstream tools enter the catalog as tools whose handler relays the call to their
server; `toolscout.gateway.server` puts the MCP face on it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import NAMESPACE_SEPARATOR
from toolscout.gateway.config import GatewayConfig, Transport, UpstreamSettings, namespace_of
from toolscout.gateway.itself import marker_for_children, runs_this_gateway
from toolscout.gateway.metrics import GatewayMetrics
from toolscout.gateway.passthrough import Passthrough
from toolscout.gateway.relay import Relay
from toolscout.gateway.tools import offered_tools
from toolscout.gateway.upstream import StatusCallback, Upstream
from toolscout.protocol.activation import Activation, AutoActivation
from toolscout.protocol.policy import ToolPolicy
from toolscout.protocol.processor import REQUEST_CONTEXT, ToolSearch
from toolscout.state.base import StateStore

logger = logging.getLogger("toolscout.gateway")
ACTIVATION_LOGGER = "toolscout.gateway.activation"
"""Where `enabled: auto` decisions are logged: at start, and whenever search turns on or off."""
_activation_logger = logging.getLogger(ACTIVATION_LOGGER)


@dataclass(frozen=True)
class GatewayRequest:
    """Who is asking, handed to the filter as the request context: `filter(tool, request,
    phase)`.

    Decide rights on `identity`: it is the name of the token the request was authenticated
    with, which the caller cannot choose. Headers are whatever the caller chose to send.
    """

    session_id: str | None
    """The MCP session: its discoveries are kept under this id. None when the client sent
    none (a stateless request without `Mcp-Session-Id`). A session is bound to the identity
    that opened it: another identity cannot use it."""
    transport: Transport
    headers: Mapping[str, str] = field(default_factory=dict)
    """The HTTP request's headers, `Authorization` left out; empty over stdio."""
    identity: str | None = None
    """The name of the token that authenticated the request (`alice` for the tokens file's
    line `alice: <token>`); None when the gateway has no tokens (stdio, or HTTP on loopback
    without `gateway.auth`)."""
    report_progress: ProgressFnT | None = field(default=None, repr=False, compare=False)
    """Sends the upstream's progress notifications on to the client."""


class Relayed:
    """An upstream's result, carried untouched through `ToolSearch` to the client.

    `ToolSearch` also writes a handler's result as text for its own use; this says what the
    result is instead of serializing what may be megabytes of images.
    """

    __slots__ = ("result",)

    def __init__(self, result: types.CallToolResult) -> None:
        self.result = result

    def __str__(self) -> str:
        count = len(self.result.content)
        kind = "error" if self.result.is_error else "result"
        return f"[upstream {kind}: {count} content block{'' if count == 1 else 's'}]"


@dataclass(frozen=True)
class _Relay:
    """The handler of one upstream tool in the catalog. Two relays to the same tool of the
    same upstream are equal, so a new listing that leaves a tool as it was leaves its catalog
    entry alone (`Catalog.sync` compares handlers too)."""

    upstream: Upstream
    name: str
    relay: Relay

    async def __call__(self, /, **arguments: Any) -> Relayed:
        request = REQUEST_CONTEXT.get()
        progress = request.report_progress if isinstance(request, GatewayRequest) else None
        with self.relay.on_behalf(self.upstream):
            result = await self.upstream.call(self.name, arguments, progress=progress)
        return Relayed(result)


ListChanged = Callable[[], Awaitable[None]]


class Gateway:
    """Many MCP servers behind one, with tool search.

    Args:
        config: The configuration, such as `load_config(path, GatewayConfig)` reads.
        filter: `filter(tool, request, phase) -> bool` (`toolscout.protocol.policy`), asked
            with a `GatewayRequest`: a tool it denies is neither listed, searchable nor
            callable.
        on_status: Told of every change of an upstream's state (the progress display).
        errlog: Where stdio servers' stderr goes (the gateway's stderr by default).
        config_path: The file `config` was read from: an entry that runs `toolscout serve`
            with this file is this gateway itself, and is skipped.

    `async with gateway.running():` starts every upstream at once, and
    `await gateway.settled()` waits until each has connected or failed once;
    `await gateway.reconfigure(config)` brings it to a changed config while it runs.
    Prompts, resources and the rest of MCP pass through `gateway.passthrough`.
    """

    def __init__(
        self,
        config: GatewayConfig,
        *,
        filter: ToolPolicy | None = None,
        on_status: StatusCallback | None = None,
        errlog: TextIO | None = None,
        config_path: Path | None = None,
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.catalog = Catalog()
        self.search = _tool_search(self.catalog, config, filter=filter)
        if config.tool_search.enabled is False:
            logger.warning(
                "tool search is off (tool_search.enabled: false): every upstream tool is listed"
            )
        self._auto: AutoActivation | None = None
        self._search_on = False
        activation = self._read_enabled()
        if activation is not None:
            _activation_logger.info(
                "%s; decided again whenever the tools change", activation.summary()
            )
        self.metrics = GatewayMetrics(self)
        self._always = frozenset(config.tool_search.always_available)
        self._definitions: dict[str, types.Tool] = {}
        self._listed: dict[str, list[types.Tool]] = {}
        self._listeners: list[ListChanged] = []
        self._on_status = on_status
        self._errlog = errlog
        self._group: anyio.abc.TaskGroup | None = None
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._stopped: dict[str, anyio.Event] = {}
        self.passthrough = Passthrough(config, lambda: self.search, lambda: self.upstreams)
        self.upstreams = {
            name: self._upstream(name, settings)
            for name, settings in self._wanted_upstreams(config).items()
        }

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Gateway]:
        """Start every upstream at once; stop them, and close the store, on exit."""
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                await group.start(self.passthrough.relay.rounds.run)
                for upstream in self.upstreams.values():
                    self._start(upstream)
                try:
                    yield self
                finally:
                    self._group = None
                    group.cancel_scope.cancel()
        finally:
            close = getattr(self.search.store, "close", None)
            if callable(close):
                close()

    async def reconfigure(self, config: GatewayConfig) -> list[str]:
        """Bring the running gateway to `config`: servers added are started, servers removed
        are stopped and their tools leave the catalog, servers changed are restarted, and a
        changed `tool_search` applies from the next request. Client sessions stay open, and
        are told that their tool list changed. Returns one sentence per change.

        The `gateway:` block (transport, address, tokens, timeouts) is read at start only.

        Raises:
            ToolSearchConfigError: the new `tool_search` cannot be applied; nothing changed.
        """
        changes: list[str] = []
        search = None
        if config.tool_search != self.config.tool_search:
            same_store = config.tool_search.store == self.config.tool_search.store
            store = self.search.store if same_store else config.tool_search.store.build()
            search = _tool_search(self.catalog, config, filter=self.search.filter, store=store)
        if config.gateway != self.config.gateway:
            logger.warning("gateway settings changed in the config: they apply at restart")
            config = config.model_copy(update={"gateway": self.config.gateway})
        wanted = self._wanted_upstreams(config)
        running = dict(self.upstreams)
        for name, upstream in running.items():
            if wanted.get(name) != upstream.settings:
                await self._stop(name, removed=name not in wanted)
                changes.append(f"server {name!r} {'changed' if name in wanted else 'removed'}")
        if search is not None:
            old_store, self.search = self.search.store, search
            close = getattr(old_store, "close", None)
            if search.store is not old_store and callable(close):
                close()
            changes.append("tool_search settings applied")
        self.config = config
        self._always = frozenset(config.tool_search.always_available)
        if search is not None:
            was_on = self._search_on
            activation = self._read_enabled()
            if activation is not None and activation.on != was_on:
                _activation_logger.info("%s: %s", activation.summary(), _FLIPPED[activation.on])
        for name, settings in wanted.items():
            if name not in self.upstreams:
                if name not in running:
                    changes.append(f"server {name!r} added")
                self.upstreams[name] = upstream = self._upstream(name, settings)
                self._start(upstream)
        if search is not None:
            for name, definitions in list(self._listed.items()):
                await self._on_tools(self.upstreams[name], definitions, [], notify=False)
        if changes:
            for listener in self._listeners:
                await listener()
        return changes

    @property
    def search_on(self) -> bool:
        """Whether tool search is on now: `tool_search.enabled`, or with `auto` the decision
        for the catalog as it is (`activation`)."""
        return self._search_on

    def activation(self) -> Activation | None:
        """The `enabled: auto` decision for the catalog as it is now, with its figures;
        None unless `tool_search.enabled` is `auto`."""
        return self._auto.decide(self.catalog) if self._auto is not None else None

    async def settled(self) -> None:
        """Wait until every upstream has connected or failed once, at most
        `gateway.connect_timeout` (and a second); failed ones keep retrying."""
        with anyio.move_on_after(self.config.gateway.connect_timeout + 1):
            for upstream in self.upstreams.values():
                await upstream.settled.wait()

    def definition(self, tool_id: str) -> types.Tool | None:
        """The upstream's own definition of a catalog tool (its original name)."""
        return self._definitions.get(tool_id)

    def upstream_of(self, tool_id: str) -> Upstream | None:
        """The upstream whose namespace a tool id (`namespace__tool`) names."""
        namespace, separator, _ = tool_id.partition(NAMESPACE_SEPARATOR)
        if not separator:
            return None
        return next((u for u in self.upstreams.values() if u.namespace == namespace), None)

    def unavailable(self, tool_id: str) -> str | None:
        """What a call to `tool_id` answers when no tool has that id because its server is
        not connected (it never connected, or is skipped): the server's name, state, last
        error and when it is tried again. None when the server is connected, or when the id
        names no server."""
        upstream = self.upstream_of(tool_id)
        if upstream is None or upstream.status.state == "connected" or tool_id in self.catalog:
            return None
        return upstream.unavailable(tool_id.partition(NAMESPACE_SEPARATOR)[2])

    def on_list_changed(self, listener: ListChanged) -> None:
        """Be told when the tools every session is shown change (a pinned tool appears or
        goes, the first deferred tool arrives), to send `notifications/tools/list_changed`."""
        self._listeners.append(listener)

    def _wanted_upstreams(self, config: GatewayConfig) -> dict[str, UpstreamSettings]:
        """The servers of `config` to connect to: every one not disabled, and not this
        gateway itself."""
        wanted = {}
        for name, settings in config.upstreams().items():
            if runs_this_gateway(settings, self.config_path):
                logger.warning(
                    "server %r is skipped: it runs this gateway itself (toolscout serve with "
                    "this config), which would start itself again and again",
                    name,
                )
                continue
            wanted[name] = settings
        return wanted

    def _upstream(self, name: str, settings: UpstreamSettings) -> Upstream:
        serve = self.config.gateway
        return Upstream(
            name,
            settings,
            namespace=namespace_of(name, settings),
            on_tools=self._on_tools,
            call_timeout=serve.call_timeout,
            connect_timeout=serve.connect_timeout,
            max_result_size=serve.max_result_size,
            restart=serve.restart,
            on_status=self._on_status,
            errlog=self._errlog,
            environment=marker_for_children(self.config),
            oauth_dir=serve.oauth_dir,
            peer=self.passthrough,
        )

    def _start(self, upstream: Upstream) -> None:
        """Run an upstream's supervisor in its own cancel scope, so it can be stopped alone."""
        assert self._group is not None, "start upstreams inside running()"
        scope = anyio.CancelScope()
        stopped = anyio.Event()
        self._scopes[upstream.name] = scope
        self._stopped[upstream.name] = stopped

        async def supervise() -> None:
            try:
                with scope:
                    await upstream.run()
            finally:
                stopped.set()

        self._group.start_soon(supervise)

    async def _stop(self, name: str, *, removed: bool) -> None:
        """Stop an upstream (its process too) and take its tools, prompts and resources out
        of what clients are offered; `removed` when it left the config (rather than changed)."""
        upstream = self.upstreams.pop(name)
        scope, stopped = self._scopes.pop(name, None), self._stopped.pop(name, None)
        if scope is not None and stopped is not None:
            scope.cancel()
            await stopped.wait()
        self._listed.pop(name, None)
        report = self.catalog.sync([], namespace=upstream.namespace)
        for tool_id in report.removed:
            self._definitions.pop(tool_id, None)
        await self._follow_activation()
        await self.passthrough.stopped(upstream, removed=removed)

    async def _on_tools(
        self,
        upstream: Upstream,
        definitions: list[types.Tool],
        problems: list[str],
        *,
        notify: bool = True,
    ) -> int:
        if self.upstreams.get(upstream.name) is not upstream:
            return 0  # a listing that arrived as the server was being stopped
        self._listed[upstream.name] = definitions
        namespace = upstream.namespace
        prefix = namespace + NAMESPACE_SEPARATOR
        pinned = set(upstream.settings.pinned)
        pinned |= {entry.removeprefix(prefix) for entry in self._always if entry.startswith(prefix)}
        pinned |= {entry for entry in self._always if NAMESPACE_SEPARATOR not in entry}
        offered, skipped = offered_tools(
            definitions,
            namespace=namespace,
            settings=upstream.settings,
            pinned=frozenset(pinned),
            handler=lambda name: _Relay(upstream, name, self.passthrough.relay),
            deferred=self._search_on,
        )
        for problem in [*problems, *skipped]:
            logger.warning("upstream %r: %s", upstream.name, problem)
        before = self._visible()
        report = self.catalog.sync([entry.tool for entry in offered], namespace=namespace)
        for tool_id in report.removed:
            self._definitions.pop(tool_id, None)
        self._definitions.update({entry.tool.id: entry.definition for entry in offered})
        if report.added or report.replaced or report.removed:
            logger.info(
                "upstream %r: %d tools added, %d changed, %d removed, %d unchanged",
                upstream.name,
                len(report.added),
                len(report.replaced),
                len(report.removed),
                len(report.unchanged),
            )
        await self._follow_activation()
        if notify and self._visible() != before:
            for listener in self._listeners:
                await listener()
        return len(offered)

    def _read_enabled(self) -> Activation | None:
        """Set whether search is on from `tool_search.enabled` (and with `auto`, from its
        decision for the catalog as it is); the decision, with `auto`."""
        self._auto = _auto_activation(self.config)
        activation = self.activation()
        on = activation.on if activation is not None else self.config.tool_search.enabled
        self._search_on = on is True
        return activation

    async def _follow_activation(self) -> None:
        """With `enabled: auto`, decide again for the catalog as it is now; when the
        decision flips, offer every server's tools again, deferred or not, and log it."""
        activation = self.activation()
        if activation is None or activation.on == self._search_on:
            return
        self._search_on = activation.on  # first, so that offering again does not recurse
        _activation_logger.info("%s: %s", activation.summary(), _FLIPPED[activation.on])
        for name, definitions in list(self._listed.items()):
            await self._on_tools(self.upstreams[name], definitions, [], notify=False)

    def _visible(self) -> tuple[tuple[str, ...], bool]:
        """What every session's tool list depends on: the always-visible tools (as they are
        now) and whether there is anything to search."""
        always: list[str] = []
        deferred = False
        for tool in self.catalog:
            if tool.deferred:
                deferred = True
            else:
                always.append(f"{tool.id}:{tool.fingerprint}")
        return tuple(always), deferred


_FLIPPED = {
    True: "the tools are now searched (search_tools); only pinned ones are listed",
    False: "every tool is now listed, without search",
}


def _auto_activation(config: GatewayConfig) -> AutoActivation | None:
    """The `enabled: auto` rule of `config`, or None when search is simply on or off."""
    settings = config.tool_search
    return settings.auto_activation() if settings.enabled == "auto" else None


def _tool_search(
    catalog: Catalog,
    config: GatewayConfig,
    *,
    filter: ToolPolicy | None,
    store: StateStore | None = None,
) -> ToolSearch:
    """The `ToolSearch` a config's `tool_search` block describes, over the gateway's catalog
    (`always_available` is applied when tools are offered, since upstream tools come and go),
    with `store` or the one the block describes."""
    return config.tool_search.build(catalog, filter=filter, store=store, pinned=())
