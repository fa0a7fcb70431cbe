"""Everything MCP carries besides tools, through the gateway: prompts, resources, templates,
completions, subscriptions, list changes, logging, and the servers' requests to the client
(sampling, elicitation, roots), with real MCP clients over stdio and streamable HTTP.

`toolscout serve` runs in front of the library server (resources, prompts, completions,
logging) and the asking server (which asks its client), both over stdio, and of the asking
server again over streamable HTTP (`web`): a server's request sent on a call's own HTTP
stream can be told apart from another client's, one from a stdio server cannot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext, IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ResourceUpdated

from tests.gateway import conftest
from tests.gateway.conftest import (
    GatewayProcess,
    http_client,
    http_server,
    server,
    stdio_client,
    write_config,
)
from toolscout.catalog import Tool
from toolscout.gateway import (
    Gateway,
    GatewayConfig,
    GatewayServer,
    gateway_uri,
    split_gateway_uri,
)
from toolscout.protocol import Phase

Connect = Callable[..., AbstractAsyncContextManager[Client]]
DUNE = "toolscout://library/library://books/dune"
#: Seconds a scenario may take: over stdio, it starts a gateway and three servers.
LIMIT = 90.0
_ResultT = TypeVar("_ResultT")


def run(scenario: Callable[[], Awaitable[_ResultT]]) -> _ResultT:
    return conftest.run(scenario, limit=LIMIT)


@pytest.fixture(scope="module")
def web_url() -> Iterator[str]:
    """The asking server over streamable HTTP."""
    with http_server("asking", "--http", "{port}") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, web_url: str) -> Path:
    servers = {"library": server("library"), "asking": server("asking"), "web": {"url": web_url}}
    return write_config(tmp_path_factory.mktemp("passthrough"), servers)


@pytest.fixture(scope="module")
def http_url(config: Path) -> Iterator[str]:
    gateway = GatewayProcess(config, "--port", "0")
    try:
        yield gateway.url(limit=LIMIT)
    finally:
        gateway.stop()


@pytest.fixture
def connect_http(http_url: str) -> Connect:
    """Opens a client session with the one HTTP gateway of this module."""
    return lambda **options: http_client(http_url, None, **options)


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, config: Path) -> Connect:
    """Opens a client session over each transport in turn; over stdio with `initialize`,
    as Claude Desktop, Cursor and Claude Code connect."""
    if request.param == "stdio":
        return lambda **options: stdio_client(config, mode="legacy", **options)
    url = str(request.getfixturevalue("http_url"))
    return lambda **options: http_client(url, None, **options)


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def call(client: Client, name: str, /, **arguments: Any) -> str:
    """Find a tool, then call it through `call_tool`; its text."""
    await client.call_tool("search_tools", {"queries": [name]})
    return text(await client.call_tool("call_tool", {"name": name, "arguments": arguments}))


def prompt_text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent)
    return content.text


def answer(words: str, model: str = "test-model") -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=words), model=model
    )


class Inbox:
    """The notifications a client session receives, and a way to wait for one."""

    def __init__(self) -> None:
        self.messages: list[types.ServerNotification] = []
        self._arrived = anyio.Event()

    async def __call__(self, message: IncomingMessage) -> None:
        if not isinstance(message, Exception):
            self.messages.append(message)
            self._arrived.set()

    async def wait_for(self, kind: type[Any], limit: float = 10.0) -> Any:
        with anyio.fail_after(limit):
            while True:
                for message in self.messages:
                    if isinstance(message, kind):
                        self.messages.remove(message)
                        return message
                self._arrived = anyio.Event()
                await self._arrived.wait()


class TestNamespacing:
    @pytest.mark.parametrize(
        "uri",
        [
            "memo://insights",
            "file:///home/me/notes.txt",
            "urn:isbn:0451450523",
            "https://example.com/a?b=c#d",
            "relative/path",
            "toolscout://other/x://y",
            "library://books/{title}",
            "",
        ],
    )
    def test_a_server_s_uri_comes_back_whole(self, uri: str) -> None:
        exposed = gateway_uri("sqlite", uri)
        assert exposed == f"toolscout://sqlite/{uri}"
        assert split_gateway_uri(exposed) == ("sqlite", uri)

    @pytest.mark.parametrize(
        "uri", ["memo://insights", "toolscout://", "toolscout://notes", "toolscout:///x"]
    )
    def test_other_uris_are_not_the_gateway_s(self, uri: str) -> None:
        assert split_gateway_uri(uri) is None


class TestCapabilities:
    def test_what_the_upstreams_have_is_advertised(self, connect_http: Connect) -> None:
        async def scenario() -> types.ServerCapabilities:
            async with connect_http() as client:
                return client.server_capabilities

        capabilities = run(scenario)
        assert capabilities.prompts is not None and capabilities.prompts.list_changed
        assert capabilities.resources is not None
        assert capabilities.resources.subscribe and capabilities.resources.list_changed
        assert capabilities.completions is not None
        assert capabilities.logging is not None

    def test_a_gateway_of_tools_only_advertises_tools_only(self) -> None:
        async def scenario() -> types.ServerCapabilities:
            async with in_process({"notes": server("notes")}) as client:
                return client.server_capabilities

        capabilities = run(scenario)
        assert capabilities.tools is not None
        assert capabilities.prompts is None
        assert capabilities.resources is None
        assert capabilities.completions is None
        assert capabilities.logging is None


class TestPrompts:
    def test_prompts_are_named_like_tools_with_their_definitions(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> list[types.Prompt]:
            async with connect_http() as client:
                return (await client.list_prompts()).prompts

        prompts = {prompt.name: prompt for prompt in run(scenario)}
        summarize = prompts["library__summarize"]
        assert summarize.title == "Summarize a book"
        assert summarize.arguments is not None
        assert [(a.name, a.required) for a in summarize.arguments] == [
            ("title", True),
            ("style", None),
        ]

    def test_getting_one_passes_its_arguments(self, connect_http: Connect) -> None:
        async def scenario() -> types.GetPromptResult:
            async with connect_http() as client:
                return await client.get_prompt(
                    "library__summarize", {"title": "dune", "style": "long"}
                )

        result = run(scenario)
        assert result.description == "summarize of dune"
        assert result.messages[0].content == types.TextContent(
            type="text", text="Summarize dune, long."
        )

    @pytest.mark.parametrize("name", ["summarize", "library__nothing", "nowhere__summarize"])
    def test_an_unknown_prompt_is_an_error(self, connect_http: Connect, name: str) -> None:
        async def scenario() -> MCPError:
            async with connect_http() as client:
                with pytest.raises(MCPError) as raised:
                    await client.get_prompt(name, {"title": "dune"})
                return raised.value

        error = run(scenario)
        assert error.code == types.INVALID_PARAMS
        assert error.message == f"Unknown prompt: {name!r}"

    def test_its_arguments_are_completed_by_its_server(self, connect_http: Connect) -> None:
        async def scenario() -> list[str]:
            async with connect_http() as client:
                reference = types.PromptReference(name="library__summarize")
                result = await client.complete(reference, {"name": "style", "value": "l"})
                return result.completion.values

        assert run(scenario) == ["long", "limerick"]


class TestResources:
    def test_resources_and_templates_have_gateway_uris(self, connect_http: Connect) -> None:
        async def scenario() -> tuple[list[types.Resource], list[types.ResourceTemplate]]:
            async with connect_http() as client:
                return (
                    (await client.list_resources()).resources,
                    (await client.list_resource_templates()).resource_templates,
                )

        resources, templates = run(scenario)
        by_uri = {resource.uri: resource for resource in resources}
        assert by_uri[DUNE].name == "dune"
        assert by_uri[DUNE].description == "The book dune."
        assert by_uri["toolscout://library/library://cover.png"].mime_type == "image/png"
        assert [t.uri_template for t in templates] == [
            "toolscout://library/library://books/{title}"
        ]

    def test_a_read_carries_gateway_uris_and_the_server_s_contents(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> list[types.ReadResourceResult]:
            async with connect_http() as client:
                return [
                    await client.read_resource(DUNE),
                    await client.read_resource("toolscout://library/library://cover.png"),
                    await client.read_resource("toolscout://library/library://books/emma"),
                ]

        dune, cover, emma = run(scenario)
        assert dune.contents == [types.TextResourceContents(uri=DUNE, text="Spice and sand.")]
        (blob,) = cover.contents
        assert isinstance(blob, types.BlobResourceContents)
        assert blob.uri == "toolscout://library/library://cover.png"
        assert blob.mime_type == "image/png" and blob.blob.startswith("iVBORw0KGgo")
        assert emma.contents[0].uri == "toolscout://library/library://books/emma"

    def test_the_server_s_progress_on_a_read_reaches_the_client(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> list[tuple[float, str | None]]:
            progress: list[tuple[float, str | None]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append((value, message))

            async with connect_http() as client:
                request = types.ReadResourceRequest(
                    params=types.ReadResourceRequestParams(uri=DUNE)
                )
                await client.session.send_request(
                    request, types.ReadResourceResult, progress_callback=on_progress
                )
            return progress

        assert run(scenario) == [(1.0, "read")]

    def test_the_server_s_own_uri_is_read_from_the_one_server_that_lists_it(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> types.ReadResourceResult:
            async with connect_http() as client:
                return await client.read_resource("library://books/dune")

        (content,) = run(scenario).contents
        assert content.uri == DUNE

    @pytest.mark.parametrize(
        "uri",
        [
            "toolscout://library/library://books/nothing",  # the server says so
            "toolscout://nowhere/library://books/dune",  # no such server
            "library://books/nothing",  # listed by no server
        ],
    )
    def test_an_unknown_resource_is_an_error(self, connect_http: Connect, uri: str) -> None:
        async def scenario() -> MCPError:
            async with connect_http() as client:
                with pytest.raises(MCPError) as raised:
                    await client.read_resource(uri)
                return raised.value

        error = run(scenario)
        assert error.code == -32002
        assert "no such book" in error.message or error.message.startswith("Resource not found")

    def test_template_arguments_are_completed_by_the_server(self, connect_http: Connect) -> None:
        async def scenario() -> list[str]:
            async with connect_http() as client:
                reference = types.ResourceTemplateReference(
                    uri="toolscout://library/library://books/{title}"
                )
                result = await client.complete(reference, {"name": "title", "value": "d"})
                return result.completion.values

        assert run(scenario) == ["dune"]


class TestNotifications:
    def test_list_changes_and_updates_reach_the_client(self, connect: Connect) -> None:
        """A book added, a prompt added, a subscribed book revised: each is announced."""

        async def scenario() -> tuple[list[str], list[str], str]:
            inbox = Inbox()
            async with connect(message_handler=inbox) as client:
                await client.subscribe_resource(DUNE)
                await call(client, "library__add_book", title="ubik", text="Time runs back.")
                await inbox.wait_for(types.ResourceListChangedNotification)
                books = [resource.uri for resource in (await client.list_resources()).resources]
                await call(client, "library__add_prompt", name="quiz")
                await inbox.wait_for(types.PromptListChangedNotification)
                prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
                await call(client, "library__revise_book", title="dune", text="Spice.")
                updated = await inbox.wait_for(types.ResourceUpdatedNotification)
                return books, prompts, updated.params.uri

        books, prompts, updated = run(scenario)
        assert "toolscout://library/library://books/ubik" in books
        assert "library__quiz" in prompts
        assert updated == DUNE

    def test_a_client_on_the_2026_revision_learns_of_changes_on_its_listen_stream(self) -> None:
        async def scenario() -> tuple[Any, Any]:
            async with in_process({"library": server("library")}) as client:
                events: list[Any] = []
                async with client.listen(
                    prompts_list_changed=True, resources_list_changed=True
                ) as stream:
                    await call(client, "library__add_prompt", name="riddle")
                    with anyio.fail_after(10):
                        events.append(await stream.__anext__())
                    await call(client, "library__add_book", title="solaris", text="An ocean.")
                    with anyio.fail_after(10):
                        events.append(await stream.__anext__())
                return events[0], events[1]

        prompts, resources = run(scenario)
        assert isinstance(prompts, PromptsListChanged)
        assert isinstance(resources, ResourcesListChanged)

    def test_a_server_keeps_one_subscription_for_all_its_subscribers(
        self, connect_http: Connect
    ) -> None:
        uri = "toolscout://library/library://books/emma"

        async def scenario() -> list[str]:
            seen: list[str] = []
            async with connect_http() as first, connect_http() as second:
                await first.subscribe_resource(uri)
                await second.subscribe_resource(uri)
                seen.append(await call(first, "library__subscriptions"))
                await first.unsubscribe_resource(uri)
                seen.append(await call(first, "library__subscriptions"))
                await second.unsubscribe_resource(uri)
                seen.append(await call(first, "library__subscriptions"))
            return seen

        both, one, none = run(scenario)
        assert "library://books/emma" in both
        assert "library://books/emma" in one
        assert "library://books/emma" not in none


class TestLogging:
    def test_the_level_reaches_the_server_and_filters_its_messages(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> tuple[str, list[tuple[str, Any]]]:
            logged: list[tuple[str, Any]] = []
            trouble = anyio.Event()

            async def on_log(params: types.LoggingMessageNotificationParams) -> None:
                logged.append((params.level, params.data))
                if params.data == "trouble":
                    trouble.set()

            async with connect_http(logging_callback=on_log) as client:
                await client.session.send_request(
                    types.SetLevelRequest(params=types.SetLevelRequestParams(level="warning")),
                    types.EmptyResult,
                )
                level = await call(client, "library__log_level")
                await call(client, "library__log", message="routine", level="info")
                await call(client, "library__log", message="trouble", level="error")
                with anyio.fail_after(10):
                    await trouble.wait()
            return level, logged

        level, logged = run(scenario)
        assert level == "warning"
        assert logged == [("error", "trouble")]


def sampling_client(name: str, asked: list[str]) -> Callable[..., Any]:
    """A sampling callback that answers as `name`, reporting progress on the way."""

    async def sample(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        asked.append(name)
        token = (context.meta or {}).get("progress_token")
        if token is not None:
            await context.session.send_notification(
                types.ProgressNotification(
                    params=types.ProgressNotificationParams(progress_token=token, progress=0.5)
                )
            )
        content = params.messages[0].content
        assert isinstance(content, types.TextContent)
        return answer(f"{name} heard {content.text!r}", model=name)

    return sample


async def elicit(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept")
    return types.ElicitResult(action="accept", content={"answer": f"blue, to {params.message}"})


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])


class TestServerRequests:
    def test_sampling_elicitation_and_roots_reach_the_client_and_come_back(
        self, connect: Connect
    ) -> None:
        async def scenario() -> list[str]:
            asked: list[str] = []
            async with connect(
                sampling_callback=sampling_client("claude", asked),
                elicitation_callback=elicit,
                list_roots_callback=roots,
            ) as client:
                return [
                    await call(client, "asking__ask_model", question="why?", related="yes"),
                    await call(client, "web__ask_model", question="how?", related="yes"),
                    await call(client, "asking__ask_user", question="colour?"),
                    await call(client, "web__roots"),
                ]

        sampled, sampled_over_http, elicited, listed = run(scenario)
        # The client's progress on the server's request reaches the server.
        assert sampled == "claude: claude heard 'why?' (progress [0.5])"
        assert sampled_over_http == "claude: claude heard 'how?' (progress [0.5])"
        assert elicited == "accept: blue, to colour?"
        assert listed == "file:///work/project"

    def test_a_client_without_the_capability_is_not_asked(self, connect_http: Connect) -> None:
        async def scenario() -> list[str]:
            async with connect_http(sampling_callback=sampling_client("claude", [])) as client:
                return [
                    await call(client, "web__ask_user", question="colour?"),
                    await call(client, "web__roots"),
                    await call(client, "web__ask_model_with_tools"),
                ]

        elicited, listed, with_tools = run(scenario)
        prefix = "the client refused: The gateway did not pass this"
        assert elicited == (
            f"{prefix} elicitation/create request on to a client: the client did not declare "
            "the elicitation capability for form mode. (-32600)"
        )
        assert listed.startswith(f"{prefix} roots/list request")
        assert "did not declare the roots capability" in listed
        assert with_tools.startswith(f"{prefix} sampling/createMessage request")
        assert "did not declare the sampling capability with tools" in with_tools

    def test_a_server_that_gives_up_cancels_its_request_at_the_client(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> tuple[str, bool]:
            cancelled = anyio.Event()

            async def slow(
                context: ClientRequestContext, params: types.CreateMessageRequestParams
            ) -> types.CreateMessageResult:
                try:
                    await anyio.sleep_forever()
                finally:
                    cancelled.set()
                raise AssertionError("unreachable")

            async with connect_http(sampling_callback=slow) as client:
                result = await call(client, "web__ask_and_give_up")
                with anyio.fail_after(10):
                    await cancelled.wait()
            return result, cancelled.is_set()

        assert run(scenario) == ("gave up", True)

    def test_a_url_elicitation_and_its_completion_reach_the_client(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> tuple[str, str]:
            inbox = Inbox()
            async with connect_http(elicitation_callback=elicit, message_handler=inbox) as client:
                result = await call(client, "web__ask_user_to_visit")
                done = await inbox.wait_for(types.ElicitCompleteNotification)
            return result, done.params.elicitation_id

        assert run(scenario) == ("accept", "sign-in-1")


async def ask_model_first_round(
    client: Client,
) -> tuple[dict[str, Any], types.InputRequiredResult]:
    """`asking__ask_model` called through `call_tool` by a client of 2026-07-28: the call's
    arguments, and the `input_required` result of its first round."""
    await client.call_tool("search_tools", {"queries": ["asking__ask_model"]})
    arguments = {
        "name": "asking__ask_model",
        "arguments": {"question": "why?", "related": "yes"},
    }
    first = await client.session.call_tool("call_tool", arguments, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult)
    assert first.input_requests is not None
    return arguments, first


class TestClientsOf2026:
    """A client of the 2026-07-28 revision, which cannot be sent requests, is asked in
    `input_required` results of its own requests, and sends them again with the answers."""

    def test_sampling_elicitation_and_roots_reach_it_and_come_back(self, config: Path) -> None:
        async def scenario() -> tuple[str, list[str], list[str]]:
            asked: list[str] = []
            async with stdio_client(
                config,
                sampling_callback=sampling_client("claude", asked),
                elicitation_callback=elicit,
                list_roots_callback=roots,
            ) as client:
                return (
                    client.protocol_version,
                    [
                        await call(client, "asking__ask_model", question="why?", related="yes"),
                        await call(client, "web__ask_model", question="how?", related="yes"),
                        await call(client, "asking__ask_user", question="colour?"),
                        await call(client, "web__roots"),
                        prompt_text(await client.get_prompt("asking__greeting")),
                    ],
                    asked,
                )

        version, results, asked = run(scenario)
        assert version == "2026-07-28"
        # Progress the client reports has no request of its own to ride in this revision.
        assert results == [
            "claude: claude heard 'why?'",
            "claude: claude heard 'how?'",
            "accept: blue, to colour?",
            "file:///work/project",
            "Hello, blue, to your name?.",
        ]
        assert asked == ["claude", "claude"]

    def test_over_http_too(self, connect_http: Connect) -> None:
        """Each request of that revision is served on its own over HTTP: the held work and
        the listen stream are the gateway's to keep."""

        async def scenario() -> tuple[list[str], Any]:
            async with connect_http(
                mode="2026-07-28", sampling_callback=sampling_client("claude", [])
            ) as client:
                results = [
                    await call(client, "asking__ask_model", question="why?", related="yes"),
                    await call(client, "web__ask_model", question="how?", related="yes"),
                ]
                async with client.listen(resource_subscriptions=[DUNE]) as stream:
                    await call(client, "library__revise_book", title="dune", text="Sand.")
                    with anyio.fail_after(10):
                        return results, await stream.__anext__()

        results, updated = run(scenario)
        assert results == ["claude: claude heard 'why?'", "claude: claude heard 'how?'"]
        assert updated == ResourceUpdated(uri=DUNE)

    def test_a_request_that_needs_input_is_answered_input_required(self, config: Path) -> None:
        """Driven by hand: what the client sees, round by round."""

        async def scenario() -> tuple[Any, Any]:
            async with stdio_client(config, sampling_callback=sampling_client("claude", [])) as c:
                arguments, first = await ask_model_first_round(c)
                ((key, request),) = first.input_requests.items()
                final = await c.session.call_tool(
                    "call_tool",
                    arguments,
                    input_responses={key: answer("because")},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                return request, final

        request, final = run(scenario)
        assert isinstance(request, types.CreateMessageRequest)
        content = request.params.messages[0].content
        assert isinstance(content, types.TextContent) and content.text == "why?"
        assert isinstance(final, types.CallToolResult)
        assert text(final) == "test-model: because"

    def test_a_request_state_is_taken_back_only_for_the_same_request(self, config: Path) -> None:
        async def scenario() -> tuple[list[str], str]:
            async with stdio_client(config, sampling_callback=sampling_client("claude", [])) as c:
                arguments, first = await ask_model_first_round(c)
                responses = {key: answer("because") for key in first.input_requests}
                refusals: list[str] = []
                other = {
                    "name": "asking__ask_model",
                    "arguments": {"question": "who?", "related": "yes"},
                }
                for name, args, state in [
                    ("call_tool", arguments, "made-up"),  # a state the gateway never gave
                    ("call_tool", other, first.request_state),  # another call's
                ]:
                    with pytest.raises(MCPError) as raised:
                        await c.session.call_tool(
                            name,
                            args,
                            input_responses=responses,
                            request_state=state,
                            allow_input_required=True,
                        )
                    refusals.append(f"{raised.value.code} {raised.value.message}")
                # Nothing was given away: the call itself still takes its answers.
                final = await c.session.call_tool(
                    "call_tool",
                    arguments,
                    input_responses=responses,
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                assert isinstance(final, types.CallToolResult)
                return refusals, text(final)

        refusals, result = run(scenario)
        assert refusals == ["-32602 Invalid or expired requestState"] * 2
        assert result == "test-model: because"

    def test_a_client_without_the_capability_is_not_asked(self, config: Path) -> None:
        async def scenario() -> tuple[str, str]:
            async with stdio_client(config, sampling_callback=sampling_client("claude", [])) as c:
                return (
                    await call(c, "asking__ask_user", question="colour?"),
                    await call(c, "web__roots"),
                )

        elicited, listed = run(scenario)
        assert elicited == (
            "the client refused: The gateway did not pass this elicitation/create request on "
            "to a client: the client did not declare the elicitation capability for form "
            "mode. (-32600)"
        )
        assert "did not declare the roots capability" in listed

    def test_it_subscribes_to_resources_on_its_listen_stream(self, config: Path) -> None:
        emma = "toolscout://library/library://books/emma"
        unknown = "toolscout://nowhere/library://books/dune"

        async def scenario() -> tuple[Any, Any, Any, str, str]:
            async with stdio_client(config) as client:
                capabilities = client.server_capabilities
                async with client.listen(resource_subscriptions=[DUNE, emma, unknown]) as stream:
                    held = await call(client, "library__subscriptions")
                    await call(client, "library__revise_book", title="emma", text="Matches.")
                    with anyio.fail_after(10):
                        updated = await stream.__anext__()
                    honored = stream.honored
                # The gateway ends them as the stream closes, while the client goes on.
                ended = await call(client, "library__subscriptions")
                while ended:
                    ended = await call(client, "library__subscriptions")
                return capabilities, honored, updated, held, ended

        capabilities, honored, updated, held, ended = run(scenario)
        assert capabilities.resources is not None and capabilities.resources.subscribe
        # A URI nobody serves is left out of what the stream carries.
        assert honored.resource_subscriptions == [DUNE, emma]
        assert isinstance(updated, ResourceUpdated) and updated.uri == emma
        assert "library://books/dune" in held and "library://books/emma" in held
        # Closing the stream ends the subscriptions at the server.
        assert ended == ""


class TestTwoClients:
    """Two client sessions at once: a server's request reaches the one it is for."""

    async def _both(
        self, connect: Connect, tool: str
    ) -> tuple[dict[str, str], dict[str, list[str]]]:
        """Alice and Bob call `tool` at once; each one's sampling callback waits until the
        other's is asked too, so both requests are open together."""
        results: dict[str, str] = {}
        asked: dict[str, list[str]] = {"alice": [], "bob": []}
        entered = {"alice": anyio.Event(), "bob": anyio.Event()}

        def sampler(name: str, other: str) -> Callable[..., Any]:
            answer_as = sampling_client(name, asked[name])

            async def sample(context: ClientRequestContext, params: Any) -> Any:
                entered[name].set()
                with anyio.fail_after(10):
                    await entered[other].wait()
                return await answer_as(context, params)

            return sample

        async def session(name: str, other: str) -> None:
            async with connect(sampling_callback=sampler(name, other)) as client:
                arguments = {"question": f"{name}?", "related": "yes"}
                results[name] = await call(client, tool, **arguments)

        async with anyio.create_task_group() as group:
            group.start_soon(session, "alice", "bob")
            group.start_soon(session, "bob", "alice")
        return results, asked

    def test_over_http_each_session_is_asked_its_own_question(self, connect_http: Connect) -> None:
        results, asked = run(lambda: self._both(connect_http, "web__ask_model"))
        assert results["alice"] == "alice: alice heard 'alice?' (progress [0.5])"
        assert results["bob"] == "bob: bob heard 'bob?' (progress [0.5])"
        assert asked == {"alice": ["alice"], "bob": ["bob"]}

    def test_over_stdio_the_one_session_calling_the_server_is_asked(
        self, connect_http: Connect
    ) -> None:
        """Bob's call to another server is in flight while Alice's server asks."""

        async def scenario() -> tuple[str, list[str], list[str]]:
            alice_asked: list[str] = []
            bob_asked: list[str] = []
            bob_waiting, alice_done = anyio.Event(), anyio.Event()

            async def bob_waits(context: ClientRequestContext, params: Any) -> Any:
                bob_asked.append("bob")
                bob_waiting.set()
                with anyio.fail_after(30):
                    await alice_done.wait()
                return answer("bob")

            async def bob_calls(bob: Client) -> None:
                await call(bob, "web__ask_model", question="?", related="yes")

            async with (
                connect_http(sampling_callback=sampling_client("alice", alice_asked)) as alice,
                connect_http(sampling_callback=bob_waits) as bob,
                anyio.create_task_group() as group,
            ):
                group.start_soon(bob_calls, bob)
                with anyio.fail_after(30):
                    await bob_waiting.wait()
                result = await call(alice, "asking__ask_model", question="mine?", related="yes")
                alice_done.set()
            return result, alice_asked, bob_asked

        result, alice_asked, bob_asked = run(scenario)
        assert result == "alice: alice heard 'mine?' (progress [0.5])"
        assert alice_asked == ["alice"] and bob_asked == ["bob"]

    def test_over_stdio_a_request_several_sessions_may_have_caused_asks_nobody(
        self, connect_http: Connect
    ) -> None:
        """Bob's call to the stdio server is in flight while it asks for Alice's call: the
        request does not say which call it is for, so it is refused."""

        async def scenario() -> tuple[str, list[str], list[str]]:
            alice_asked: list[str] = []
            bob_asked: list[str] = []
            async with (
                connect_http(sampling_callback=sampling_client("alice", alice_asked)) as alice,
                connect_http(sampling_callback=sampling_client("bob", bob_asked)) as bob,
                holding(bob, alice),
            ):
                result = await call(alice, "asking__ask_model", question="?", related="yes")
            return result, alice_asked, bob_asked

        result, alice_asked, bob_asked = run(scenario)
        assert result == (
            "the client refused: The gateway did not pass this sampling/createMessage request on "
            "to a client: several clients of the gateway have requests in flight to 'asking' and "
            "the request does not say which one it is for, so none of them is asked. (-32600)"
        )
        assert alice_asked == bob_asked == []

    def test_a_log_message_that_may_be_about_either_session_reaches_neither(
        self, connect_http: Connect
    ) -> None:
        async def scenario() -> tuple[list[Any], list[Any]]:
            logs: dict[str, list[Any]] = {"alice": [], "bob": []}
            marked = anyio.Event()

            def collect(name: str) -> Callable[..., Any]:
                async def on_log(params: types.LoggingMessageNotificationParams) -> None:
                    logs[name].append(params.data)
                    if params.data == "marker":
                        marked.set()

                return on_log

            async with (
                connect_http(logging_callback=collect("alice")) as alice,
                connect_http(logging_callback=collect("bob")) as bob,
            ):
                async with holding(bob, alice):
                    await call(alice, "asking__log", message="whose?")
                # Alice's alone now: this one is hers, and comes after the other.
                await call(alice, "asking__log", message="marker")
                with anyio.fail_after(30):
                    await marked.wait()
            return logs["alice"], logs["bob"]

        assert run(scenario) == (["marker"], [])


@asynccontextmanager
async def holding(client: Client, releaser: Client) -> AsyncIterator[None]:
    """`client`'s call to the asking server (over stdio) in flight until the block ends."""
    await client.call_tool("search_tools", {"queries": ["asking__hold"]})
    holds = anyio.Event()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        holds.set()

    async def hold() -> None:
        arguments = {"name": "asking__hold", "arguments": {}}
        result = await client.call_tool("call_tool", arguments, progress_callback=on_progress)
        assert text(result) == "released"

    async with anyio.create_task_group() as group:
        group.start_soon(hold)
        with anyio.fail_after(30):
            await holds.wait()  # the call is at the server
        try:
            yield
        finally:
            await call(releaser, "asking__release")


@asynccontextmanager
async def in_process(
    servers: dict[str, Any], filter: Callable[[Tool, Any, Phase], bool] | None = None
) -> AsyncIterator[Client]:
    """A gateway in this process over these servers, and a client session with it."""
    gateway = Gateway(GatewayConfig.model_validate({"servers": servers}), filter=filter)
    front = GatewayServer(gateway, "stdio")
    async with gateway.running():
        await gateway.settled()
        async with Client(front.server) as client:
            yield client


class TestFilters:
    def test_a_server_the_filter_hides_shows_no_prompts_or_resources(self) -> None:
        def no_library(tool: Tool, request: Any, phase: Phase) -> bool:
            return tool.namespace != "library"

        async def scenario() -> list[Any]:
            async with in_process({"library": server("library")}, no_library) as client:
                outcomes: list[Any] = [
                    (await client.list_prompts()).prompts,
                    (await client.list_resources()).resources,
                    (await client.list_resource_templates()).resource_templates,
                ]
                for attempt in (
                    client.get_prompt("library__summarize", {"title": "dune"}),
                    client.read_resource(DUNE),
                    client.read_resource("toolscout://library/library://books/emma"),
                    client.complete(
                        types.PromptReference(name="library__summarize"),
                        {"name": "style", "value": ""},
                    ),
                ):
                    with pytest.raises(MCPError) as raised:
                        await attempt
                    outcomes.append(raised.value.message)
                return outcomes

        prompts, resources, templates, *refused = run(scenario)
        assert prompts == resources == templates == []
        assert refused == [
            "Unknown prompt: 'library__summarize'",
            f"Resource not found: {DUNE!r}",
            "Resource not found: 'toolscout://library/library://books/emma'",
            "Unknown prompt: 'library__summarize'",
        ]

    def test_the_filter_sees_each_prompt_and_resource_as_a_tool_of_its_server(self) -> None:
        seen: list[tuple[str, str, Any, Phase]] = []

        def no_resources(tool: Tool, request: Any, phase: Phase) -> bool:
            seen.append((tool.id, tool.name, tool.metadata.get("kind"), phase))
            return tool.metadata.get("kind") == "prompt"

        async def scenario() -> tuple[list[str], list[str]]:
            library = server("library", tags=["books"])
            async with in_process({"library": library}, no_resources) as client:
                prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
                resources = [r.uri for r in (await client.list_resources()).resources]
                await client.get_prompt("library__summarize", {"title": "dune"})
                return prompts, resources

        prompts, resources = run(scenario)
        assert prompts == ["library__summarize"]
        assert resources == []
        assert ("library__summarize", "summarize", "prompt", "active") in seen
        assert ("library__summarize", "summarize", "prompt", "call") in seen
        assert (DUNE, "dune", "resource", "active") in seen

    def test_a_filter_that_raises_denies(self) -> None:
        def broken(tool: Tool, request: Any, phase: Phase) -> bool:
            raise RuntimeError("no answer")

        async def scenario() -> tuple[list[types.Prompt], list[types.Resource]]:
            async with in_process({"library": server("library")}, broken) as client:
                return (await client.list_prompts()).prompts, (
                    await client.list_resources()
                ).resources

        assert run(scenario) == ([], [])


class TestMalformedServer:
    def test_its_good_prompts_are_offered_and_a_list_it_cannot_give_is_empty(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        async def scenario() -> tuple[list[str], list[types.Resource], list[Any]]:
            async with in_process({"malformed": server("malformed")}) as client:
                return (
                    [prompt.name for prompt in (await client.list_prompts()).prompts],
                    (await client.list_resources()).resources,
                    (await client.list_resource_templates()).resource_templates,
                )

        caplog.set_level("WARNING", "toolscout.gateway")
        prompts, resources, templates = run(scenario)
        assert prompts == ["malformed__define"]
        assert resources == templates == []
        log = caplog.text
        assert "'broken_prompt' is skipped: its description is not valid Unicode" in log
        assert "upstream 'malformed': cannot list its resources (malformed answer)" in log
        assert "upstream 'malformed': cannot list its resource templates" in log


class TestStateless:
    def test_without_sessions_there_are_no_subscriptions_and_no_requests_to_the_client(
        self, config: Path, tmp_path: Path
    ) -> None:
        servers = {"library": server("library"), "asking": server("asking")}
        stateless = write_config(tmp_path, servers, gateway={"stateless": True})
        gateway = GatewayProcess(stateless, "--port", "0")
        try:
            url = gateway.url(limit=LIMIT)

            async def scenario() -> tuple[types.ServerCapabilities, str, str]:
                asked: list[str] = []
                async with http_client(
                    url, None, sampling_callback=sampling_client("claude", asked)
                ) as client:
                    with pytest.raises(MCPError) as raised:
                        await client.subscribe_resource(DUNE)
                    sampled = await call(client, "asking__ask_model", question="?", related="yes")
                    assert asked == []
                    return client.server_capabilities, raised.value.message, sampled

            capabilities, refused, sampled = run(scenario)
        finally:
            gateway.stop()
        assert capabilities.resources is not None and not capabilities.resources.subscribe
        assert refused == (
            "Subscriptions need a session, and this gateway serves every HTTP request on its "
            "own (gateway.stateless)."
        )
        assert "the client's connection (stateless HTTP) has no stream for requests" in sampled
