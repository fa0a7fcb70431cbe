"""Stores to run the provider loops against: every store `toolscout.state` exports, plus
ContextStore; Redis on the real redis-server of the store tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import toolscout.state
from tests.state.conftest import FakeClock, redis_url  # noqa: F401 - the fixture, reused
from toolscout.protocol import ContextStore

StoreFactory = Callable[[], Any]
#: Store kinds, by the class `toolscout.state` exports for each.
EXPORTED = {"memory": "InMemoryStore", "sqlite": "SQLiteStore", "redis": "RedisStore"}
STORES = [kind for kind, name in EXPORTED.items() if hasattr(toolscout.state, name)] + ["context"]
PERSISTENT = [kind for kind in STORES if kind != "memory"]


class StoreMaker:
    """Makes stores of one kind over one backend: a second store made is what a restarted
    process would open."""

    def __init__(self, kind: str, folder: Path, request: pytest.FixtureRequest) -> None:
        self.kind = kind
        self.clock = FakeClock()
        self._folder = folder
        self._request = request
        self._made: list[Any] = []

    def __call__(self, **options: Any) -> Any:
        state = toolscout.state
        store: Any
        if self.kind == "memory":
            store = state.InMemoryStore(clock=self.clock, **options)
        elif self.kind == "sqlite":
            store = state.SQLiteStore(self._folder / "state.db", clock=self.clock, **options)
        elif self.kind == "redis":
            url = self._request.getfixturevalue("redis_url")
            store = state.RedisStore(url, key_prefix=f"test:{id(self)}:", **options)
        else:
            return ContextStore()
        self._made.append(store)
        return store

    def close(self) -> None:
        for store in self._made:
            store.close()


@pytest.fixture(params=STORES)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreMaker]:
    maker = StoreMaker(str(request.param), tmp_path, request)
    yield maker
    maker.close()


@pytest.fixture(params=PERSISTENT)
def make_persistent_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreMaker]:
    maker = StoreMaker(str(request.param), tmp_path, request)
    yield maker
    maker.close()
