"""What a discovered-tool store does, and the checks every store keyed by thread id shares."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, Protocol, Self, TypeAlias, runtime_checkable

from toolscout.errors import MissingThreadError, StateStoreError

AnonymousPolicy: TypeAlias = Literal["refuse", "isolate"]
"""What a store does with a request that has no thread id (`None` or `""`).

`"refuse"` (the default) raises `MissingThreadError`. `"isolate"` treats each such request as
a new conversation of its own: `load` returns `[]` and `save` records nothing. Either way, two
anonymous requests never share state."""

DEFAULT_TTL = 3600.0
"""Seconds a thread's state is kept after its last access (load or save)."""


@runtime_checkable
class StateStore(Protocol):
    """Remembers, per conversation thread, which tools the model has discovered, in discovery
    order."""

    def load(self, thread_id: str | None, messages: Sequence[Any] = ()) -> list[str]:
        """The tool ids discovered in this thread, first discovery first (`[]` for a new
        thread). `messages` is the conversation, for stores that derive state from it."""
        ...

    def save(self, thread_id: str | None, tool_ids: Sequence[str]) -> None:
        """Append the ids not yet recorded for this thread, keeping first-discovery order.
        Saving the same ids again changes nothing."""
        ...


@dataclass(frozen=True, slots=True)
class StoreStats:
    """How much a store holds, for monitoring."""

    threads: int
    """Threads whose state has not expired."""
    oldest_access: datetime | None
    """The least recent last access (load or save) among those threads, in UTC; `None` when
    the store is empty."""


class ThreadStore(ABC):
    """A store that keeps each thread's discovered tools under its thread id, for `ttl` seconds
    after the thread's last access.

    It checks every argument before touching any state, applies the `anonymous` policy, and
    leaves the storage to four hooks. `InMemoryStore`, `SQLiteStore` and `RedisStore` are
    its subclasses; a new backend needs only the hooks and `clear_all`, `stats`,
    `cleanup_now`.

    Args:
        ttl: seconds a thread's state lives after its last load or save; 0 keeps it forever.
        anonymous: what to do with requests that have no thread id (see `AnonymousPolicy`).
    """

    def __init__(self, *, ttl: float = DEFAULT_TTL, anonymous: AnonymousPolicy = "refuse") -> None:
        self.ttl = _check_ttl(ttl)
        self.anonymous = _check_anonymous(anonymous)

    def load(self, thread_id: str | None, messages: Sequence[Any] = ()) -> list[str]:
        """The tool ids discovered in this thread, first discovery first; `[]` for a new or
        expired thread. Counts as an access: the thread's TTL starts again. `messages` is not
        read: this store keeps its own record."""
        thread = self._thread(thread_id)
        return [] if thread is None else self._load(thread)

    def save(self, thread_id: str | None, tool_ids: Sequence[str]) -> None:
        """Append the ids this thread has not discovered yet, in the order given; ids already
        recorded keep their place. Atomic: every id is checked before any is recorded."""
        ids = _check_tool_ids(tool_ids)
        thread = self._thread(thread_id)
        if thread is not None:
            self._save(thread, ids)

    def clear(self, thread_id: str | None) -> None:
        """Forget this thread's discovered tools."""
        thread = self._thread(thread_id)
        if thread is not None:
            self._clear(thread)

    @abstractmethod
    def clear_all(self) -> None:
        """Forget every thread's discovered tools."""

    @abstractmethod
    def stats(self) -> StoreStats:
        """How many threads have state that has not expired, and the oldest last access among
        them. Changes nothing."""

    @abstractmethod
    def cleanup_now(self) -> int:
        """Delete the state of every expired thread now; returns how many threads it deleted.

        Stores also delete expired state as they are used, so this finds only what expired
        since the last load or save."""

    def close(self) -> None:  # noqa: B027 - a store without connections has nothing to close
        """Release connections; the stored state stays where it is."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @abstractmethod
    def _load(self, thread_id: str) -> list[str]:
        """The thread's ids in discovery order, refreshing its last access if it exists."""

    @abstractmethod
    def _save(self, thread_id: str, tool_ids: list[str]) -> None:
        """Append the new ones of `tool_ids` (already unique) and refresh the last access.
        With no new ids, only refresh the last access of a thread that exists."""

    @abstractmethod
    def _clear(self, thread_id: str) -> None:
        """Delete the thread's state."""

    def _thread(self, thread_id: str | None) -> str | None:
        """The thread id to store under, or None for an anonymous request to isolate."""
        if thread_id is None or thread_id == "":
            if self.anonymous == "isolate":
                return None
            raise MissingThreadError(
                "No thread id: pass the conversation's thread id (thread_id=...) so that its "
                "discovered tools are kept apart from other conversations', or create the store "
                "with anonymous='isolate' to give each request without one an empty state that "
                "is never saved."
            )
        if not isinstance(thread_id, str):
            raise StateStoreError(
                f"thread_id must be a string or None, got {type(thread_id).__name__}"
            )
        _check_text(thread_id, "thread_id")
        return thread_id


def _check_tool_ids(tool_ids: Iterable[str]) -> list[str]:
    """The ids, each once in first-occurrence order, after checking each is non-empty text."""
    if isinstance(tool_ids, str | bytes):
        raise StateStoreError(
            "tool_ids must be a list of tool ids, not a single string; "
            f"wrap it in a list: [{tool_ids!r}]"
        )
    try:
        ids = list(tool_ids)
    except TypeError:
        raise StateStoreError(
            f"tool_ids must be a list of tool ids, got {type(tool_ids).__name__}"
        ) from None
    for position, tool_id in enumerate(ids):
        if not isinstance(tool_id, str) or not tool_id:
            got = "an empty string" if tool_id == "" else type(tool_id).__name__
            raise StateStoreError(f"tool_ids[{position}] must be a non-empty string, got {got}")
        _check_text(tool_id, f"tool_ids[{position}]")
    return list(dict.fromkeys(ids))


def _check_text(value: str, name: str) -> None:
    """Refuse strings that cannot be stored as UTF-8 (lone surrogates), so that every store,
    in memory, SQLite or Redis, accepts exactly the same ids."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise StateStoreError(
            f"{name} is not valid Unicode text: it has a lone surrogate at position {error.start}"
        ) from None


def _check_ttl(ttl: float) -> float:
    if isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise StateStoreError(f"ttl must be a number of seconds, got {type(ttl).__name__}")
    if not math.isfinite(ttl) or ttl < 0:
        raise StateStoreError(f"ttl must be 0 (never expire) or a positive number, got {ttl}")
    return float(ttl)


def _check_anonymous(anonymous: str) -> AnonymousPolicy:
    if anonymous == "refuse":
        return "refuse"
    if anonymous == "isolate":
        return "isolate"
    raise StateStoreError(f"anonymous must be 'refuse' or 'isolate', got {anonymous!r}")
