"""`toolscout tokens`: the saving per mode and format, and mistakes on one line."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import RunToolscout


class TestTokens:
    def test_every_mode_and_format(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run("tokens", sample_catalog)
        assert result.exit_code == 0, result.output
        for mode in ("load", "auto_load", "proxy", "lazy"):
            assert result.output.count(f"│ {mode} ") == 2
        assert "saving" in result.output and "%" in result.output

    def test_one_mode_and_format(self, run: RunToolscout) -> None:
        result = run("tokens", "demo", "--mode", "proxy", "--format", "compact")
        assert result.exit_code == 0, result.output
        assert "proxy" in result.output and "│ load " not in result.output
        assert "1,647 tools" in result.output

    def test_mistakes_are_one_line_with_exit_status_2(self, run: RunToolscout) -> None:
        for args in (("--mode", "eager"), ("--max-results", "0"), ("--format", "xml")):
            result = run("tokens", "demo", *args)
            assert result.exit_code == 2
            assert result.output.count("\n") == 1 and result.output.startswith("error:")


class TestAutoActivation:
    def test_the_file_s_auto_decision_is_shown_with_its_figures(
        self, run: RunToolscout, sample_catalog: Path, tmp_path: Path
    ) -> None:
        config = tmp_path / "toolscout.yaml"
        config.write_text("tool_search:\n  enabled: auto\n  model: gpt-4o\n")
        result = run("tokens", sample_catalog, "--config", config)
        assert result.exit_code == 0, result.output
        assert "tool search auto: off:" in result.output
        assert "12,800 (10% of gpt-4o's 128,000-token context window)" in result.output

    def test_a_large_catalog_turns_search_on(self, run: RunToolscout) -> None:
        result = run("tokens", "demo", "--mode", "load", "--model", "claude-sonnet-4-5")
        assert result.exit_code == 0, result.output
        assert "tool search auto: on:" in result.output
        assert "> 20,000 (10% of claude-sonnet-4-5's 200,000-token context window)" in (
            result.output
        )
        assert "this is what enabled: auto would decide" in result.output

    def test_a_context_window_and_share_of_one_s_own(self, run: RunToolscout) -> None:
        args = ("--mode", "load", "--context-window", "4000000", "--auto-share", "0.25")
        result = run("tokens", "demo", *args)
        assert result.exit_code == 0, result.output
        assert "tool search auto: off:" in result.output
        assert "<= 1,000,000 (25% of the 4,000,000-token context window)" in result.output

    def test_mistakes_are_one_line_with_exit_status_2(
        self, run: RunToolscout, tmp_path: Path
    ) -> None:
        no_window = tmp_path / "no-window.yaml"
        no_window.write_text("tool_search:\n  enabled: auto\n")
        for args, problem in (
            (("--model", "my-finetune"), "context window of the model 'my-finetune'"),
            (("--auto-share", "0", "--model", "gpt-4o"), "--auto-share"),
            (("--auto-share", "2", "--model", "gpt-4o"), "--auto-share"),
            (("--context-window", "0"), "--context-window"),
            (("--config", str(no_window)), "set model"),
        ):
            result = run("tokens", "demo", "--mode", "load", *args)
            assert result.exit_code == 2, result.output
            assert result.output.count("\n") == 1 and result.output.startswith("error:")
            assert problem in result.output
