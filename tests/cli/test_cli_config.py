"""`--config FILE`: the defaults of `search` and `tokens` from a config file's tool_search."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import RunToolscout


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "gateway.yaml"
    path.write_text(
        "servers: {github: {command: github-mcp}}  # the gateway's; the CLI leaves it alone\n"
        "tool_search:\n"
        "  engine: regex\n"
        "  max_results: 1\n"
        "  mode: proxy\n"
        "  result_format: compact\n",
        encoding="utf-8",
    )
    return path


class TestSearchWithConfig:
    def test_engine_and_max_results_come_from_the_file(
        self, run: RunToolscout, config_file: Path
    ) -> None:
        result = run("search", "demo", "^send", "--config", config_file)
        assert result.exit_code == 0, result.output
        assert "1 of 1647 tools for '^send' (regex)" in result.output

    def test_options_given_win_over_the_file(self, run: RunToolscout, config_file: Path) -> None:
        args = ("weather forecast", "-e", "bm25", "-k", "3", "--config", config_file)
        result = run("search", "demo", *args)
        assert result.exit_code == 0, result.output
        assert "3 of 1647 tools" in result.output and "(bm25)" in result.output

    def test_a_bad_file_is_one_line_with_its_line_number(
        self, run: RunToolscout, tmp_path: Path
    ) -> None:
        path = tmp_path / "bad.yaml"
        path.write_text("tool_search:\n  max_results: 50\n", encoding="utf-8")
        result = run("search", "demo", "weather", "--config", path)
        assert result.exit_code == 2
        assert result.output == (
            f"error: {path}:2:3: tool_search.max_results: must be at most 20 (got 50)\n"
        )


class TestTokensWithConfig:
    def test_shows_the_files_mode_and_format(self, run: RunToolscout, config_file: Path) -> None:
        result = run("tokens", "demo", "--config", config_file)
        assert result.exit_code == 0, result.output
        assert "│ proxy │ compact │" in result.output
        assert "│ load " not in result.output
        assert "once 1 tools are discovered" in result.output
