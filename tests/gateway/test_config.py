"""The gateway's config file: toolscout's own format, the files Claude Desktop, Cursor and
Claude Code already have, and mistakes reported with the file, line, field and fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolscout.cli import app
from toolscout.config import ConfigError, load_config
from toolscout.gateway import GatewayConfig
from toolscout.gateway.config import namespace_of


def load(tmp_path: Path, text: str, name: str = "gateway.yaml") -> GatewayConfig:
    path = tmp_path / name
    path.write_text(text)
    return load_config(path, GatewayConfig)


def _written(folder: Path, text: str) -> Path:
    path = folder / "saved.yaml"
    path.write_text(text)
    return path


def mistake(tmp_path: Path, text: str, name: str = "gateway.yaml") -> str:
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, text, name)
    return str(raised.value)


class TestHostFiles:
    def test_a_claude_desktop_file_is_read_as_it_is(self, tmp_path: Path) -> None:
        claude = {
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {
                "filesystem": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                },
                "brave search": {"command": "npx", "args": ["-y", "brave"], "env": {"K": "v"}},
            },
        }
        config = load(tmp_path, json.dumps(claude), "claude_desktop_config.json")
        servers = config.upstreams()
        assert list(servers) == ["filesystem", "brave search"]
        assert servers["filesystem"].type == "stdio"
        assert servers["brave search"].env == {"K": "v"}
        assert namespace_of("brave search", servers["brave search"]) == "brave_search"
        assert config.tool_search.mode == "proxy"
        assert config.tool_search.enabled

    def test_claude_code_and_cursor_entries_are_read(self, tmp_path: Path) -> None:
        entries = {
            "mcpServers": {
                "docs": {"type": "http", "url": "https://docs.example/mcp"},
                "api": {"type": "streamable-http", "url": "https://api.example/mcp"},
                "local": {"type": "stdio", "command": "uvx", "args": ["local-server"]},
                "web": {"url": "https://web.example/mcp", "headers": {"X-Key": "k"}},
                "old": {"command": "node", "args": ["old.js"], "disabled": True},
                "cline": {"command": "node", "args": ["c.js"], "autoApprove": ["read"]},
            }
        }
        config = load(tmp_path, json.dumps(entries), ".mcp.json")
        servers = config.upstreams()
        assert list(servers) == ["docs", "api", "local", "web", "cline"]
        assert [s.type for s in servers.values()] == ["http", "http", "stdio", "http", "stdio"]
        legacy = load(tmp_path, '{"mcpServers": {"old": {"type": "sse", "url": "http://x/sse"}}}')
        assert legacy.servers["old"].type == "sse"
        assert servers["web"].headers == {"X-Key": "k"}

    def test_variables_are_read_from_the_environment(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("DOCS_TOKEN", "secret")
        monkeypatch.delenv("DOCS_HOST", raising=False)
        config = load(
            tmp_path,
            "servers:\n"
            "  docs:\n"
            "    url: https://${DOCS_HOST:-docs.example}/mcp\n"
            "    headers: {Authorization: 'Bearer ${DOCS_TOKEN}'}\n",
        )
        docs = config.servers["docs"].expanded()
        assert docs.url == "https://docs.example/mcp"
        assert docs.headers == {"Authorization": "Bearer secret"}

    def test_variables_are_read_when_used_and_never_written_out(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
        monkeypatch.setenv("WORK", str(tmp_path))
        config = load(
            tmp_path,
            "servers:\n"
            "  github:\n"
            "    command: npx\n"
            "    args: [-y, server-github, '--token=${GITHUB_TOKEN}']\n"
            "    env: {GITHUB_TOKEN: '${GITHUB_TOKEN}'}\n"
            "    cwd: ${WORK}/repo\n"
            "  docs:\n"
            "    url: https://docs.example/mcp\n"
            "    headers: {Authorization: 'Bearer ${GITHUB_TOKEN}'}\n",
        )
        saved = config.to_yaml()
        assert "ghp_secret" not in saved
        assert saved.count("${GITHUB_TOKEN}") == 3
        assert load_config(_written(tmp_path, saved), GatewayConfig) == config
        github = config.servers["github"].expanded()
        assert github.env == {"GITHUB_TOKEN": "ghp_secret"}
        assert github.args[-1] == "--token=ghp_secret"
        assert github.cwd == tmp_path / "repo"
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_rotated")  # read again at each start
        assert config.servers["docs"].expanded().headers["Authorization"] == "Bearer ghp_rotated"


class TestToolScoutFormat:
    def test_every_section(self, tmp_path: Path) -> None:
        config = load(
            tmp_path,
            """
servers:
  github:
    command: npx
    args: [-y, server-github]
    namespace: gh
    include: ["*issue*"]
    exclude: [delete_issue]
    tags: code
    pinned: [create_issue]
    timeout: 10
    cwd: work
gateway:
  transport: http
  port: 9000
  stateless: true
  auth: {tokens_file: tokens.txt}
  restart: {initial_delay: 1, max_delay: 10}
  input_required: {answer_timeout: 120, result_kept: 30}
