"""A client of MCP 2026-07-28, asked an upstream's question in an `input_required` result of
its request, sends the request again with the answer: the upstream's work goes on across
these rounds. What a user of such a client sees, with real clients of that revision over
stdio and streamable HTTP, and the asking server (`servers/asking.py`) behind the gateway:
the upstream's progress and log messages on every round, the work cancelled when the client
cancels or goes away, and what the limits of `gateway.input_required` do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from tests.gateway import conftest
from tests.gateway.conftest import (
    GatewayProcess,
    http_client,
    server,
    stdio_client,
    until,
    write_config,
)

Connect = Callable[..., AbstractAsyncContextManager[Client]]
#: Seconds a scenario may take: over stdio, it starts a gateway and its server.
LIMIT = 90.0
CANCELLED = "ask_and_hold was cancelled"
_ResultT = TypeVar("_ResultT")


def run(scenario: Callable[[], Awaitable[_ResultT]]) -> _ResultT:
    return conftest.run(scenario, limit=LIMIT)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(tmp_path_factory.mktemp("rounds"), {"asking": server("asking")})


@pytest.fixture(scope="module")
def http_url(config: Path) -> Iterator[str]:
    gateway = GatewayProcess(config, "--port", "0")
    try:
        yield gateway.url(limit=LIMIT)
    finally:
        gateway.stop()


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, config: Path) -> Connect:
    """Opens a session of a client of MCP 2026-07-28 with the gateway over each transport."""
    if request.param == "stdio":
        return lambda **options: stdio_client(config, mode="2026-07-28", **options)
    url = str(request.getfixturevalue("http_url"))
    return lambda **options: http_client(url, None, mode="2026-07-28", **options)


async def sample(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    return answer("yes")


def answer(words: str) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=words), model="test-model"
    )


def call_params(name: str) -> dict[str, Any]:
    """The arguments of `call_tool` for a tool of the asking server."""
    return {"name": f"asking__{name}", "arguments": {}}


async def notes(client: Client) -> str:
    """What the asking server noted of its questions."""
    result = await client.call_tool("call_tool", call_params("notes"))
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def noted(client: Client, what: str, before: int) -> int:
    """How many of the asking server's notes are `what`, once more than `before` are (the
    server lives as long as its gateway, which serves several tests over HTTP)."""
    while (count := (await notes(client)).splitlines().count(what)) <= before:
        await anyio.sleep(0.2)
    return count


class TestProgressAndLogs:
    def test_reach_the_client_before_and_after_it_answers(self, connect: Connect) -> None:
        """The server reports before it asks, on the client's first request, and after the
        answer, on the request the client sent again with it."""

        async def scenario() -> tuple[list[Any], list[Any], str]:
            logged: list[Any] = []
            reported: list[Any] = []

            async def on_log(params: types.LoggingMessageNotificationParams) -> None:
                logged.append(params.data)

            async def on_progress(progress: float, total: float | None, message: str | None):
                reported.append((progress, total, message))

            async with connect(
                sampling_callback=sample, logging_callback=on_log, log_level="info"
            ) as client:
                result = await client.call_tool(
                    "call_tool", call_params("report_and_ask"), progress_callback=on_progress
                )
                # A message lost for good ends this wait; the limit only bounds it.
                with anyio.move_on_after(10):
                    await until(lambda: len(logged) >= 2 and len(reported) >= 2)
                content = result.content[0]
                assert isinstance(content, types.TextContent)
                return logged, reported, content.text

        logged, reported, result = run(scenario)
        assert result == "reported"
        assert logged == ["before asking", "after the answer"]
        assert reported == [(1, 2, "before asking"), (2, 2, "after the answer")]


async def answer_then_wait(
    client: Client, firsts: list[types.InputRequiredResult], holding: anyio.Event
) -> None:
    """Call `ask_and_hold` (its first `input_required` result goes to `firsts`) and answer
    its question; set `holding` once the server holds (it says so in its progress), and
    wait on with the round."""
    arguments = call_params("ask_and_hold")
    first = await client.session.call_tool("call_tool", arguments, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult)
    assert first.input_requests is not None
    firsts.append(first)
    reported = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if message == "holding":
            reported.set()

    async def answer_and_wait() -> None:
        await client.session.call_tool(
            "call_tool",
            arguments,
            input_responses={key: answer("hold") for key in first.input_requests or {}},
            request_state=first.request_state,
            allow_input_required=True,
            progress_callback=on_progress,
        )

    async with anyio.create_task_group() as group:
        group.start_soon(answer_and_wait)
        await reported.wait()
        holding.set()


async def taken_back(client: Client, first: types.InputRequiredResult) -> str:
    """What the gateway answers the client that sends `first`'s `requestState` again."""
    try:
        await client.session.call_tool(
            "call_tool",
            call_params("ask_and_hold"),
            input_responses={key: answer("again") for key in first.input_requests or {}},
            request_state=first.request_state,
            allow_input_required=True,
        )
    except MCPError as error:
        return error.message
    return "taken back"


