"""`RedisStore`: discovered tools per thread in Redis, shared by agent and gateway processes
on any number of machines. Needs the `redis` extra: `pip install 'toolscout[redis]'`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from toolscout.errors import StateStoreError, StoreUnavailableError, require_extra
from toolscout.state.base import DEFAULT_TTL, AnonymousPolicy, StoreStats, ThreadStore

if TYPE_CHECKING:
    from redis import Redis

DEFAULT_KEY_PREFIX = "toolscout:discovered:"

# Every script gets KEYS = [the thread's key, the index of threads] and ARGV = [ttl in ms
# (0: never expire), thread id, ...]. A thread's key is a sorted set of its tool ids scored
# 1, 2, 3... in discovery order. The index is a sorted set of thread ids scored by their last
# access, in ms of the server's clock, so that every client agrees on what has expired.
_PRELUDE = """
local ttl = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- Removes the index entries of expired threads (their keys expired by themselves), at most
-- `limit` of them when given, so that one call never does unbounded work.
local function sweep(limit)
  if ttl == 0 then return 0 end
  local expired = redis.call('ZCOUNT', KEYS[2], '-inf', string.format('%.0f', now - ttl))
  if limit and expired > limit then expired = limit end
  if expired > 0 then redis.call('ZREMRANGEBYRANK', KEYS[2], 0, expired - 1) end
  return expired
end

local function touch()
  if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) else redis.call('PERSIST', KEYS[1]) end
  redis.call('ZADD', KEYS[2], string.format('%.0f', now), ARGV[2])
end
"""

_LOAD = (
    _PRELUDE
    + """
sweep(100)
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
if #ids > 0 then touch() end
return ids
"""
)

_SAVE = (
    _PRELUDE
    + """
sweep(100)
local count = redis.call('ZCARD', KEYS[1])
for i = 3, #ARGV do
  if redis.call('ZADD', KEYS[1], 'NX', count + 1, ARGV[i]) == 1 then count = count + 1 end
end
if count > 0 then touch() end
return count
"""
)

_STATS = (
    _PRELUDE
    + """
