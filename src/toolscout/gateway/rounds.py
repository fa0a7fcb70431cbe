"""Questions from the upstreams to a client of the 2026-07-28 revision of MCP, which cannot be
sent requests: a server asks such a client for input by answering its request with an
`input_required` result, and the client sends the request again with the answers.

The gateway's own work for a client request goes on while an upstream waits for an answer
(the upstream's `sampling/createMessage`, `elicitation/create` or `roots/list`, or what an
upstream of that revision asks in its own `input_required` result). So for a `tools/call`,
`prompts/get` or `resources/read` of such a client (`InputRounds.serve`), that work runs in a
task of its own, held under a `requestState` the gateway makes. Each question it puts to the
client (`Rounds.ask`) answers the client's request with an `input_required` result; the
client's retry with that `requestState` gives the answers to the waiting upstream, and waits
for the work's next questions or its result.

What the work tells the client on the way (an upstream's progress and log messages) goes on
the request of the current round, the one the client waits on (`Rounds.tell`): the first
round's request is answered once the client is asked. Between rounds, it waits for the
client's next one.

A `requestState` is a random token the gateway keeps, valid for the identity and the request
it was given for; any other is refused as the SDK's own servers refuse one (`-32602`,
"Invalid or expired requestState"). A question the client leaves unanswered for
`answer_timeout` seconds is answered to the upstream with an error, and a result the client
does not come back for is forgotten after `result_kept` seconds (`gateway.input_required`).
A client that cancels its request, or disconnects while waiting, cancels the work.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from toolscout.gateway.config import InputRequiredSettings

logger = logging.getLogger("toolscout.gateway")

#: Messages told between rounds that wait for the client's next round, at most: the oldest of
#: more are dropped.
_KEPT_FOR_NEXT_ROUND = 100
#: The SDK's own answer to a `requestState` it did not make (`mcp.server.request_state`).
_INVALID_STATE = "Invalid or expired requestState"
_ResultT = TypeVar("_ResultT")
_RoundT = TypeVar("_RoundT")

Question = tuple[types.InputRequest, type[BaseModel]]
"""A request to put to the client, and the type its answer must have."""


@dataclass(eq=False)
class _Question:
    request: types.InputRequest
    answer_type: type[BaseModel]
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: BaseModel | types.ErrorData | None = None


class Rounds(Generic[_ResultT, _RoundT]):
    """One client request served across rounds of `input_required`: its work's questions to
    the client, what it tells the client on the way, and its outcome. A round (`_RoundT`) is
    the client's request of that round, as the caller knows it (the relay's `Origin`).

    Args:
        state: The `requestState` the client sends back.
        owner: Who may send it back: the identity and the request it was given for.
        answer_timeout: Seconds a question waits for the client's answer.
    """

    def __init__(self, state: str, owner: str, answer_timeout: float) -> None:
        self.state = state
        self.owner = owner
        self._answer_timeout = answer_timeout
        self._questions: dict[str, _Question] = {}
        self._keys = itertools.count(1)
        self._changed = anyio.Event()
        self._done = anyio.Event()
        self._result: _ResultT | None = None
        self._error: BaseException | None = None
        self._scope = anyio.CancelScope()
        self._round: _RoundT | None = None
        self._kept: deque[Callable[[_RoundT], Awaitable[None]]] = deque(maxlen=_KEPT_FOR_NEXT_ROUND)

    async def ask(
        self, questions: Mapping[str, Question]
    ) -> dict[str, BaseModel | types.ErrorData]:
        """Put these questions to the client together, in the next `input_required` result;
        the answers by the same keys, once the client has given them all (an `ErrorData` for
        one it answered with a malformed result, or left unanswered for `answer_timeout` s)."""
        # By the caller's key: the key the client is asked under, and the question.
        asked: dict[str, tuple[str, _Question]] = {}
        for name, (request, answer_type) in questions.items():
            key = f"{next(self._keys)}-{name}"
            asked[name] = key, _Question(request, answer_type)
            self._questions[key] = asked[name][1]
        self._changed.set()
        try:
            with anyio.move_on_after(self._answer_timeout):
                for _, question in asked.values():
                    await question.answered.wait()
        finally:  # answered, or withdrawn: the upstream gave up, or the wait is over
            for key, _ in asked.values():
                self._questions.pop(key, None)
        if any(question.answer is None for _, question in asked.values()):
            logger.info(
                "a client of MCP 2026-07-28 did not answer within %g s "
                "(gateway.input_required.answer_timeout): the server is told so",
                self._answer_timeout,
            )
        unanswered = types.ErrorData(
            code=types.INVALID_REQUEST,
            message="the client did not come back with an answer within "
            f"{self._answer_timeout:g} s (gateway.input_required.answer_timeout)",
        )
        return {name: question.answer or unanswered for name, (_, question) in asked.items()}

    def answer(self, responses: Mapping[str, types.InputResponse] | None) -> None:
        """Give the waiting questions the client's answers (by the keys it was asked with);
        answers to questions no longer asked are dropped."""
        for key, response in (responses or {}).items():
            question = self._questions.get(key)
            if question is None or question.answered.is_set():
                continue
            dumped = response.model_dump(by_alias=True, mode="json", exclude_none=True)
            try:
                question.answer = question.answer_type.model_validate(dumped)
            except ValidationError:
                question.answer = types.ErrorData(
                    code=types.INVALID_REQUEST,
                    message="the client answered with a malformed result",
                )
            question.answered.set()

    async def tell(self, send: Callable[[_RoundT], Awaitable[None]]) -> None:
        """Tell the client something about its request (`send`: progress, a log message)
        on the request of the current round; between rounds, on the next one (the oldest
        of more than 100 waiting are dropped)."""
        if self._round is None:
            self._kept.append(send)
        else:
            await _told(send, self._round)

    async def open_round(self, current: _RoundT) -> None:
        """The client's request of this round is being served: what waited for it is told
        on it, then what comes."""
        while self._kept:
            await _told(self._kept.popleft(), current)
        self._round = current

    def close_round(self, current: _RoundT) -> None:
        """The client's request of this round is answered."""
        if self._round is current:
            self._round = None

    async def run(self, work: Callable[[Rounds[_ResultT, _RoundT]], Awaitable[_ResultT]]) -> None:
        """Do the request's work, keeping its result or its error."""
        with self._scope:
            try:
                self._result = await work(self)
            except Exception as error:  # the client's retry raises it
                self._error = error
        if self._scope.cancelled_caught:
            self._error = MCPError(types.INTERNAL_ERROR, "The request was cancelled.")
        self._done.set()
        self._changed.set()

    def cancel(self) -> None:
        self._scope.cancel()

    async def next_round(self) -> _ResultT | types.InputRequiredResult:
        """The work's result once it has one, or the questions it waits on now.

        Raises:
            Exception: what the work raised.
        """
        while True:
            if self._done.is_set():
                if self._error is not None:
                    raise self._error
                return self._result  # type: ignore[return-value]  # set by a work that returned
            waiting = {
                key: question.request
                for key, question in self._questions.items()
                if not question.answered.is_set()
            }
            if waiting:
                return types.InputRequiredResult(input_requests=waiting, request_state=self.state)
            self._changed = anyio.Event()
            await self._changed.wait()