tool_search:
  max_results: 3
  store: {kind: sqlite, path: state.db}
""",
        )
        github = config.servers["github"]
        assert namespace_of("github", github) == "gh"
        assert github.include == ("*issue*",)
        assert github.tags == ("code",)
        assert github.cwd == tmp_path / "work"
        assert config.gateway.auth.tokens_file == tmp_path / "tokens.txt"
        assert config.gateway.restart.max_delay == 10
        assert config.gateway.input_required.answer_timeout == 120
        assert config.gateway.input_required.result_kept == 30
        assert config.tool_search.store.path == tmp_path / "state.db"
        assert config.tool_search.max_results == 3
        assert config.tool_search.mode == "proxy"

    def test_the_defaults(self) -> None:
        config = GatewayConfig()
        assert config.gateway.transport == "stdio"
        assert config.gateway.host == "127.0.0.1"
        assert config.tool_search.store.kind == "memory"
        assert config.tool_search.store.build() is not None
        assert config.gateway.input_required.answer_timeout == 600
        assert config.gateway.input_required.result_kept == 60


class TestMistakes:
    @pytest.mark.parametrize(
        ("text", "message"),
        [
            (
                "servers:\n  github:\n    comand: npx\n",
                "gateway.yaml:3:5: servers.github.comand: unknown key (did you mean command?); "
                "the keys here are type, command, args",
            ),
            (
                "servers:\n  github:\n    command: npx\n    url: https://x/mcp\n",
                "gateway.yaml:2:3: servers.github: give either command (a stdio server) or url "
                "(an HTTP server), not both",
            ),
            (
                "servers:\n  github: {args: [x]}\n",
                "gateway.yaml:2:3: servers.github: give command (and args) to run a stdio server, "
                "or url for a streamable HTTP one",
            ),
            (
                "servers:\n  old:\n    type: sse\n    command: old-server\n",
                "gateway.yaml:2:3: servers.old: type is sse but the entry has no url",
            ),
            (
                "servers:\n  a: {command: x, namespace: tools}\n"
                "  b: {command: y, namespace: tools}\n",
                "servers 'a' and 'b' both use the namespace 'tools'; give one of them another",
            ),
            (
                "servers:\n  a: {command: x, namespace: my__tools}\n",
                "gateway.yaml:2:19: servers.a.namespace: 'my__tools' is not a valid namespace",
            ),
            (
                "servers:\n  a: {command: x, args: '-y server'}\n",
                "gateway.yaml:2:19: servers.a.args: must be a list of arguments",
            ),
            (
                "servers:\n  a: {url: 'https://${TOOLSCOUT_TEST_UNSET}/mcp'}\n",
                "servers.a.url: uses ${TOOLSCOUT_TEST_UNSET}, which is not set in the "
                "environment; set it, or write ${TOOLSCOUT_TEST_UNSET:-default}",
            ),
            (
                "tool_search:\n  store: {kind: context}\n",
                "gateway.yaml:2:11: tool_search.store.kind: the gateway never sees the "
                "conversation",
            ),
            (
                "gateway:\n  transport: websocket\n",
                "gateway.yaml:2:3: gateway.transport: must be one of stdio, http",
            ),
            (
                "gateway:\n  restart: {initial_delay: 5, max_delay: 1}\n",
                "gateway.restart: max_delay (1) must be at least initial_delay (5)",
            ),
            (
                "gateway:\n  input_required: {answer_timeout: 0}\n",
                "gateway.yaml:2:20: gateway.input_required.answer_timeout: must be more than "
                "0.0 (got 0)",
            ),
            (
                "gateway:\n  input_required: {result_kept: forever}\n",
                "gateway.input_required.result_kept: must be a number",
            ),
            (
                "gateway:\n  input_required: {answer_wait: 10}\n",
                "gateway.input_required.answer_wait: unknown key (did you mean answer_timeout?)",
            ),
            (
                "servers:\n  - command: npx\n",
                "gateway.yaml:1:1: servers: must be a mapping of server names to settings",
            ),
        ],
    )
    def test_a_mistake_names_the_file_the_field_and_the_fix(
        self, tmp_path: Path, text: str, message: str
    ) -> None:
        assert message in mistake(tmp_path, text)

    def test_the_cli_reports_a_mistake_on_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "gateway.yaml"
        path.write_text("servers:\n  github:\n    comand: npx\n")
        result = CliRunner().invoke(app, ["serve", "--config", str(path)])
        assert result.exit_code == 2
        assert result.output.startswith("error: ")
        assert f"{path}:3:5: servers.github.comand: unknown key" in result.output
        assert result.output.count("\n") == 1

    def test_the_cli_reports_a_missing_file(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(app, ["serve", "--config", str(tmp_path / "nope.yaml")])
        assert result.exit_code == 2
        assert result.output == f"error: {tmp_path / 'nope.yaml'}: no such config file\n"
