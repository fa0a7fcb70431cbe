"""Shared builders for the store tests: each kind of store over a fresh backend, a real
redis-server, a clock the tests move, and writers in separate processes."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.limits import HANG
from toolscout.state import InMemoryStore, RedisStore, SQLiteStore, ThreadStore

STORE_KINDS = ("memory", "sqlite", "redis")
PERSISTENT_KINDS = ("sqlite", "redis")
WRITER = Path(__file__).with_name("writer.py")
# A throwaway server: nothing written to disk.
SERVER_OPTIONS = ["--save", "", "--appendonly", "no", "--loglevel", "warning"]


class FakeClock:
    """Seconds since the epoch, starting now and moving only when told."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Stores:
    """Makes stores of one kind that share one backend (a SQLite file, a Redis key prefix of
    their own), and moves their time: a fake clock for memory and SQLite; for Redis, whose
    keys expire by the server's clock, the stores' data is aged instead (see `_age_redis`),
    so no test sleeps and none depends on how fast the machine is."""

    def __init__(self, kind: str, folder: Path, redis_url: str | None) -> None:
        self.kind = kind
        self.clock = FakeClock()
        self.path = folder / "state.db"
        self.redis_url = redis_url
        self.key_prefix = f"test:{uuid.uuid4().hex}:"
        self._made: list[ThreadStore] = []

    def make(self, **options: Any) -> ThreadStore:
        store: ThreadStore
        if self.kind == "memory":
            store = InMemoryStore(clock=self.clock, **options)
        elif self.kind == "sqlite":
            store = SQLiteStore(self.path, clock=self.clock, **options)
        else:
            options.setdefault("key_prefix", self.key_prefix)
            store = RedisStore(self.redis_url or "", **options)
        self._made.append(store)
        return store

    def advance(self, seconds: float) -> None:
        if self.kind == "redis":
            _age_redis(self.redis_url or "", self.key_prefix, seconds)
        else:
            self.clock.advance(seconds)

    def writer_arguments(self) -> list[str]:
        """How `writer.py` opens this backend."""
        if self.kind == "sqlite":
            return ["sqlite", str(self.path)]
        assert self.kind == "redis" and self.redis_url
        return ["redis", self.redis_url, self.key_prefix]

    def close_all(self) -> None:
        for store in self._made:
            store.close()


def _stores(request: pytest.FixtureRequest, folder: Path) -> Iterator[Stores]:
    kind = str(request.param)
    redis_url = str(request.getfixturevalue("redis_url")) if kind == "redis" else None
    stores = Stores(kind, folder, redis_url)
    yield stores
    stores.close_all()


@pytest.fixture(params=STORE_KINDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    """Stores of each kind in turn."""
    yield from _stores(request, tmp_path)


@pytest.fixture(params=PERSISTENT_KINDS)
def shared_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    """Stores of each kind whose state outlives the store object and its process."""
    yield from _stores(request, tmp_path)


@pytest.fixture
def store(stores: Stores) -> ThreadStore:
    return stores.make()


def _unavailable(reason: str) -> None:
    """Skip locally; in CI, where the Redis tests must run, fail."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the RedisStore tests: see .ci/run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on a free loopback port, with its files in a temporary folder."""
    binary = shutil.which("redis-server")
    if binary is None:
        _unavailable("redis-server is not installed (apt-get install redis-server)")
    try:
        import redis
    except ImportError:
        _unavailable("the redis package is not installed (pip install -e '.[redis]')")
    folder = tmp_path_factory.mktemp("redis")
    for _attempt in range(3):  # another process may take the port before the server does
        port = free_port()
        server = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(folder),
                *SERVER_OPTIONS,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        if _wait_until_ready(server, redis.Redis.from_url(url)):
            break
        server.kill()
        server.wait()
    else:
        pytest.fail("redis-server did not start")
    yield url
    server.terminate()
    server.wait(timeout=10)


def _age_redis(url: str, key_prefix: str, seconds: float) -> None:
    """Makes the keys under `key_prefix` look `seconds` older to the server: each thread's
    key lives that much less (a key whose time is up is deleted, as Redis would have done),
    and the index's access times, in milliseconds, move back by as much. To the stores, the
    server's clock has moved on."""
    import redis

    client = redis.Redis.from_url(url)
    shift = round(seconds * 1000)
    index = f"{key_prefix}threads".encode()
    try:
        for key in client.scan_iter(match=f"{key_prefix}*"):
            if key == index:
                scores = client.zrange(key, 0, -1, withscores=True)
                client.zadd(key, {member: score - shift for member, score in scores})
                continue
            left = client.pttl(key)  # -1: it never expires
            if left > shift:
                client.pexpire(key, left - shift)
            elif left >= 0:
                client.delete(key)
    finally:
        client.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_ready(server: subprocess.Popen[bytes], client: Any) -> bool:
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline and server.poll() is None:
        try:
            if client.ping():
                return True
        except Exception:
            time.sleep(0.02)
    return False


def run_writers(stores: Stores, workers: int, count: int) -> None:
    """Runs `workers` copies of writer.py at once against the stores' backend; each saves
    `count` times (see writer.py for what)."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(WRITER), *stores.writer_arguments(), str(worker), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(workers)
    ]
    try:
        for process in processes:  # every writer has its store open before any writes
            assert process.stdout is not None
            if process.stdout.readline() != "ready\n":
                pytest.fail(f"a writer did not start:\n{process.communicate()[1]}")
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        for process in processes:
            output, errors = process.communicate(timeout=HANG)
            assert process.returncode == 0, errors
            assert output == "done\n"
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