async def _told(send: Callable[[_RoundT], Awaitable[None]], current: _RoundT) -> None:
    try:
        await send(current)
    except Exception:  # a client that went away: the work goes on without it
        logger.debug("cannot tell a client of MCP 2026-07-28 about its request", exc_info=True)


class InputRounds(Generic[_RoundT]):
    """The client requests of the 2026-07-28 revision whose work goes on across rounds of
    `input_required`, by `requestState`. `run` must be running (the gateway runs it) for
    requests to be held; until then, they are served in one round, and asking their client
    is refused.

    Args:
        settings: How long questions and results wait for the client.
    """

    def __init__(self, settings: InputRequiredSettings) -> None:
        self._settings = settings
        self._held: dict[str, Rounds[Any, _RoundT]] = {}
        self._tasks: anyio.abc.TaskGroup | None = None

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Hold requests' work until cancelled; the work still under way is cancelled then."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            task_status.started()
            try:
                await anyio.sleep_forever()
            finally:
                self._tasks = None
                self._held.clear()
                tasks.cancel_scope.cancel()

    async def serve(
        self,
        params: types.InputResponseRequestParams,
        owner: str,
        current: _RoundT,
        work: Callable[[Rounds[_ResultT, _RoundT] | None], Awaitable[_ResultT]],
    ) -> _ResultT | types.InputRequiredResult:
        """Serve one round of a client's request: start its work (no `requestState`), or
        give the work the answers the client sent back; then wait for the work's result or
        its next questions.

        Args:
            params: The request's parameters, as the client sent them this round.
            owner: Who sends it and what it asks, without the round's own fields
                (`request_owner`): a `requestState` is only taken back from the same.
            current: The client's request of this round, on which the work tells the
                client what it has to say until the round is answered (`Rounds.tell`).
            work: Serves the request; given its `Rounds` to ask the client through, or None
                when requests cannot be held.

        Raises:
            MCPError: a `requestState` the gateway did not give this owner, or that expired.
        """
        if params.request_state is None:
            if self._tasks is None:
                return await work(None)
            rounds: Rounds[_ResultT, _RoundT] = Rounds(
                secrets.token_urlsafe(24), owner, self._settings.answer_timeout
            )
            self._held[rounds.state] = rounds
            self._tasks.start_soon(self._hold, rounds, work)
        else:
            held = self._held.get(params.request_state)
            if held is None or held.owner != owner:
                raise MCPError(types.INVALID_PARAMS, _INVALID_STATE)
            rounds = held
        try:
            await rounds.open_round(current)
            rounds.answer(params.input_responses)
            outcome = await rounds.next_round()
        except anyio.get_cancelled_exc_class():
            # The client cancelled the request, or went away: nobody will come back for it.
            self._held.pop(rounds.state, None)
            rounds.cancel()
            raise
        except Exception:
            self._held.pop(rounds.state, None)
            raise
        finally:
            rounds.close_round(current)
        if not isinstance(outcome, types.InputRequiredResult):
            self._held.pop(rounds.state, None)
        return outcome

    async def _hold(
        self,
        rounds: Rounds[_ResultT, _RoundT],
        work: Callable[[Rounds[_ResultT, _RoundT] | None], Awaitable[_ResultT]],
    ) -> None:
        await rounds.run(work)
        await anyio.sleep(self._settings.result_kept)
        if self._held.get(rounds.state) is rounds:
            logger.info(
                "a client of MCP 2026-07-28 did not come back within %g s for the result of "
                "its request (gateway.input_required.result_kept): it is dropped",
                self._settings.result_kept,
            )
            del self._held[rounds.state]


def request_owner(identity: str | None, method: str, params: types.RequestParams) -> str:
    """Who sent a request and what it asks, leaving out what changes from round to round
    (`_meta`, `inputResponses`, `requestState`): the retry of a request must be the same."""
    asked = params.model_dump(
        by_alias=True,
        mode="json",
        exclude_none=True,
        exclude={"meta", "input_responses", "request_state"},
    )
    return json.dumps([identity, method, asked], sort_keys=True)
