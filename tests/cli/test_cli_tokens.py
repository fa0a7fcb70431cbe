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
