"""`DeadlineWorkers`: blocking calls for async code, run in daemon threads of their own and
answered within a deadline, so that a call that blocks (a store that stalls, a slow check)
holds neither the event loop nor the threads that asyncio lends to everything else."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

_ResultT = TypeVar("_ResultT")

_IDLE_SECONDS = 60.0


class DeadlineWorkers:
    """At most `size` daemon threads named `name`, which run calls in order.

    A call not answered within its timeout raises `TimeoutError` in its caller at once; its
    thread finishes it in the background, and a call still waiting for a free thread when
    its deadline passes is dropped without being run. So a call that blocks holds at most
    `size` threads, and the threads never keep the process from exiting. A thread starts
    when a call finds none waiting, and ends after a minute without work.
    """

    def __init__(self, size: int, name: str) -> None:
        self.size = size
        self.name = name
        self._jobs: deque[_Job[Any]] = deque()
        self._ready = threading.Condition()
        self._threads = 0
        self._waiting = 0

    async def run(self, call: Callable[[], _ResultT], timeout: float) -> _ResultT:
        """`call()`, in a worker thread, within `timeout` seconds.

        Raises:
            TimeoutError: no answer in time.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_ResultT] = loop.create_future()
        self._submit(_Job(call, time.monotonic() + timeout, loop, future))
        return await asyncio.wait_for(future, timeout)

    def _submit(self, job: _Job[Any]) -> None:
        with self._ready:
            self._jobs.append(job)
            if self._waiting >= len(self._jobs) or self._threads >= self.size:
                self._ready.notify()
                return
            self._threads += 1
        threading.Thread(target=self._work, name=self.name, daemon=True).start()

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


@dataclass(frozen=True)
class _Job(Generic[_ResultT]):
    call: Callable[[], _ResultT]
    deadline: float
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[_ResultT]

    def run(self) -> None:
        if time.monotonic() > self.deadline or self.future.done():
            return  # its caller has been answered already: nothing to do
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
