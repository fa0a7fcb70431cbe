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
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import NAMESPACE_SEPARATOR
from toolscout.gateway.config import GatewayConfig, Transport, namespace_of
from toolscout.gateway.passthrough import Passthrough
from toolscout.gateway.relay import Relay
from toolscout.gateway.tools import offered_tools, sync_namespace
from toolscout.gateway.upstream import StatusCallback, Upstream
from toolscout.protocol.policy import ToolPolicy
from toolscout.protocol.processor import REQUEST_CONTEXT, ToolSearch

logger = logging.getLogger("toolscout.gateway")


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


class _Relay:
    """The handler of one upstream tool in the catalog."""

    def __init__(self, upstream: Upstream, name: str, relay: Relay) -> None:
        self._upstream = upstream
        self._name = name
        self._relay = relay

    async def __call__(self, /, **arguments: Any) -> Relayed:
        request = REQUEST_CONTEXT.get()
        progress = request.report_progress if isinstance(request, GatewayRequest) else None
        with self._relay.on_behalf(self._upstream):
            result = await self._upstream.call(self._name, arguments, progress=progress)
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

    `async with gateway.running():` starts every upstream at once, and
    `await gateway.settled()` waits until each has connected or failed once. Prompts,
    resources and the rest of MCP pass through `gateway.passthrough`.
    """

    def __init__(
        self,
        config: GatewayConfig,
        *,
        filter: ToolPolicy | None = None,
        on_status: StatusCallback | None = None,
        errlog: TextIO | None = None,
    ) -> None:
        self.config = config
        self.catalog = Catalog()
        settings = config.tool_search
        processor = settings.processor_config().model_copy(update={"pinned": ()})
        self.search = ToolSearch(
            self.catalog, processor, store=settings.store.build(), filter=filter
        )
        if not settings.enabled:
            logger.warning(
                "tool search is off (tool_search.enabled: false): every upstream tool is listed"
            )
        self._always = frozenset(settings.always_available)
        self._definitions: dict[str, types.Tool] = {}
        self._listeners: list[ListChanged] = []
        self.passthrough = Passthrough(config, self.search, lambda: self.upstreams)
        serve = config.gateway
        self.upstreams = {
            name: Upstream(
                name,
                upstream,
                namespace=namespace_of(name, upstream),
                on_tools=self._on_tools,
                call_timeout=serve.call_timeout,
                connect_timeout=serve.connect_timeout,
                max_result_size=serve.max_result_size,
                restart=serve.restart,
                on_status=on_status,
                errlog=errlog,
                peer=self.passthrough,
            )
            for name, upstream in config.upstreams().items()
        }

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Gateway]:
        """Start every upstream at once; stop them, and close the store, on exit."""
        try:
            async with anyio.create_task_group() as group:
                for upstream in self.upstreams.values():
                    group.start_soon(upstream.run)
                try:
                    yield self
                finally:
                    group.cancel_scope.cancel()
        finally:
            close = getattr(self.search.store, "close", None)
            if callable(close):
                close()

    async def settled(self) -> None:
        """Wait until every upstream has connected or failed once, at most
        `gateway.connect_timeout` (and a second); failed ones keep retrying."""
        with anyio.move_on_after(self.config.gateway.connect_timeout + 1):
            for upstream in self.upstreams.values():
                await upstream.settled.wait()

    def definition(self, tool_id: str) -> types.Tool | None:
        """The upstream's own definition of a catalog tool (its original name)."""
        return self._definitions.get(tool_id)

    def on_list_changed(self, listener: ListChanged) -> None:
        """Be told when the tools every session is shown change (a pinned tool appears or
        goes, the first deferred tool arrives), to send `notifications/tools/list_changed`."""
        self._listeners.append(listener)

    async def _on_tools(
        self, upstream: Upstream, definitions: list[types.Tool], problems: list[str]
    ) -> int:
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
            deferred=self.config.tool_search.enabled,
        )
        for problem in [*problems, *skipped]:
            logger.warning("upstream %r: %s", upstream.name, problem)
        before = self._visible()
        report = sync_namespace(self.catalog, namespace, [entry.tool for entry in offered])
        for tool_id in report.removed:
            self._definitions.pop(tool_id, None)
        self._definitions.update({entry.tool.id: entry.definition for entry in offered})
        if report.added or report.changed or report.removed:
            logger.info(
                "upstream %r: %d tools added, %d changed, %d removed, %d unchanged",
                upstream.name,
                len(report.added),
                len(report.changed),
                len(report.removed),
                report.unchanged,
            )
        if self._visible() != before:
            for listener in self._listeners:
                await listener()
        return report.tools

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
