"""What passes through besides tools, with the upstreams people have and while things change:
the library and asking servers over streamable HTTP, the deprecated HTTP+SSE transport and
in the 2026-07-28 revision alone (changes on `subscriptions/listen`, log levels asked per
request, `input_required` instead of requests to the client); a server that restarts
(subscriptions and log level made again); a config reloaded under a connected client;
cancellation of a read, and a client's roots that change.

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
    stdio_client,
    write_config,
)
from tests.gateway.test_lifecycle import FAST_RESTART, until
from tests.gateway.test_passthrough import (
    DUNE,
    Inbox,
    call,
    elicit,
    roots,
    sampling_client,
)
from toolscout.gateway import Gateway, GatewayConfig, GatewayServer

#: Seconds a scenario may take: it starts servers, and over HTTP a gateway too. It is the
#: one bound of each test, so its waits for a notification or a state have none of their own.
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
    """The config entry of a test server run over `stdio`, `http`, `sse`, or `modern`
    (streamable HTTP in the 2026-07-28 revision alone)."""
    if transport == "stdio":
        yield server(name)
        return
    options = ["--http", "{port}", "--modern-only"] if transport == "modern" else []
    with http_server(name, *(options or [f"--{transport}", "{port}"])) as port:
        if transport == "sse":
            yield {"type": "sse", "url": f"http://127.0.0.1:{port}/sse"}
        else:
            yield {"url": f"http://127.0.0.1:{port}/mcp"}


async def set_level(client: Client, level: types.LoggingLevel) -> None:
    request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
    await client.session.send_request(request, types.EmptyResult)


class TestUpstreamTransports:
    """Everything the library and asking servers offer, with them behind each transport."""

    @pytest.mark.parametrize("transport", ["http", "sse", "modern"])
    def test_the_library_s_prompts_resources_and_notifications_pass(self, transport: str) -> None:
        async def scenario() -> dict[str, Any]:
            seen: dict[str, Any] = {}
            inbox = Inbox()
            logged: list[tuple[str, Any]] = []

            async def on_log(params: types.LoggingMessageNotificationParams) -> None:
                logged.append((params.level, params.data))

            with upstream("library", transport) as library:
                async with serving(
                    {"library": library}, message_handler=inbox, logging_callback=on_log
                ) as (_, client):
                    seen["capabilities"] = client.server_capabilities
                    await set_level(client, "warning")
                    seen["prompts"] = [p.name for p in (await client.list_prompts()).prompts]
                    seen["prompt"] = await client.get_prompt(
                        "library__summarize", {"title": "dune"}
                    )
                    seen["completed"] = (
                        await client.complete(
                            types.PromptReference(name="library__summarize"),
                            {"name": "style", "value": "l"},
                        )
                    ).completion.values
                    seen["resources"] = [r.uri for r in (await client.list_resources()).resources]
                    templates = await client.list_resource_templates()
                    seen["templates"] = [t.uri_template for t in templates.resource_templates]
                    seen["read"] = await client.read_resource(
                        "toolscout://library/library://books/emma"
                    )
                    await client.subscribe_resource(DUNE)
                    await call(client, "library__log", message="routine", level="info")
                    await call(client, "library__log", message="trouble", level="error")
                    await call(client, "library__revise_book", title="dune", text="Spice.")
                    seen["updated"] = (
                        await inbox.wait_for(types.ResourceUpdatedNotification, limit=LIMIT)
                    ).params.uri
                    await call(client, "library__add_book", title="ubik", text="Time runs back.")
                    await inbox.wait_for(types.ResourceListChangedNotification, limit=LIMIT)
                    await call(client, "library__add_prompt", name="quiz")
                    await inbox.wait_for(types.PromptListChangedNotification, limit=LIMIT)
                    seen["books"] = [r.uri for r in (await client.list_resources()).resources]
                    seen["all prompts"] = [p.name for p in (await client.list_prompts()).prompts]
                    seen["level"] = await call(client, "library__log_level")
                    while ("error", "trouble") not in logged:
                        await anyio.sleep(0.05)
                    seen["logged"] = logged
            return seen

        seen = run(scenario, limit=LIMIT)
        capabilities = seen["capabilities"]
        assert capabilities.prompts is not None and capabilities.completions is not None
        assert capabilities.resources is not None and capabilities.resources.subscribe
        assert capabilities.logging is not None
        assert seen["prompts"] == ["library__summarize"]
        assert seen["prompt"].messages[0].content.text == "Summarize dune, short."
        assert seen["completed"] == ["long", "limerick"]
        assert DUNE in seen["resources"]
        assert seen["templates"] == ["toolscout://library/library://books/{title}"]
        assert seen["read"].contents == [
            types.TextResourceContents(
                uri="toolscout://library/library://books/emma", text="A matchmaker in Highbury."
            )
        ]
        assert seen["updated"] == DUNE
        assert "toolscout://library/library://books/ubik" in seen["books"]
        assert seen["all prompts"] == ["library__summarize", "library__quiz"]
        # A server of the 2026-07-28 revision is not set a level: each call asks for its own.
        assert seen["level"] == ("none" if transport == "modern" else "warning")
        assert seen["logged"] == [("error", "trouble")]

    @pytest.mark.parametrize("transport", ["http", "sse", "modern"])
    def test_the_asking_server_s_requests_reach_the_client(self, transport: str) -> None:
        """On the 2026-07-28 revision, as what its `input_required` results ask for."""

        async def scenario() -> list[str]:
            with upstream("asking", transport) as asking:
                async with serving(
                    {"asking": asking},
                    sampling_callback=sampling_client("claude", []),
                    elicitation_callback=elicit,
                    list_roots_callback=roots,
                ) as (_, client):
                    return [
                        await call(client, "asking__ask_model", question="why?", related="yes"),
                        await call(client, "asking__ask_model", question="how?", related="no"),
                        await call(client, "asking__ask_user", question="colour?"),
                        await call(client, "asking__roots"),
                        _text(await client.get_prompt("asking__greeting")),
                    ]

        sampled, sampled_unrelated, elicited, listed, greeting = run(scenario, limit=LIMIT)
        # The client's progress on the server's request reaches the server (the 2026-07-28
        # revision has no progress on what a result asks for).
        progress = "" if transport == "modern" else " (progress [0.5])"
        assert sampled == f"claude: claude heard 'why?'{progress}"
        assert sampled_unrelated == f"claude: claude heard 'how?'{progress}"
        assert elicited == "accept: blue, to colour?"
        assert listed == "file:///work/project"
        assert greeting == "Hello, blue, to your name?."

    def test_what_a_2026_server_asks_reaches_a_2026_client(self, tmp_path: Path) -> None:
        """Both of the 2026-07-28 revision: the server's `input_required` becomes the
        gateway's, to the client of `toolscout serve` over stdio."""

        async def scenario() -> tuple[str, list[str]]:
            with upstream("asking", "modern") as asking:
                config = write_config(tmp_path, {"asking": asking})
                async with stdio_client(
                    config,
                    sampling_callback=sampling_client("claude", []),
                    elicitation_callback=elicit,
                    list_roots_callback=roots,
                ) as client:
                    return client.protocol_version, [
                        await call(client, "asking__ask_model", question="why?", related="yes"),
                        await call(client, "asking__ask_user", question="colour?"),
                        await call(client, "asking__roots"),
                        _text(await client.get_prompt("asking__greeting")),
                    ]

        version, answers = run(scenario, limit=LIMIT)
        assert version == "2026-07-28"
        assert answers == [
            "claude: claude heard 'why?'",
            "accept: blue, to colour?",
            "file:///work/project",
            "Hello, blue, to your name?.",
        ]

    def test_what_a_2026_server_asks_is_refused_when_the_client_cannot_give_it(self) -> None:
        async def scenario() -> tuple[str, str]:
            with upstream("asking", "modern") as asking:
                async with serving({"asking": asking}) as (_, client):
                    elicited = await call(client, "asking__ask_user", question="colour?")
                    with pytest.raises(MCPError) as raised:
                        await client.get_prompt("asking__greeting")
                    return elicited, raised.value.message

        elicited, refused = run(scenario, limit=LIMIT)
        why = (
            "The gateway did not pass this elicitation/create request on to a client: the "
            "client did not declare the elicitation capability for form mode."
        )
        assert elicited == (
            f"The server 'asking' needs input from the client to run 'ask_user', and did not "
            f"get it: {why}"
        )
        assert refused == (
            "The server 'asking' needs input from the client to answer for the prompt "
            f"'greeting', and did not get it: {why}"
        )


