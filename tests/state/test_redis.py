"""What only `RedisStore` does: its keys, their expiry, and the optional dependency."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.limits import HANG
from toolscout.errors import MissingExtraError, StateStoreError, StoreUnavailableError
from toolscout.state import RedisStore
from toolscout.state.redis import DEFAULT_KEY_PREFIX

from .conftest import free_port
from .stalled import silent_redis


@pytest.fixture
def client(redis_url: str) -> Iterator[Any]:
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


class TestKeys:
    def test_a_thread_is_one_key_under_the_prefix(
        self, redis_url: str, client: Any, prefix: str
    ) -> None:
        with RedisStore(redis_url, key_prefix=prefix) as store:
            store.save("user:1 ✓", ["a", "b"])
        assert sorted(client.keys(f"{prefix}*")) == [f"{prefix}thread:user:1 ✓", f"{prefix}threads"]
        assert client.zrange(f"{prefix}thread:user:1 ✓", 0, -1, withscores=True) == [
            ("a", 1.0),
            ("b", 2.0),
        ]

    def test_the_default_prefix(self) -> None:
        assert DEFAULT_KEY_PREFIX == "toolscout:discovered:"

    def test_stores_with_other_prefixes_share_nothing(self, redis_url: str, prefix: str) -> None:
        with (
            RedisStore(redis_url, key_prefix=prefix + "one:") as one,
            RedisStore(redis_url, key_prefix=prefix + "two:") as two,
        ):
            one.save("t", ["a"])
            two.save("t", ["b"])
            assert one.load("t") == ["a"]
            assert two.load("t") == ["b"]
            assert one.stats().threads == 1

    def test_clear_all_deletes_only_its_own_prefix(
        self, redis_url: str, client: Any, prefix: str
    ) -> None:
        # A prefix with glob characters must not match the keys of a neighbour.
        with (
            RedisStore(redis_url, key_prefix=prefix + "[ab]*?") as globby,
            RedisStore(redis_url, key_prefix=prefix + "a") as neighbour,
        ):
            for number in range(2_500):  # more than one batch of deletes
                globby.save(f"t{number}", ["x"])
            neighbour.save("thread:t1", ["y"])
            globby.clear_all()
            assert client.keys(f"{prefix}\\[*") == []
            assert neighbour.load("thread:t1") == ["y"]
            assert globby.stats().threads == 0

    @pytest.mark.parametrize("key_prefix", ["", None, 42])
    def test_an_empty_prefix_is_refused(self, redis_url: str, key_prefix: Any) -> None:
        with pytest.raises(StateStoreError, match="key_prefix must be a non-empty string"):
            RedisStore(redis_url, key_prefix=key_prefix)


class TestExpiry:
    def test_the_key_expires_by_itself_ttl_after_the_last_access(
        self, redis_url: str, client: Any, prefix: str
    ) -> None:
        with RedisStore(redis_url, ttl=90, key_prefix=prefix) as store:
            store.save("t", ["a"])
            client.pexpire(f"{prefix}thread:t", 5_000)
            store.load("t")
        assert 89_000 < client.pttl(f"{prefix}thread:t") <= 90_000

    def test_ttl_0_sets_no_expiry(self, redis_url: str, client: Any, prefix: str) -> None:
        with RedisStore(redis_url, ttl=0, key_prefix=prefix) as store:
            store.save("t", ["a"])
        assert client.pttl(f"{prefix}thread:t") == -1


class TestUnreachableServer:
    def test_a_server_that_is_not_there_is_unavailable(self) -> None:
        pytest.importorskip("redis")
        url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
        store = RedisStore(url, timeout=1)
        for call in (lambda: store.load("t"), lambda: store.save("t", ["a"]), store.stats):
            with pytest.raises(StoreUnavailableError, match="is not answering") as raised:
                call()
            assert "hunter2" not in str(raised.value)
            assert ":***@127.0.0.1" in str(raised.value)

    def test_a_server_that_never_answers_is_unavailable_after_the_timeout(self) -> None:
        pytest.importorskip("redis")
        with silent_redis() as url:
            store = RedisStore(url, timeout=0.3)
            with pytest.raises(StoreUnavailableError, match=r"Timeout reading from"):
                store.load("t")

    @pytest.mark.parametrize("url", ["http://localhost:6379", "redis://:pw@[::1"])
    def test_an_invalid_url_is_refused_when_the_store_is_made(self, url: str) -> None:
        pytest.importorskip("redis")
        with pytest.raises(StateStoreError, match="invalid Redis URL") as raised:
            RedisStore(url)
        assert ":pw@" not in str(raised.value)

    @pytest.mark.parametrize("timeout", [0, -1, True, "5"])
    def test_an_impossible_timeout_is_refused(self, timeout: Any) -> None:
        with pytest.raises(StateStoreError, match="timeout must be a positive number"):
            RedisStore(timeout=timeout)

    def test_a_key_of_another_type_is_a_clear_error(
        self, redis_url: str, client: Any, prefix: str
    ) -> None:
        client.set(f"{prefix}thread:t", "not a sorted set")
        with pytest.raises(StateStoreError, match="refused a command: WRONGTYPE"):
            RedisStore(redis_url, key_prefix=prefix).load("t")


class TestMissingExtra:
    def test_creating_a_store_without_redis_names_the_extra(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setitem(sys.modules, "redis", None)  # makes `import redis` fail
        with pytest.raises(MissingExtraError, match=r"pip install 'toolscout\[redis\]'") as error:
            RedisStore("redis://localhost:6379/0")
        assert isinstance(error.value, ImportError)

    def test_the_state_package_imports_without_redis(self) -> None:
        code = (
            "import sys; sys.modules['redis'] = None\n"
            "from toolscout.state import RedisStore, SQLiteStore, InMemoryStore\n"
            "print('imported')"
        )
        finished = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG, check=False
        )
        assert finished.stdout == "imported\n", finished.stderr