local live = ttl == 0 and '-inf' or string.format('(%.0f', now - ttl)
local oldest = redis.call('ZRANGEBYSCORE', KEYS[2], live, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {redis.call('ZCOUNT', KEYS[2], live, '+inf'), oldest[2] or false}
"""
)

_CLEANUP = _PRELUDE + "return sweep(nil)"


class RedisStore(ThreadStore):
    """Each thread's discovered tools in Redis, shared by every process, on any machine,
    that uses the same server and `key_prefix`.

    Each load and save is one Lua script, so it is atomic: two gateways saving to one thread
    at the same time never repeat or lose an id, and both see the first-discovery order.
    A thread's state is one key, `{key_prefix}thread:{thread_id}`, that Redis deletes `ttl`
    seconds after its last access; `{key_prefix}threads` indexes the threads by last access
    for `stats()` and `cleanup_now()`. The thread id is stored as it is, so any string is a
    safe id. All stores that share a prefix should use the same `ttl`. Redis Cluster is not
    supported (a script touches two keys that may be in different slots).

    Args:
        url: where the server is, as `redis.Redis.from_url` reads it:
            `redis://[user:password@]host:port/db`, `rediss://...` (TLS) or
            `unix:///path/to/socket`.
        ttl: seconds a thread's state lives after its last access; 0 keeps it until cleared.
        key_prefix: the start of every key this store writes.
        anonymous: `"refuse"` raises `MissingThreadError` for a request without a thread id,
            `"isolate"` gives it an empty state that is never saved.
        timeout: seconds to wait for the server to accept a connection, and for each answer.

    Raises:
        StateStoreError: an invalid URL (when the store is made); a server that refuses a
            command (a key of the prefix holding another type, a read-only replica).
        StoreUnavailableError: the server cannot be reached, refuses the credentials, or
            does not answer within `timeout` (any method). Messages quote the URL without
            its password.
    """

    def __init__(
        self,
        url: str = "redis://localhost:6379/0",
        *,
        ttl: float = DEFAULT_TTL,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        anonymous: AnonymousPolicy = "refuse",
        timeout: float = 5.0,
    ) -> None:
        super().__init__(ttl=ttl, anonymous=anonymous)
        if not isinstance(key_prefix, str) or not key_prefix:
            raise StateStoreError(f"key_prefix must be a non-empty string, got {key_prefix!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise StateStoreError(f"timeout must be a positive number of seconds, got {timeout!r}")
        with require_extra("redis", feature="RedisStore"):
            import redis
        self.key_prefix = key_prefix
        self.timeout = float(timeout)
        self._where = _without_password(url)
        try:
            self._client: Redis = redis.Redis.from_url(
                url, socket_timeout=self.timeout, socket_connect_timeout=self.timeout
            )
        except ValueError as error:
            raise StateStoreError(f"invalid Redis URL {self._where!r}: {error}") from None
        self._ttl_ms = max(1, round(self.ttl * 1000)) if self.ttl > 0 else 0
        self._index = f"{key_prefix}threads"
        self._load_script = self._client.register_script(_LOAD)
        self._save_script = self._client.register_script(_SAVE)
        self._stats_script = self._client.register_script(_STATS)
        self._cleanup_script = self._client.register_script(_CLEANUP)

    def clear_all(self) -> None:
        pattern = _glob_escape(self.key_prefix) + "thread:*"
        batch: list[bytes] = []
        with self._errors():
            for key in self._client.scan_iter(match=pattern, count=1000):
                batch.append(key)
                if len(batch) == 1000:
                    self._client.unlink(*batch)
                    batch.clear()
            if batch:
                self._client.unlink(*batch)
            self._client.unlink(self._index)

    def stats(self) -> StoreStats:
        with self._errors():
            threads, oldest = self._stats_script(keys=self._keys(""), args=[self._ttl_ms, ""])
        return StoreStats(
            threads=int(threads),
            oldest_access=None if not oldest else datetime.fromtimestamp(float(oldest) / 1000, UTC),
        )

    def cleanup_now(self) -> int:
        with self._errors():
            return int(self._cleanup_script(keys=self._keys(""), args=[self._ttl_ms, ""]))

    def close(self) -> None:
        self._client.close()

    def _load(self, thread_id: str) -> list[str]:
        with self._errors():
            ids = self._load_script(keys=self._keys(thread_id), args=[self._ttl_ms, thread_id])
        return [tool_id.decode() for tool_id in ids]

    def _save(self, thread_id: str, tool_ids: list[str]) -> None:
        with self._errors():
            self._save_script(keys=self._keys(thread_id), args=[self._ttl_ms, thread_id, *tool_ids])

    def _clear(self, thread_id: str) -> None:
        with self._errors(), self._client.pipeline(transaction=True) as pipeline:
            pipeline.delete(self._key(thread_id))
            pipeline.zrem(self._index, thread_id)
            pipeline.execute()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """redis-py's errors as toolscout's: a server that cannot be reached or does not
        answer makes the store unavailable; one that refuses a command, unusable."""
        from redis import exceptions

        try:
            yield
        except (exceptions.ConnectionError, exceptions.TimeoutError) as error:
            raise StoreUnavailableError(
                f"the Redis store at {self._where} is not answering: {error}"
            ) from None
        except exceptions.RedisError as error:
            raise StateStoreError(
                f"the Redis server at {self._where} refused a command: {error}"
            ) from None

    def _key(self, thread_id: str) -> str:
        # "thread:" keeps every thread's key apart from the index, whatever the id.
        return f"{self.key_prefix}thread:{thread_id}"

    def _keys(self, thread_id: str) -> list[str]:
        return [self._key(thread_id), self._index]


def _without_password(url: str) -> str:
    """`url` with any password (`user:password@`, `?password=`) replaced by `***`, fit for
    messages and logs."""
    url = re.sub(r"^([A-Za-z][\w+.-]*://[^/?#@:]*:)[^/?#@]*@", r"\1***@", url)
    return re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", url)


def _glob_escape(text: str) -> str:
    """`text` as a SCAN pattern that matches only itself."""
    return "".join("\\" + char if char in "\\*?[]" else char for char in text)
