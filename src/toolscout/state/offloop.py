"""`OffLoopStore`: a store's `load` and `save` for async code, run in worker threads of the
store's own and bounded by a deadline, so that a store that stalls (a Redis server that
accepts connections and never answers, a SQLite file another process keeps locked) delays
only the requests that wait for it, never the event loop that serves every other one."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from toolscout.errors import StoreUnavailableError
from toolscout.state.base import StateStore

_ResultT = TypeVar("_ResultT")

DEFAULT_WORKERS = 8
"""Threads one `OffLoopStore` runs store calls in, at most; they end after a minute idle."""

_IDLE_SECONDS = 60.0


class OffLoopStore:
    """`store`'s `load` and `save` as coroutines, each answered within `timeout` seconds or
    refused with `StoreUnavailableError`.

    A call runs in a worker thread. When its deadline passes, the caller gets the error at
    once; the thread finishes the call in the background (the store's own timeout, such as
    `RedisStore(timeout=...)` or `SQLiteStore(timeout=...)`, bounds how long), and a call
    that waited for a free thread past its deadline is dropped without reaching the store.
    So a stalled store holds at most `workers` threads, and never the event loop. The
    threads are daemons: a stalled store never keeps the process from exiting.
    """

    def __init__(self, store: StateStore, timeout: float, *, workers: int = DEFAULT_WORKERS):
        self.store = store
        self.timeout = timeout
        self._workers = _Workers(workers)

    async def load(self, thread_id: str | None, messages: Sequence[Any] = ()) -> list[str]:
        """`store.load(thread_id, messages)`, within the deadline."""
        return await self._call(functools.partial(self.store.load, thread_id, messages))

    async def save(self, thread_id: str | None, tool_ids: Sequence[str]) -> None:
        """`store.save(thread_id, tool_ids)`, within the deadline. A save whose deadline
        passed may still be recorded later: saves are idempotent, so that does no harm."""
        await self._call(functools.partial(self.store.save, thread_id, tool_ids))

    async def _call(self, call: Callable[[], _ResultT]) -> _ResultT:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_ResultT] = loop.create_future()
        self._workers.submit(_Job(call, time.monotonic() + self.timeout, loop, future))
        try:
            return await asyncio.wait_for(future, self.timeout)
        except TimeoutError:
            raise StoreUnavailableError(
                f"the {type(self.store).__name__} did not answer within {self.timeout:g} s"
            ) from None

    def __repr__(self) -> str:
        return f"OffLoopStore({self.store!r}, timeout={self.timeout:g})"


@dataclass(frozen=True)
class _Job(Generic[_ResultT]):
    call: Callable[[], _ResultT]
    deadline: float
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[_ResultT]

    def run(self) -> None:
        if time.monotonic() > self.deadline or self.future.done():
            return  # its caller has been answered already: leave the store alone
        try:
            result = self.call()
        except Exception as error:
            self._answer(self.future.set_exception, error)
        else:
            self._answer(self.future.set_result, result)

    def _answer(self, setter: Callable[[Any], None], value: Any) -> None:
        def answer() -> None:
            if not self.future.done():  # wait_for cancels it when the deadline passes
                setter(value)

        # The loop may have closed: a sync `prepare` that gave up and returned.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(answer)


class _Workers:
    """At most `size` daemon threads that run jobs in order: a job that finds no thread
    waiting starts one, and a thread ends after `_IDLE_SECONDS` without work."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._jobs: deque[_Job[Any]] = deque()
        self._ready = threading.Condition()
        self._threads = 0
        self._waiting = 0

    def submit(self, job: _Job[Any]) -> None:
        with self._ready:
            self._jobs.append(job)
            if self._waiting >= len(self._jobs) or self._threads >= self._size:
                self._ready.notify()
                return
            self._threads += 1
        threading.Thread(target=self._work, name="toolscout-store", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._ready:
                while not self._jobs:
                    self._waiting += 1
                    notified = self._ready.wait(timeout=_IDLE_SECONDS)
                    self._waiting -= 1
                    if not notified and not self._jobs:
                        self._threads -= 1
                        return
                job = self._jobs.popleft()
            job.run()
