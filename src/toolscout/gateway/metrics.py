"""What an operator watches on a gateway served over HTTP: `/healthz` and Prometheus `/metrics`.

`/healthz` answers `200` with `{"status": "ok" | "degraded" | "starting", "upstreams":
{...}}` while the gateway serves (`degraded`: a server is not connected); `/metrics` is the
Prometheus text format:

| metric | labels | what |
|:--|:--|:--|
| `toolscout_upstream_state` | `server`, `state` | 1 for the state each server is in |
| `toolscout_upstream_tools` | `server` | tools the gateway offers from it |
| `toolscout_upstream_connections_total` | `server` | connections made (more than 1: restarts) |
| `toolscout_tool_calls_total` | `server` | calls of its tools, by name or through `call_tool` |
| `toolscout_tool_call_errors_total` | `server` | those answered with an error |
| `toolscout_tool_call_seconds` | `server` | a histogram of their latency |
| `toolscout_search_seconds` | | a histogram of `search_tools`'s latency |
| `toolscout_tool_list_requests_total` | | tool lists sent |
| `toolscout_tool_tokens_sent_total` | | tokens of the tool lists and meta-tool results sent |
| `toolscout_tool_tokens_without_search_total` | | tokens every tool in every list would cost |
| `toolscout_tool_tokens_saved` | | the difference |

Both sit behind the same authentication as the MCP endpoint. Token counts start again when
`tool_search` is reloaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, get_args

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Receive, Scope, Send

from toolscout.gateway.upstream import UpstreamState

if TYPE_CHECKING:
    from toolscout.gateway.gateway import Gateway

HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
#: The `server` label of a call to a tool no server's namespace names.
_NO_SERVER = "unknown"
#: Seconds: a call through the gateway is milliseconds, an upstream's work up to minutes.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)


class GatewayMetrics:
    """The gateway's counters and histograms, in a registry of its own (so that several
    gateways in one process never mix), and what they read from the gateway when scraped."""

    def __init__(self, gateway: Gateway) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self._calls = Counter(
            "toolscout_tool_calls", "Calls of upstream tools.", ["server"], registry=self.registry
        )
        self._errors = Counter(
            "toolscout_tool_call_errors",
            "Calls of upstream tools answered with an error.",
            ["server"],
            registry=self.registry,
        )
        self._call_seconds = Histogram(
            "toolscout_tool_call_seconds",
            "Seconds a call of an upstream tool took, through the gateway.",
            ["server"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self._search_seconds = Histogram(
            "toolscout_search_seconds",
            "Seconds a search_tools call took.",
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_GatewayCollector(gateway))
        self._gateway = gateway

    def observe_call(self, tool_id: str, seconds: float, *, error: bool) -> None:
        """Count a call of the tool `tool_id` that took `seconds`."""
        upstream = self._gateway.upstream_of(tool_id)
        server = upstream.name if upstream is not None else _NO_SERVER
        self._calls.labels(server).inc()
        if error:
            self._errors.labels(server).inc()
        self._call_seconds.labels(server).observe(seconds)

    def observe_search(self, seconds: float) -> None:
        self._search_seconds.observe(seconds)

    def render(self) -> bytes:
        """The Prometheus text format of every metric."""
        return generate_latest(self.registry)

    def health(self) -> dict[str, Any]:
        """What `/healthz` answers."""
        statuses = [upstream.status for upstream in self._gateway.upstreams.values()]
        if any(status.state == "starting" for status in statuses):
            overall = "starting"
        elif all(status.state in ("connected", "skipped") for status in statuses):
            overall = "ok"
        else:
            overall = "degraded"
        return {
            "status": overall,
            "upstreams": {
                status.name: {"state": status.state, "tools": status.tools, "error": status.error}
                for status in statuses
            },
        }


class _GatewayCollector(Collector):
    """What is read from the gateway at each scrape: the upstreams as they are now (servers
    added or removed by a reload included), and the token counts."""

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def collect(self) -> Iterator[Metric]:
        states = GaugeMetricFamily(
            "toolscout_upstream_state",
            "1 for the state each upstream server is in.",
            labels=["server", "state"],
        )
        tools = GaugeMetricFamily(
            "toolscout_upstream_tools", "Tools offered from each upstream.", labels=["server"]
        )
        connections = CounterMetricFamily(
            "toolscout_upstream_connections",
            "Connections made to each upstream; more than one means it was restarted.",
            labels=["server"],
        )
        for upstream in list(self._gateway.upstreams.values()):
            status = upstream.status
            for state in get_args(UpstreamState):
                states.add_metric([status.name, state], 1.0 if status.state == state else 0.0)
            tools.add_metric([status.name], status.tools)
            connections.add_metric([status.name], status.connections)
        yield from (states, tools, connections)
        stats = self._gateway.search.stats()
        sent = stats.tool_tokens + stats.result_tokens
        yield CounterMetricFamily(
            "toolscout_tool_list_requests", "Tool lists sent to clients.", value=stats.requests
        )
        yield CounterMetricFamily(
            "toolscout_tool_tokens_sent",
            "Tokens of the tool lists and meta-tool results sent.",
            value=sent,
        )
        yield CounterMetricFamily(
            "toolscout_tool_tokens_without_search",
            "Tokens the same tool lists would cost with every tool in each.",
            value=stats.tool_tokens_without_search,
        )
        yield GaugeMetricFamily(
            "toolscout_tool_tokens_saved",
            "Tokens tool search saved so far (without search, less sent).",
            value=stats.tool_tokens_without_search - sent,
        )


class OperationsRoutes:
    """ASGI middleware: `/healthz` and `/metrics` answered from the gateway, every other
    path passed on to the MCP app."""

    def __init__(self, app: ASGIApp, metrics: GatewayMetrics) -> None:
        self._app = app
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path") if scope["type"] == "http" else None
        if path == HEALTH_PATH:
            body = json.dumps(self._metrics.health()).encode()
            await _respond(send, body, "application/json")
        elif path == METRICS_PATH:
            await _respond(send, self._metrics.render(), CONTENT_TYPE_LATEST)
        else:
            await self._app(scope, receive, send)


async def _respond(send: Send, body: bytes, content_type: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