class TestRestart:
    def test_a_server_that_restarts_is_subscribed_and_set_to_the_level_again(self) -> None:
        async def scenario() -> tuple[str, str, str]:
            inbox = Inbox()
            async with serving({"library": server("library")}, message_handler=inbox) as (
                gateway,
                client,
            ):
                await client.subscribe_resource(DUNE)
                await set_level(client, "error")
                crashed = await call(client, "library__crash")
                library = gateway.upstreams["library"]
                await until(lambda: library.status.connections == 2, limit=LIMIT)
                subscriptions = await call(client, "library__subscriptions")
                level = await call(client, "library__log_level")
                await call(client, "library__revise_book", title="dune", text="Spice.")
                updated = await inbox.wait_for(types.ResourceUpdatedNotification, limit=LIMIT)
                assert "disconnected during the call to 'crash'" in crashed
                return subscriptions, level, updated.params.uri

        assert run(scenario, limit=LIMIT) == ("library://books/dune", "error", DUNE)


class TestCancellation:
    def test_a_client_that_gives_up_on_a_read_cancels_it_at_the_server(self) -> None:
        async def scenario() -> str:
            async with serving({"library": server("library")}) as (_, client):
                reading = anyio.CancelScope()

                async def on_progress(
                    value: float, total: float | None, message: str | None
                ) -> None:
                    reading.cancel()  # the read is at the server

                request = types.ReadResourceRequest(
                    params=types.ReadResourceRequestParams(uri="toolscout://library/library://slow")
                )
                with reading:
                    await client.session.send_request(
                        request, types.ReadResourceResult, progress_callback=on_progress
                    )
                cancelled = ""
                while not cancelled:
                    cancelled = await call(client, "library__cancelled")
                return cancelled

        assert run(scenario, limit=LIMIT) == "library://slow"


class TestRoots:
    def test_a_client_s_roots_change_reaches_the_servers(self) -> None:
        async def scenario() -> str:
            async with serving({"asking": server("asking")}, list_roots_callback=roots) as (
                _,
                client,
            ):
                await client.session.send_notification(types.RootsListChangedNotification())
                changes = "0"
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
                    while len(await prompts(client)) < 2:
                        await inbox.wait_for(types.PromptListChangedNotification, limit=LIMIT)
                    seen["added"] = await prompts(client)
                    await call(client, "library__revise_book", title="dune", text="Spice.")
                    seen["updated"] = (
                        await inbox.wait_for(types.ResourceUpdatedNotification, limit=LIMIT)
                    ).params.uri
                    write_config(tmp_path, {"shelf": server("library")})
                    while "library__summarize" in await prompts(client):
                        await inbox.wait_for(types.PromptListChangedNotification, limit=LIMIT)
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


def _text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent)
    return content.text
