"""What each conversation has discovered: the tool ids a thread's searches have revealed, in
discovery order, kept in memory, in a SQLite file or in Redis.

`RedisStore` is importable without the `redis` package; creating one needs it
(`pip install 'toolscout[redis]'`).
"""

from toolscout.state.base import AnonymousPolicy, StateStore, StoreStats, ThreadStore
from toolscout.state.memory import InMemoryStore
from toolscout.state.redis import RedisStore
from toolscout.state.sqlite import SQLiteStore

__all__ = [
    "AnonymousPolicy",
    "InMemoryStore",
    "RedisStore",
    "SQLiteStore",
    "StateStore",
    "StoreStats",
    "ThreadStore",
]
