"""Shared builders for the gateway tests: the test servers as real subprocesses, gateway
configs, `toolscout serve` processes, and real MCP client sessions over stdio and HTTP.

Every wait is bounded: a scenario runs under `run()`, which fails it after `HANG` seconds,
and every process is killed at teardown, so a hang can never stall the suite.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.limits import HANG
from tests.state.conftest import redis_url  # noqa: F401 - the real redis-server fixture

SERVERS = Path(__file__).parent / "servers"
TOOLSCOUT = Path(sys.executable).with_name("toolscout")
TOKEN = "test-token-0123456789"
_ResultT = TypeVar("_ResultT")


def run(scenario: Callable[[], Awaitable[_ResultT]], limit: float = HANG) -> _ResultT:
    """Run an async scenario to completion, failing it after `limit` seconds."""

    async def bounded() -> _ResultT:
        with anyio.fail_after(limit):
            return await scenario()

    return anyio.run(bounded)


def server(name: str, *args: str, **settings: Any) -> dict[str, Any]:
    """The config entry of a test server run over stdio."""
    return {"command": sys.executable, "args": [str(SERVERS / f"{name}.py"), *args], **settings}


async def until(condition: Callable[[], bool], limit: float = HANG) -> None:
    """Wait for `condition`, checking every 50 ms; `limit` only bounds a hang."""
    with anyio.fail_after(limit):
        while not condition():
            await anyio.sleep(0.05)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], limit: float = HANG) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the process exited with {process.returncode} before listening")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {limit:g} s")


def stop(process: subprocess.Popen[Any]) -> None:
    """Stop a process with SIGINT (the gateway then stops its upstreams), or kill it."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def files_url() -> Iterator[str]:
    """The files server over streamable HTTP, for the tests of one module."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "files.py"), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


@contextmanager
def http_server(script: str, *args: str, env: dict[str, str] | None = None) -> Iterator[int]:
    """A test server run as `script.py PORT-OPTION... args` on a free port: `{port}` in
    `args` is replaced by the port, which is yielded once something listens on it."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / f"{script}.py"), *(a.format(port=port) for a in args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        stop(process)


def write_config(folder: Path, servers: dict[str, Any], **sections: Any) -> Path:
    """A gateway config file in `folder`."""
    path = folder / "gateway.yaml"
    path.write_text(yaml.safe_dump({"servers": servers, **sections}, sort_keys=False))
    return path


class LoggedProcess:
    """A `toolscout` command as a subprocess; its stderr is kept in `lines`."""

    def __init__(
        self, args: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
    ):
        self.process = subprocess.Popen(
            [str(TOOLSCOUT), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            self._queue.put(line)

    def wait_for(self, pattern: str, limit: float = HANG) -> str:
        """The first group of the first stderr line from now on that matches `pattern`."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.1)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            found = re.search(pattern, line)
            if found:
                return found[1]
        raise RuntimeError(
            f"`toolscout {self.process.args[1]}` did not start:\n{''.join(self.lines)}"
        )  # type: ignore[index]

    def stop(self) -> None:
        stop(self.process)


class GatewayProcess(LoggedProcess):
    """`toolscout serve` as a subprocess, serving HTTP."""

    def __init__(self, config: Path, *args: str, env: dict[str, str] | None = None) -> None:
        super().__init__(["serve", "--config", str(config), "--transport", "http", *args], env=env)
        self._url: str | None = None

    def url(self, limit: float = HANG) -> str:
        """The URL it serves on, once it listens."""
        if self._url is None:
            self._url = self.wait_for(r"serving MCP on (http://\S+)", limit)
        return self._url


@asynccontextmanager
async def stdio_client(config: Path, **options: Any) -> AsyncIterator[Client]:
    """A real MCP client session with `toolscout serve --config config` over stdio;
    `options` go to the `Client` (callbacks, `mode`...). The gateway gets this process's
    environment (the SDK would pass only `PATH` and a few others), so that it runs the code
    under test, `PYTHONPATH` included."""
    parameters = StdioServerParameters(
        command=str(TOOLSCOUT), args=["serve", "--config", str(config)], env=dict(os.environ)
    )
    async with Client(parameters, **options) as client:
        yield client


@asynccontextmanager
async def http_client(url: str, token: str | None = TOKEN, **options: Any) -> AsyncIterator[Client]:
    """A real MCP client session with a gateway over streamable HTTP; `options` go to the
    `Client` (callbacks, `mode`...)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(HANG)) as http,
        Client(streamable_http_client(url, http_client=http), **options) as client,
    ):
        yield client
