"""The dashboard attached to a gateway running in the same process: its upstreams' state,
its sessions' discoveries and the tokens it has sent."""

from __future__ import annotations

from toolscout.dashboard.views import GatewayView, LiveTokens, SessionView, UpstreamView
from toolscout.gateway.gateway import Gateway
from toolscout.gateway.server import GatewayServer

#: Sessions listed, the most recent first.
SESSIONS_SHOWN = 50


class RunningGateway:
    """What the dashboard shows of `gateway`, served by `server`.

    Reading a session's discovered tools goes through the gateway's store, and counts as an
    access to the session (its time to live starts again), as a request of its client would.
    """

    def __init__(self, gateway: Gateway, server: GatewayServer) -> None:
        self.gateway = gateway
        self.server = server

    def view(self) -> GatewayView:
        upstreams = [
            UpstreamView(
                name=upstream.name,
                namespace=status.namespace,
                state=status.state,
                tools=status.tools,
                error=status.error,
                connections=status.connections,
            )
            for upstream in self.gateway.upstreams.values()
            for status in [upstream.status]
        ]
        store = self.gateway.search.store
        sessions = [
            SessionView(id=session, discovered=store.load(session) if store else [])
            for session in self.server.session_ids()[:SESSIONS_SHOWN]
        ]
        return GatewayView(upstreams=upstreams, sessions=sessions, mcp_url=self.server.url)

    def live_tokens(self) -> LiveTokens:
        stats = self.gateway.search.stats()
        return LiveTokens(
            requests=stats.requests,
            per_request=stats.per_request,
            per_request_without_search=stats.per_request_without_search,
            saving=stats.saving,
        )
