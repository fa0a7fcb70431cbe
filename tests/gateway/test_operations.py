"""Running the gateway all day: Ctrl-C in a real terminal, a busy port, a config that lists
the gateway itself or nothing, a config changed under a connected client, and what an
operator watches (`/healthz`, `/metrics`, JSON logs)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
import yaml
from mcp.client.session import IncomingMessage

from tests.gateway.conftest import (
    TOKEN,
    TOOLSCOUT,
    GatewayProcess,
    LoggedProcess,
    http_client,
    run,
    server,
    write_config,
)
from tests.gateway.test_lifecycle import call, find, text

#: Seconds `toolscout serve` may take to stop after Ctrl-C: it stops its servers first. The
#: issue asks for a hang to be bounded; the bound is generous for a busy machine.
STOP_BOUND = 30.0


class Terminal:
    """A real terminal (tmux, on a server of its own) running one shell command."""

    def __init__(self, name: str, command: str) -> None:
        self._tmux = ["tmux", "-L", f"toolscout-{name}-{os.getpid()}"]
        subprocess.run(
            [*self._tmux, "new-session", "-d", "-x", "160", "-y", "40", command], check=True
        )

    def screen(self) -> str:
        captured = subprocess.run(
            [*self._tmux, "capture-pane", "-p", "-S", "-200"], capture_output=True, text=True
        )
        return captured.stdout

    def wait_for(self, pattern: str, limit: float) -> re.Match[str]:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            found = re.search(pattern, self.screen())
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never appeared:\n{self.screen()}")

    def press_ctrl_c(self) -> None:
        subprocess.run([*self._tmux, "send-keys", "C-c"], check=True)

    def close(self) -> None:
        subprocess.run([*self._tmux, "kill-server"], capture_output=True)


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for each in opened:
        each.close()


class TestCtrlC:
    @pytest.mark.parametrize("transport", ["stdio", "http"])
    def test_ctrl_c_in_a_terminal_stops_it(
        self, transport: str, tmp_path: Path, terminal: list[Terminal]
    ) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        command = (
            f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} {TOOLSCOUT} serve --config {config}"
            f" --transport {transport} --port 0; echo exit status $?; sleep 600"
        )
        screen = Terminal(transport, command)
        terminal.append(screen)
        screen.wait_for(r"serving MCP on", limit=60)
        pressed = time.monotonic()
        screen.press_ctrl_c()
        status = screen.wait_for(r"exit status (\d+)", limit=STOP_BOUND)
        assert time.monotonic() - pressed < STOP_BOUND
        assert status[1] == "0"
        assert "Traceback" not in screen.screen()


class TestStartingUp:
    def test_a_busy_port_is_one_line_before_any_server_starts(self, tmp_path: Path) -> None:
        starts = tmp_path / "starts"
        crashy = server("crashy", env={"CRASHY_STARTS": str(starts)})
        config = write_config(tmp_path, {"crashy": crashy})
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            command = ["serve", "-c", str(config), "--transport", "http", "--port", str(port)]
            done = subprocess.run(
                [str(TOOLSCOUT), *command],
                capture_output=True,
                text=True,
                timeout=60,
            )
        assert done.returncode == 2
        assert done.stderr == (
            f"error: the gateway cannot listen on 127.0.0.1:{port} (Address already in use); "
            "choose another --port (0 picks a free one), or another --host\n"
        )
        assert not starts.exists()

    def test_an_empty_config_warns(self, tmp_path: Path) -> None:
        config = tmp_path / "claude_desktop_config.json"
        config.write_text('{"mcpServers": {}}')
        gateway = GatewayProcess(config, "--port", "0")
        try:
            gateway.url()
        finally:
            gateway.stop()
        assert (
            "toolscout: the config lists no servers to connect to, so the gateway serves no "
            "tools until servers are added to it\n"
        ) in gateway.lines


class TestItself:
    def test_an_entry_that_runs_this_gateway_is_skipped(self, tmp_path: Path) -> None:
        config = tmp_path / "claude_desktop_config.json"
        itself = {"command": str(TOOLSCOUT), "args": ["serve", "--config", str(config)]}
        config.write_text(
            json.dumps({"mcpServers": {"toolscout": itself, "notes": server("notes")}})
        )
        gateway = GatewayProcess(config, "--port", "0")
        try:
            health = get(gateway.url(), "/healthz")
        finally:
            gateway.stop()
        assert list(health["upstreams"]) == ["notes"]
        assert any(
            "server 'toolscout' is skipped: it runs this gateway itself" in line
            for line in gateway.lines
        )

    def test_a_gateway_started_by_itself_another_way_is_skipped_by_its_parent(
        self, tmp_path: Path
    ) -> None:
        # The entry starts a copy of the config through a shell: only the environment
        # marker can tell that it is the same gateway.
        config, copy = tmp_path / "gateway.yaml", tmp_path / "copy.yaml"
        loop = {
            "command": "/bin/sh",
            "args": ["-c", f"exec {TOOLSCOUT} serve --config {copy}"],
            "env": {"PYTHONPATH": "${PYTHONPATH:-}"},
        }
        text = yaml.safe_dump({"servers": {"loop": loop, "notes": server("notes")}})
        config.write_text(text)
        copy.write_text(text)
        gateway = GatewayProcess(config, "--port", "0")
        try:
            url = gateway.url(60)
            health = get(url, "/healthz")
        finally:
            gateway.stop()
        assert health["upstreams"]["loop"]["state"] == "skipped"
        assert health["upstreams"]["notes"]["state"] == "connected"
        assert any(
            "upstream 'loop' is skipped: it is this gateway, started again by an entry of its "
            "own config" in line
            for line in gateway.lines
        )

    def test_a_gateway_started_by_itself_reads_past_a_message_nested_too_deep(
        self, tmp_path: Path
    ) -> None:
        from toolscout.config import load_config
        from toolscout.gateway import GatewayConfig
        from toolscout.gateway.itself import MARKER, REFUSAL, fingerprint

        config = write_config(tmp_path, {"notes": server("notes")})
        chain = fingerprint(load_config(config, GatewayConfig))
        deep = "[" * 100_000 + "]" * 100_000
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        answer = subprocess.run(
            [str(TOOLSCOUT), "serve", "--config", str(config)],
            input=f"{deep}\n{json.dumps(initialize)}\n",
            env={**os.environ, MARKER: chain},
            capture_output=True,
            text=True,
            timeout=60,
        )
        (line,) = answer.stdout.splitlines()
        assert json.loads(line)["id"] == 1
        assert json.loads(line)["error"]["data"] == REFUSAL
        assert "Traceback" not in answer.stderr


class TestReload:
    def test_servers_added_changed_and_removed_reach_a_connected_client(
        self, tmp_path: Path
    ) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        gateway = GatewayProcess(config, "--port", "0", "-v")
        try:
            url = gateway.url()

            async def scenario() -> dict[str, Any]:
                changed = anyio.Event()
                seen: dict[str, Any] = {}

                async def on_message(message: IncomingMessage) -> None:
                    if isinstance(message, types.ToolListChangedNotification):
                        changed.set()

                async with http_client(url, token=None, message_handler=on_message) as client:
                    seen["before"] = await find(client, "add days to a date")
                    write_config(tmp_path, {"notes": server("notes"), "clock": server("clock")})
                    with anyio.fail_after(30):
                        await changed.wait()
                    with anyio.fail_after(30):
                        while "clock__add_days" not in await find(client, "add days to a date"):
                            await anyio.sleep(0.2)
                    added = await call(client, "clock__add_days", day="2026-11-05", days=1)
                    seen["added"] = text(added)
                    changed = anyio.Event()
                    write_config(tmp_path, {"clock": server("clock")})
                    with anyio.fail_after(30):
                        await changed.wait()
                    gone = await call(client, "notes__read_note", title="groceries")
                    seen["removed"] = text(gone)
                    seen["still"] = text(await call(client, "clock__now"))
                return seen

            seen = run(scenario, limit=90)
            os.kill(gateway.process.pid, signal.SIGHUP)
            gateway.wait_for(r"(config read again: nothing changed)", limit=30)
        finally:
            gateway.stop()
        assert "clock__add_days" not in seen["before"]
        assert seen["added"] == "2026-11-06"
        assert seen["removed"].startswith("Unknown tool 'notes__read_note'.")
        assert seen["still"] == "2026-11-05"
        assert any("config reloaded: server 'clock' added" in line for line in gateway.lines)

    def test_a_config_that_no_longer_reads_is_reported_and_changes_nothing(
        self, tmp_path: Path
    ) -> None:
        config = write_config(tmp_path, {"notes": server("notes")})
        gateway = GatewayProcess(config, "--port", "0")
        try:
            url = gateway.url()
            config.write_text("servers:\n  notes: {command: }\n  - broken\n")
            reported = gateway.wait_for(r"(the config was not reloaded: .*)", limit=30)

            async def still_serving() -> str:
                async with http_client(url, token=None) as client:
                    return text(await call(client, "notes__read_note", title="groceries"))

            answer = run(still_serving)
        finally:
            gateway.stop()
        assert reported.startswith(f"the config was not reloaded: {config}:")
        assert answer == "milk, eggs, flour"


class TestWatching:
    def test_healthz_and_metrics(self, tmp_path: Path) -> None:
        config = write_config(
            tmp_path,
            {"notes": server("notes"), "missing": {"command": str(tmp_path / "nothing")}},
            gateway={"auth": {"tokens_env": "GATEWAY_TEST_TOKENS"}},
        )
        gateway = GatewayProcess(config, "--port", "0", env={"GATEWAY_TEST_TOKENS": TOKEN})
        try:
            url = gateway.url()

            async def use() -> None:
                async with http_client(url) as client:
                    await find(client, "read a note")
                    await call(client, "notes__read_note", title="groceries")
                    await call(client, "notes__archive_note", title="groceries")

            run(use)
            health = get(url, "/healthz", TOKEN)
            metrics = httpx2.get(base(url) + "/metrics", headers=bearer(TOKEN)).text
            refused = httpx2.get(base(url) + "/metrics")
        finally:
            gateway.stop()
        assert health["status"] == "degraded"
        assert health["upstreams"]["notes"] == {"state": "connected", "tools": 9, "error": None}
        assert health["upstreams"]["missing"]["state"] == "restarting"
        assert refused.status_code == 401
        values = parse_metrics(metrics)
        assert values['toolscout_upstream_state{server="notes",state="connected"}'] == 1
        assert values['toolscout_upstream_state{server="missing",state="restarting"}'] == 1
        assert values['toolscout_upstream_tools{server="notes"}'] == 9
        assert values['toolscout_tool_calls_total{server="notes"}'] == 2
        assert values['toolscout_tool_call_errors_total{server="notes"}'] == 1
        assert values['toolscout_tool_call_seconds_count{server="notes"}'] == 2
        assert values["toolscout_search_seconds_count"] == 1
        assert values["toolscout_tool_list_requests_total"] >= 1
        assert values["toolscout_tool_tokens_saved"] == (
            values["toolscout_tool_tokens_without_search_total"]
            - values["toolscout_tool_tokens_sent_total"]
        )

    def test_json_logs(self, tmp_path: Path) -> None:
        config = tmp_path / "mcp.json"
        config.write_text('{"mcpServers": {}}')
        options = ["--transport", "http", "--port", "0", "--log-format", "json"]
        gateway = LoggedProcess(["serve", "-c", str(config), *options])
        try:
            gateway.wait_for(r"(serving MCP on)")
        finally:
            gateway.stop()
        entries = [json.loads(line) for line in gateway.lines]
        assert {"time", "level", "logger", "message"} <= set(entries[0])
        messages = [entry["message"] for entry in entries]
        assert any(message.startswith("the config lists no servers") for message in messages)
        assert any(re.match(r"serving MCP on http://127\.0\.0\.1:\d+/mcp$", m) for m in messages)


def base(url: str) -> str:
    return url.rsplit("/", 1)[0]


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def get(url: str, path: str, token: str | None = None) -> Any:
    response = httpx2.get(base(url) + path, headers=bearer(token), timeout=30)
    response.raise_for_status()
    return response.json()


def parse_metrics(text: str) -> dict[str, float]:
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values
