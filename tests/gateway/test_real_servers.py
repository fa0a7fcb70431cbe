"""Real third-party MCP servers from PyPI (`mcp-server-time`, `mcp-server-fetch`,
`mcp-server-git`, pinned in the `dev` extra) through `toolscout serve`, over stdio and over
streamable HTTP, with a real MCP client: found by search, called by id, their results
passed through. Nothing leaves the machine: fetch reads a page served on loopback."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.gateway.conftest import GatewayProcess, http_client, run, stdio_client
from tests.gateway.test_lifecycle import call, find, text

BIN = Path(sys.executable).parent
PAGE = "<html><body><h1>Tool search</h1><p>Served on loopback for the fetch server.</p>"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("real")


@pytest.fixture(scope="module")
def repository(folder: Path) -> Path:
    """A git repository with one commit."""
    repo = folder / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# A repository for the gateway's tests\n")
    author = ["-c", "user.name=Test", "-c", "user.email=test@example.com"]
    for command in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "Add a readme"]):
        subprocess.run(["git", *author, *command], cwd=repo, check=True)
    return repo


@pytest.fixture(scope="module")
def page(folder: Path) -> Iterator[str]:
    """A web page served on loopback."""
    site = folder / "site"
    site.mkdir()
    (site / "index.html").write_text(PAGE)
    handler = functools.partial(_QuietHandler, directory=str(site))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}/index.html"
        httpd.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def config(folder: Path, repository: Path) -> Path:
    path = folder / "claude_desktop_config.json"
    servers = {
        "time": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "fetch": {
            "command": str(BIN / "mcp-server-fetch"),
            "args": ["--ignore-robots-txt", "--allow-private-ips"],
        },
        "git": {"command": str(BIN / "mcp-server-git"), "args": ["--repository", str(repository)]},
    }
    # A busy machine starts three Python servers slowly.
    path.write_text(json.dumps({"mcpServers": servers}))
    (folder / "claude_desktop_config.toolscout.yaml").write_text(
        "gateway:\n  connect_timeout: 90\n"
    )
    return path


@pytest.fixture(scope="module")
def http_gateway(config: Path) -> Iterator[str]:
    gateway = GatewayProcess(config, "--port", "0")
    try:
        yield gateway.url(120)
    finally:
        gateway.stop()


Connect = Callable[[], AbstractAsyncContextManager[Client]]


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, config: Path) -> Connect:
    if request.param == "stdio":
        return lambda: stdio_client(config)
    url = request.getfixturevalue("http_gateway")

    @asynccontextmanager
    async def over_http() -> AsyncIterator[Client]:
        async with http_client(url, token=None) as client:
            yield client

    return over_http


def test_their_tools_are_found_and_called(connect: Connect, page: str, repository: Path) -> None:
    async def scenario() -> dict[str, Any]:
        async with connect() as client:
            return {
                "listed": [tool.name for tool in (await client.list_tools()).tools],
                "time": await find(client, "convert a time between time zones"),
                "fetch": await find(client, "fetch a web page from a url"),
                "git": await find(client, "show the commit log of a git repository"),
                "converted": text(
                    await call(
                        client,
                        "time__convert_time",
                        source_timezone="UTC",
                        time="12:00",
                        target_timezone="Asia/Tokyo",
                    )
                ),
                "fetched": text(await call(client, "fetch__fetch", url=page)),
                "log": text(await call(client, "git__git_log", repo_path=str(repository))),
                "refused": await call(client, "git__git_log", repo_path=7),
            }

    seen = run(scenario, limit=180)
    assert seen["listed"] == ["search_tools", "call_tool"]
    assert seen["time"][0] == "time__convert_time"
    assert seen["fetch"][0] == "fetch__fetch"
    assert seen["git"][0] == "git__git_log"
    assert json.loads(seen["converted"])["target"]["datetime"].endswith("21:00:00+09:00")
    assert "Served on loopback for the fetch server." in seen["fetched"]
    assert "Add a readme" in seen["log"]
    assert seen["refused"].is_error
    assert text(seen["refused"]).startswith("Invalid arguments for git__git_log: repo_path: 7")
