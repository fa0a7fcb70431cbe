"""`toolscout dashboard` as a user runs it: a real process serving real HTTP, alone or beside
a real gateway with real MCP servers and a real MCP client."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import yaml

from tests.gateway.conftest import http_client, run, server
from tests.gateway.conftest import write_config as write_gateway_config
from tests.limits import HANG

from .conftest import CATALOG_FILE, TOOLSCOUT, DashboardProcess


def toolscout(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLSCOUT), *args],
        capture_output=True,
        text=True,
        timeout=HANG,
        env={**os.environ, **(env or {})},
    )


def test_the_served_page_answers(served: DashboardProcess) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    state = httpx.get(served.url + "api/state", timeout=HANG).json()
    assert state["tools"] == 12
    assert "toolscout" in httpx.get(served.url, timeout=HANG).text


def test_a_token_is_required_beyond_loopback() -> None:
    finished = toolscout("dashboard", "demo", "--host", "0.0.0.0", "--port", "0")
    assert finished.returncode == 2
    assert finished.stderr.startswith("error: the dashboard would be reachable from other")
    assert "TOOLSCOUT_DASHBOARD_TOKEN" in finished.stderr


def test_with_a_token_the_printed_link_carries_it(tmp_path: Path) -> None:
    process = DashboardProcess(
        "demo", "--host", "0.0.0.0", env={"TOOLSCOUT_DASHBOARD_TOKEN": "tok-123"}, cwd=tmp_path
    )
    try:
        assert process.url.endswith("/?token=tok-123")
        local = process.url.replace("0.0.0.0", "127.0.0.1")
        assert httpx.get(local.split("?")[0] + "api/state", timeout=HANG).status_code == 401
        with httpx.Client(timeout=HANG, follow_redirects=True) as client:
            assert client.get(local).status_code == 200
            assert client.get(local.split("?")[0] + "api/state").json()["tools"] == 1647
    finally:
        process.stop()


class TestOpen:
    def test_without_a_display_it_says_where_to_point_a_browser(self, tmp_path: Path) -> None:
        headless = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "BROWSER": ""}
        process = DashboardProcess(
            str(CATALOG_FILE), "--config", str(tmp_path / "t.yaml"), "--open", env=headless
        )
        try:
            hint = process.wait_for(r"(--open: no web browser could be opened here.*)")
            port = served_port(process.url)
            assert f"open {process.url} in a browser" in hint
            assert f"ssh -L {port}:127.0.0.1:{port}" in hint
        finally:
            process.stop()

    def test_the_browser_browser_names_gets_the_page(self, tmp_path: Path) -> None:
        opened = tmp_path / "opened.txt"
        browser = tmp_path / "browser.py"
        browser.write_text(
            "import pathlib, sys\npathlib.Path(sys.argv[2]).write_text(sys.argv[1])\n"
        )
        process = DashboardProcess(
            str(CATALOG_FILE),
            *("--config", str(tmp_path / "t.yaml"), "--open"),
            env={"DISPLAY": "", "BROWSER": f"{sys.executable} {browser} %s {opened}"},
        )
        try:
            # The page answers once the browser command has returned.
            assert httpx.get(process.url + "api/state", timeout=HANG).status_code == 200
            assert opened.read_text() == process.url
            assert not any("--open:" in line for line in process.lines)
        finally:
            process.stop()


def served_port(url: str) -> int:
    port = httpx.URL(url).port
    assert port is not None
    return port


def test_a_port_in_use_is_one_line_with_the_fix() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        finished = toolscout("dashboard", "demo", "--port", port)
    assert finished.returncode == 2
    assert finished.stderr.count("\n") == 1
    assert "cannot listen on 127.0.0.1" in finished.stderr and "another --port" in finished.stderr


def test_neither_a_catalog_nor_a_gateway_is_a_clear_error(tmp_path: Path) -> None:
    finished = toolscout("dashboard")
    assert finished.returncode == 2
    assert "give a tool catalog" in finished.stderr
    plain = tmp_path / "toolscout.yaml"
    plain.write_text("tool_search: {enabled: true}\n")
    finished = toolscout("dashboard", "--config", str(plain))
    assert finished.returncode == 2 and "give a tool catalog" in finished.stderr


def test_a_bad_config_file_is_reported_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "toolscout.yaml"
    bad.write_text("tool_search:\n  max_results: 50\n")
    finished = toolscout("dashboard", str(CATALOG_FILE), "--config", str(bad))
    assert finished.returncode == 2
    assert f"{bad}:2:" in finished.stderr and "max_results" in finished.stderr


def test_without_the_extra_the_message_names_it() -> None:
    code = textwrap.dedent(
        """
        import sys

        class Hide:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "starlette":
                    raise ImportError("No module named " + repr(name), name=name)

        sys.meta_path.insert(0, Hide())
        from toolscout.cli import app
        sys.argv = ["toolscout", "dashboard", "demo"]
        app()
        """
    )
    finished = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG
    )
    assert finished.returncode == 2
    assert finished.stderr.strip().endswith("pip install 'toolscout[dashboard]'")


def test_beside_a_gateway_it_shows_upstreams_and_sessions(tmp_path: Path) -> None:
    config = write_gateway_config(
        tmp_path,
        {"notes": server("notes"), "files": server("files")},
        gateway={"port": 0},
    )
    process = DashboardProcess("--config", str(config))
    try:
        mcp_url = process.wait_for(r"serving MCP on (http://\S+)")
        state = httpx.get(process.url + "api/state", timeout=HANG).json()
        assert state["gateway"] and state["settings"]["mode"] == "proxy"

        async def search() -> str:
            async with http_client(mcp_url, token=None) as client:
                result = await client.call_tool("search_tools", {"query": "add a note"})
                return str(result.content[0].text)  # type: ignore[union-attr]

        assert "notes__" in run(search)
        view = httpx.get(process.url + "api/gateway", timeout=HANG).json()
        assert view["mcp_url"] == mcp_url
        states = {u["name"]: (u["state"], u["tools"] > 0) for u in view["upstreams"]}
        assert states == {"notes": ("connected", True), "files": ("connected", True)}
        (session,) = view["sessions"]
        assert session["discovered"] and all(t.startswith("notes__") for t in session["discovered"])
        tokens = httpx.get(process.url + "api/tokens", timeout=HANG).json()
        assert tokens["live"]["requests"] >= 1

        # Saving keeps the servers as the file had them.
        httpx.patch(process.url + "api/settings", json={"max_results": 4}, timeout=HANG)
        assert httpx.post(process.url + "api/save", json={}, timeout=HANG).status_code == 200
        data = yaml.safe_load(config.read_text())
        assert data["servers"]["notes"] == server("notes")
        assert data["tool_search"]["max_results"] == 4
    finally:
        process.stop()


def test_what_is_saved_applies_to_the_running_gateway(tmp_path: Path) -> None:
    config = write_gateway_config(tmp_path, {"notes": server("notes")}, gateway={"port": 0})
    process = DashboardProcess("--config", str(config))
    try:
        mcp_url = process.wait_for(r"serving MCP on (http://\S+)")
        httpx.patch(process.url + "api/settings", json={"mode": "load"}, timeout=10)
        assert httpx.post(process.url + "api/save", json={}, timeout=10).status_code == 200
        process.wait_for(r"(config reloaded: tool_search settings applied)")

        async def listed() -> list[str]:
            async with http_client(mcp_url, token=None) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert run(listed) == ["search_tools", "load_tool"]
    finally:
        process.stop()


def test_saving_keeps_a_linked_file_linked_its_mode_and_its_variables(tmp_path: Path) -> None:
    # The file is a symbolic link (as a dotfiles repository makes it), readable by a group,
    # and it holds a secret by reference only.
    real = write_gateway_config(
        tmp_path,
        {"notes": server("notes", env={"NOTES_TOKEN": "${NOTES_TOKEN}"})},
        gateway={"port": 0},
    )
    real.chmod(0o640)
    link = tmp_path / "linked.yaml"
    link.symlink_to(real)
    process = DashboardProcess("--config", str(link), env={"NOTES_TOKEN": "s3cret-value"})
    try:
        process.wait_for(r"serving MCP on (http://\S+)")
        httpx.patch(process.url + "api/settings", json={"max_results": 4}, timeout=HANG)
        assert httpx.post(process.url + "api/save", json={}, timeout=HANG).status_code == 200
    finally:
        process.stop()
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    text = real.read_text()
    assert "s3cret-value" not in text
    assert yaml.safe_load(text)["servers"]["notes"]["env"] == {"NOTES_TOKEN": "${NOTES_TOKEN}"}
    assert yaml.safe_load(text)["tool_search"]["max_results"] == 4
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []
