"""Who may see and use which tool: a filter asked at each phase, failing closed.

The filter is the security boundary of tool search. It is asked, for one request, whether a
tool may be:

- `search`: shown in search results and in the lazy tool's list;
- `load`: discovered (loaded, activated, returned with its definition);
- `active`: sent in this request's tool list, even though it was discovered earlier;
- `call`: executed, directly or through `call_tool`.

A filter that raises, returns anything but `True`, or takes longer than the timeout denies,
and the denial is logged. Answers are cached for the request they were asked for.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal, TypeAlias

from toolscout.catalog.tool import Tool

Phase: TypeAlias = Literal["search", "load", "active", "call"]
"""When the filter is asked; see the module docstring."""

PHASES: tuple[Phase, ...] = ("search", "load", "active", "call")

ToolPolicy: TypeAlias = Callable[[Tool, Any, Phase], bool | Awaitable[bool]]
"""`filter(tool, request_context, phase) -> bool`, sync or async: True allows."""

logger = logging.getLogger("toolscout.policy")


class PolicyCheck:
    """The policy's answers for one request, each asked at most once.

    A sync filter runs inline: it cannot be interrupted, but an answer that came later than
    the timeout still denies. An async filter is cancelled at the timeout.
    """

    def __init__(self, policy: ToolPolicy | None, request_context: Any, *, timeout: float) -> None:
        self._policy = policy
        self._context = request_context
        self._timeout = timeout
        self._answers: dict[tuple[str, Phase], bool] = {}

    async def allows(self, tool: Tool, *phases: Phase) -> bool:
        """Whether every one of `phases` allows `tool`."""
        if self._policy is None:
            return True
        for phase in phases:
            key = (tool.id, phase)
            if key not in self._answers:
                self._answers[key] = await self._ask(tool, phase)
            if not self._answers[key]:
                return False
        return True

    async def allowed(self, tools: Iterable[Tool], *phases: Phase) -> list[Tool]:
        """The tools every one of `phases` allows, in order."""
        if self._policy is None:
            return list(tools)
        return [tool for tool in tools if await self.allows(tool, *phases)]

    async def _ask(self, tool: Tool, phase: Phase) -> bool:
        assert self._policy is not None
        started = time.monotonic()
        try:
            answer: Any = self._policy(tool, self._context, phase)
            if inspect.isawaitable(answer):
                answer = await asyncio.wait_for(_awaited(answer), self._timeout)
        except TimeoutError:
            return _deny(tool, phase, f"took longer than {self._timeout:g} s")
        except Exception as error:  # fail closed, whatever the filter raised
            return _deny(tool, phase, f"raised {type(error).__name__}: {error}")
        elapsed = time.monotonic() - started
        if elapsed > self._timeout:
            return _deny(tool, phase, f"took {elapsed:.2f} s, over {self._timeout:g} s")
        if answer is not True:
            if answer is not False:
                return _deny(tool, phase, f"returned {answer!r}, not True or False")
            return False
        return True


async def _awaited(answer: Awaitable[Any]) -> Any:
    return await answer


def _deny(tool: Tool, phase: Phase, why: str) -> bool:
    logger.warning("tool filter denied %r in phase %r: the filter %s", tool.id, phase, why)
    return False
