"""`OffLoopStore`: a store's `load` and `save` for async code, run in worker threads of the
store's own and bounded by a deadline, so that a store that stalls (a Redis server that
accepts connections and never answers, a SQLite file another process keeps locked) delays
only the requests that wait for it, never the event loop that serves every other one."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from toolscout.errors import StoreUnavailableError
from toolscout.state.base import StateStore
from toolscout.workers import DeadlineWorkers

_ResultT = TypeVar("_ResultT")

DEFAULT_WORKERS = 8
"""Threads one `OffLoopStore` runs store calls in, at most; they end after a minute idle."""


class OffLoopStore:
    """`store`'s `load` and `save` as coroutines, each answered within `timeout` seconds or
    refused with `StoreUnavailableError`.

    A call runs in a worker thread (`toolscout.workers`). When its deadline passes, the
    caller gets the error at once; the thread finishes the call in the background (the
    store's own timeout, such as `RedisStore(timeout=...)` or `SQLiteStore(timeout=...)`,
    bounds how long), and a call that waited for a free thread past its deadline is dropped
    without reaching the store. So a stalled store holds at most `workers` threads, and
    never the event loop.
    """

    def __init__(self, store: StateStore, timeout: float, *, workers: int = DEFAULT_WORKERS):
        self.store = store
        self.timeout = timeout
        self._workers = DeadlineWorkers(workers, "toolscout-store")

    async def load(self, thread_id: str | None, messages: Sequence[Any] = ()) -> list[str]:
        """`store.load(thread_id, messages)`, within the deadline."""
        return await self._call(functools.partial(self.store.load, thread_id, messages))

    async def save(self, thread_id: str | None, tool_ids: Sequence[str]) -> None:
        """`store.save(thread_id, tool_ids)`, within the deadline. A save whose deadline
        passed may still be recorded later: saves are idempotent, so that does no harm."""
        await self._call(functools.partial(self.store.save, thread_id, tool_ids))

    async def _call(self, call: Callable[[], _ResultT]) -> _ResultT:
        try:
            return await self._workers.run(call, self.timeout)
        except TimeoutError:
            raise StoreUnavailableError(
                f"the {type(self.store).__name__} did not answer within {self.timeout:g} s"
            ) from None

    def __repr__(self) -> str:
        return f"OffLoopStore({self.store!r}, timeout={self.timeout:g})"