class TestCancellation:
    def test_a_client_that_cancels_a_waiting_round_cancels_the_work(self, connect: Connect) -> None:
        """The client answers, then cancels its request while the server works on
        (`notifications/cancelled` over stdio; over HTTP, its stream closed): the server's
        call is cancelled, and the `requestState` is taken back no more."""

        async def scenario() -> tuple[int, int, str]:
            async with connect(sampling_callback=sample) as client:
                before = (await notes(client)).splitlines().count(CANCELLED)
                holding = anyio.Event()
                firsts: list[types.InputRequiredResult] = []
                async with anyio.create_task_group() as group:
                    group.start_soon(answer_then_wait, client, firsts, holding)
                    await holding.wait()
                    group.cancel_scope.cancel()
                after = await noted(client, CANCELLED, before)
                return before, after, await taken_back(client, firsts[0])

        before, after, refusal = run(scenario)
        assert after == before + 1
        assert refusal == "Invalid or expired requestState"

    def test_a_client_that_goes_away_while_a_round_waits_cancels_the_work(
        self, http_url: str
    ) -> None:
        """Over HTTP, where the gateway outlives its clients."""

        def connect() -> AbstractAsyncContextManager[Client]:
            return http_client(http_url, None, mode="2026-07-28", sampling_callback=sample)

        async def scenario() -> tuple[int, int, str]:
            firsts: list[types.InputRequiredResult] = []
            holding = anyio.Event()
            async with connect() as client:
                before = (await notes(client)).splitlines().count(CANCELLED)

            async def call_then_wait() -> None:
                async with connect() as client:
                    await answer_then_wait(client, firsts, holding)

            async with anyio.create_task_group() as group:
                group.start_soon(call_then_wait)
                await holding.wait()
                group.cancel_scope.cancel()  # the client's connection closes with it
            async with connect() as client:
                after = await noted(client, CANCELLED, before)
                return before, after, await taken_back(client, firsts[0])

        before, after, refusal = run(scenario)
        assert after == before + 1
        assert refusal == "Invalid or expired requestState"


class TestLimits:
    """`gateway.input_required`, set short so that a test sees what each limit does."""

    def test_an_unanswered_question_then_an_uncollected_result(self, tmp_path: Path) -> None:
        """The client is asked and never answers: the server is told why its question
        failed; the result of its call, which nobody comes back for, is dropped, and the
        client that comes back late is refused."""
        limits = {"answer_timeout": 0.5, "result_kept": 0.5}
        config = write_config(
            tmp_path, {"asking": server("asking")}, gateway={"input_required": limits}
        )
        gateway = GatewayProcess(config, "--port", "0", "--verbose")

        async def scenario() -> tuple[str, str]:
            url = gateway.url(limit=LIMIT)
            async with http_client(url, None, mode="2026-07-28", sampling_callback=sample) as c:
                arguments = call_params("ask_and_note")
                first = await c.session.call_tool("call_tool", arguments, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult)
                refused = "ask_and_note was refused: "
                while refused not in (seen := await notes(c)):
                    await anyio.sleep(0.2)
                await anyio.to_thread.run_sync(
                    gateway.wait_for, r"(did not come back within .* for the result)"
                )
                try:
                    await c.session.call_tool(
                        "call_tool",
                        arguments,
                        input_responses={key: answer("late") for key in first.input_requests or {}},
                        request_state=first.request_state,
                        allow_input_required=True,
                    )
                except MCPError as error:
                    return seen, error.message
                return seen, "the result"

        try:
            noted, late = run(scenario)
        finally:
            gateway.stop()
        assert noted == (
            "ask_and_note was refused: the client did not come back with an answer within "
            "0.5 s (gateway.input_required.answer_timeout)"
        )
        assert late == "Invalid or expired requestState"


class TestDiscoveryOverHTTP:
    def test_is_refused_so_that_default_clients_keep_their_sessions(self, http_url: str) -> None:
        """The SDK's default client probes with `server/discover` and takes the session-based
        revision when refused; a client of 2026-07-28 only, which never probes, is served
        without it (docs/gateway.md says why the gateway does not answer it)."""

        async def scenario() -> tuple[str, bool, str, list[str]]:
            async with http_client(http_url, None) as default:
                version = default.protocol_version
                has_prompts = default.server_capabilities.prompts is not None
            async with http_client(http_url, None, mode="2026-07-28") as modern:
                refusal = "answered"
                try:
                    await modern.session.send_discover("2026-07-28")
                except MCPError as error:
                    refusal = f"{error.code} {error.message}"
                prompts = [prompt.name for prompt in (await modern.list_prompts()).prompts]
            return version, has_prompts, refusal, prompts

        version, has_prompts, refusal, prompts = run(scenario)
        assert version != "2026-07-28"
        assert has_prompts
        assert refusal.startswith("-32601 this gateway keeps what each session discovers")
        assert prompts == ["asking__greeting"]
