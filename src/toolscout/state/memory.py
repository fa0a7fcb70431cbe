"""`InMemoryStore`: discovered tools per thread in this process's memory."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from toolscout.errors import StateStoreError
from toolscout.state.base import DEFAULT_TTL, AnonymousPolicy, StoreStats, ThreadStore


@dataclass(slots=True)
class _Thread:
    last_access: float
    tool_ids: list[str] = field(default_factory=list)
    known: set[str] = field(default_factory=set)


class InMemoryStore(ThreadStore):
    """Each thread's discovered tools, in this process's memory: lost at restart and not
    shared between processes (use `SQLiteStore` or `RedisStore` for that). Safe to use from
    several threads at once.

    A thread's state expires `ttl` seconds after its last load or save. Expired threads are
    deleted as the store is used, oldest first, and by `cleanup_now()`.

    Args:
        ttl: seconds a thread's state lives after its last access; 0 keeps it until cleared.
        max_threads: the most threads kept; saving to a new thread beyond it forgets the least
            recently used one, as if it had expired. `None` (the default) sets no bound.
        anonymous: `"refuse"` raises `MissingThreadError` for a request without a thread id,
            `"isolate"` gives it an empty state that is never saved.
        clock: seconds since the epoch, `time.time` by default; tests pass a fake one.
    """

    def __init__(
        self,
        ttl: float = DEFAULT_TTL,
        *,
        max_threads: int | None = None,
        anonymous: AnonymousPolicy = "refuse",
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(ttl=ttl, anonymous=anonymous)
        if max_threads is not None and (
            isinstance(max_threads, bool) or not isinstance(max_threads, int) or max_threads < 1
        ):
            raise StateStoreError(
                f"max_threads must be a positive integer or None, got {max_threads!r}"
            )
        self.max_threads = max_threads
        self._clock = clock
        self._lock = threading.Lock()
        # Least recently used first: expired and evicted threads are always at the front.
        self._threads: OrderedDict[str, _Thread] = OrderedDict()

    def clear_all(self) -> None:
        with self._lock:
            self._threads.clear()

    def stats(self) -> StoreStats:
        with self._lock:
            now = self._clock()
            live = [thread for thread in self._threads.values() if not self._expired(thread, now)]
        oldest = min((thread.last_access for thread in live), default=None)
        return StoreStats(
            threads=len(live),
            oldest_access=None if oldest is None else datetime.fromtimestamp(oldest, UTC),
        )

    def cleanup_now(self) -> int:
        with self._lock:
            now = self._clock()
            expired = [key for key, thread in self._threads.items() if self._expired(thread, now)]
            for key in expired:
                del self._threads[key]
            return len(expired)

    def _load(self, thread_id: str) -> list[str]:
        with self._lock:
            thread = self._touch(thread_id)
            return [] if thread is None else list(thread.tool_ids)

    def _save(self, thread_id: str, tool_ids: list[str]) -> None:
        with self._lock:
            thread = self._touch(thread_id)
            if thread is None:
                if not tool_ids:
                    return
                thread = self._threads[thread_id] = _Thread(last_access=self._clock())
                if self.max_threads is not None and len(self._threads) > self.max_threads:
                    self._threads.popitem(last=False)
            for tool_id in tool_ids:
                if tool_id not in thread.known:
                    thread.known.add(tool_id)
                    thread.tool_ids.append(tool_id)

    def _clear(self, thread_id: str) -> None:
        with self._lock:
            self._threads.pop(thread_id, None)

    def _touch(self, thread_id: str) -> _Thread | None:
        """The thread's live state, now its most recent access; deletes expired threads."""
        now = self._clock()
        while self._threads:
            oldest = next(iter(self._threads.values()))
            if not self._expired(oldest, now):
                break
            self._threads.popitem(last=False)
        thread = self._threads.get(thread_id)
        if thread is not None and self._expired(thread, now):
            # A clock that went back can leave an expired thread behind a live one.
            del self._threads[thread_id]
            thread = None
        if thread is not None:
            thread.last_access = now
            self._threads.move_to_end(thread_id)
        return thread

    def _expired(self, thread: _Thread, now: float) -> bool:
        return self.ttl > 0 and now >= thread.last_access + self.ttl
