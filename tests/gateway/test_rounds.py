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
from tests.gateway.conftest import GatewayProcess, http_client, server, stdio_client, write_config

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
                # What the server sent before its result arrives before it.
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
