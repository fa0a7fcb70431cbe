"""What passes through besides tools, with the upstreams people have and while things change:
the library and asking servers over streamable HTTP and the deprecated HTTP+SSE transport; a
server that restarts (subscriptions and log level made again); a config reloaded under a
connected client; cancellation of a read, and a client's roots that change.

The servers are real processes; the gateway runs in this process (or as `toolscout serve`
for the reload), with a real MCP client on the session-based revisions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.gateway.conftest import (
    GatewayProcess,
    http_client,
    http_server,
    run,
    server,
    write_config,
)
from tests.gateway.test_lifecycle import FAST_RESTART
from tests.gateway.test_passthrough import (
    DUNE,
    Inbox,
    call,
    roots,
)
from toolscout.gateway import Gateway, GatewayConfig, GatewayServer

#: Seconds a scenario may take: it starts servers, and over HTTP a gateway too.
LIMIT = 90.0


@asynccontextmanager
async def serving(servers: dict[str, Any], **options: Any) -> AsyncIterator[tuple[Gateway, Client]]:
    """A gateway in this process over these servers, and a client session with it that
    speaks the session-based revisions (as Claude Desktop does); `options` go to `Client`."""
    config = GatewayConfig.model_validate({"servers": servers, "gateway": FAST_RESTART})
    gateway = Gateway(config)
    front = GatewayServer(gateway, "stdio")
    async with gateway.running():
        await gateway.settled()
        async with Client(front.server, mode="legacy", **options) as client:
            yield gateway, client


@contextmanager
def upstream(name: str, transport: str) -> Iterator[dict[str, Any]]:
    """The config entry of a test server run over `stdio`, `http` or `sse`."""
    if transport == "stdio":
        yield server(name)
        return
    with http_server(name, f"--{transport}", "{port}") as port:
        if transport == "sse":
            yield {"type": "sse", "url": f"http://127.0.0.1:{port}/sse"}
        else:
            yield {"url": f"http://127.0.0.1:{port}/mcp"}


async def set_level(client: Client, level: types.LoggingLevel) -> None:
    request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
    await client.session.send_request(request, types.EmptyResult)


class TestRoots:
    def test_a_client_s_roots_change_reaches_the_servers(self) -> None:
        async def scenario() -> str:
            async with serving({"asking": server("asking")}, list_roots_callback=roots) as (
                _,
                client,
            ):
                await client.session.send_notification(types.RootsListChangedNotification())
                changes = "0"
                with anyio.fail_after(30):
                    while changes == "0":
                        changes = await call(client, "asking__roots_changes")
                return changes

        assert run(scenario, limit=LIMIT) == "1"


class TestReload:
    def test_servers_added_changed_and_removed_bring_their_prompts_and_resources(
        self, tmp_path: Path
    ) -> None:
        """A connected client sees a server's prompts and resources arrive and leave with
        it, and its subscription to a server that changed is made again."""
        config = write_config(tmp_path, {"library": server("library")})
        gateway = GatewayProcess(config, "--port", "0")
        try:
            url = gateway.url(limit=LIMIT)

            async def prompts(client: Client) -> list[str]:
                return [prompt.name for prompt in (await client.list_prompts()).prompts]

            async def scenario() -> dict[str, Any]:
                seen: dict[str, Any] = {}
                inbox = Inbox()
                async with http_client(url, None, message_handler=inbox) as client:
                    await client.subscribe_resource(DUNE)
                    seen["before"] = await prompts(client)
                    changed = server("library", tags=["books"])
                    write_config(tmp_path, {"library": changed, "shelf": server("library")})
                    with anyio.fail_after(30):
                        while len(await prompts(client)) < 2:
                            await inbox.wait_for(types.PromptListChangedNotification, limit=30)
                    seen["added"] = await prompts(client)
                    await call(client, "library__revise_book", title="dune", text="Spice.")
                    seen["updated"] = (
                        await inbox.wait_for(types.ResourceUpdatedNotification, limit=30)
                    ).params.uri
                    write_config(tmp_path, {"shelf": server("library")})
                    with anyio.fail_after(30):
                        while "library__summarize" in await prompts(client):
                            await inbox.wait_for(types.PromptListChangedNotification, limit=30)
                    seen["removed"] = await prompts(client)
                    resources = (await client.list_resources()).resources
                    seen["resources"] = sorted({r.uri.split("/")[2] for r in resources})
                    with pytest.raises(MCPError) as raised:
                        await client.read_resource(DUNE)
                    seen["read"] = raised.value.message
                return seen

            seen = run(scenario, limit=LIMIT)
        finally:
            gateway.stop()
        assert seen["before"] == ["library__summarize"]
        assert seen["added"] == ["library__summarize", "shelf__summarize"]
        assert seen["updated"] == DUNE
        assert seen["removed"] == ["shelf__summarize"]
        assert seen["resources"] == ["shelf"]
        assert seen["read"] == f"Resource not found: {DUNE!r}"
