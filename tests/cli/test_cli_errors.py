"""A user's mistake is one readable line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.limits import HANG

from .conftest import RunToolscout, WriteCatalog

TOOLSCOUT = Path(sys.executable).parent / "toolscout"


def assert_one_error_line(stderr: str, *fragments: str) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


class TestUserMistakes:
    @pytest.mark.parametrize(
        ("args", "fragments"),
        [
            (["search", "missing.json", "weather"], ["missing.json: no such file", "`demo`"]),
            (["inspect", "missing.json"], ["missing.json: no such file"]),
            (["search", "{catalog}", "x", "--engine", "vector"], ["'bm25', 'regex'", "--help"]),
            (["search", "{catalog}", "x", "-k", "0"], ["-k", "must be at least 1 (got 0)"]),
            (["search", "{catalog}", "x", "-k", "1000"], ["-k", "must be at most 20 (got 1000)"]),
            (["search", "{catalog}", "x", "-k", "many"], ["-k must be a whole number, got 'many'"]),
            (["search", "{catalog}", "x", "-k", "2.5"], ["-k must be a whole number, got '2.5'"]),
            (["search", "{catalog}", "x", "--threshold", "high"], ["--threshold must be a number"]),
            (["tokens", "{catalog}", "--max-results", "x"], ["--max-results must be a whole"]),
            (
                ["search", "{catalog}", "x", "--threshold", "2"],
                ["--threshold", "must be at most 1"],
            ),
            (["search", "{catalog}", ""], ["QUERY", "empty", "send an email"]),
            (["search", "{catalog}", "   "], ["QUERY", "empty"]),
            (["search"], ["Missing argument", "toolscout search --help"]),
            (["serch", "{catalog}", "x"], ["No such command 'serch'", "'search'"]),
        ],
        ids=[
            "missing file",
            "missing file (inspect)",
            "unknown engine",
            "k zero",
            "k too large",
            "k not a number",
            "k not whole",
            "threshold not a number",
            "max-results not a number",
            "threshold out of range",
            "empty query",
            "blank query",
            "missing argument",
            "unknown command",
        ],
    )
    def test_one_line_with_the_fix(
        self, run: RunToolscout, sample_catalog: Path, args: list[str], fragments: list[str]
    ) -> None:
        result = run(*(arg.format(catalog=sample_catalog) for arg in args))
        assert result.exit_code == 2
        assert_one_error_line(result.stderr, *fragments)
        assert result.stdout == ""
        assert result.exception is None or isinstance(result.exception, SystemExit)

    @pytest.mark.parametrize(
        ("file_name", "content", "fragment"),
        [
            ("tools.txt", "[]", "cannot tell the format from the extension '.txt'"),
            ("tools.json", "{not json", "invalid JSON at line 1"),
            ("tools.json", '{"servers": 3}', "no tool definition"),
            ("tools.json", "", "the file is empty"),
            ("tools.yaml", "name: [unclosed", "YAML"),
        ],
    )
    def test_bad_catalog_file(
        self, run: RunToolscout, tmp_path: Path, file_name: str, content: str, fragment: str
    ) -> None:
        path = tmp_path / file_name
        path.write_text(content, encoding="utf-8")
        for args in (["search", path, "weather"], ["inspect", path]):
            result = run(*args)
            assert result.exit_code == 2
            assert_one_error_line(result.stderr, str(path), fragment)

    def test_bad_tool_definition(self, run: RunToolscout, write_catalog: WriteCatalog) -> None:
        catalog = write_catalog([{"name": "x", "input_schema": {"type": "array"}}])
        result = run("inspect", catalog)
        assert result.exit_code == 2
        assert_one_error_line(result.stderr, str(catalog), "object")


class TestConsoleScript:
    """The installed `toolscout` command, run as a user runs it."""

    def test_search_as_json(self, sample_catalog: Path) -> None:
        done = subprocess.run(
            [TOOLSCOUT, "search", sample_catalog, "send an email", "--json"],
            capture_output=True,
            text=True,
            timeout=HANG,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["hits"][0]["id"] == "email__send_email"

    def test_empty_search_as_json_holds_the_notice(self, sample_catalog: Path) -> None:
        done = subprocess.run(
            [TOOLSCOUT, "search", sample_catalog, "quantum chromodynamics", "--json"],
            capture_output=True,
            text=True,
            timeout=HANG,
        )
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)
        assert found["hits"] == [] and "No tool" in found["notice"]

    @pytest.mark.parametrize(
        ("args", "fragment"),
        [
            (["(unclosed", "--engine", "regex"], "'(unclosed' is invalid or unsupported"),
            (["weather", "-k", "abc"], "-k must be a whole number, got 'abc'"),
        ],
        ids=["invalid pattern", "k not a number"],
    )
    def test_bad_value_is_one_line_and_status_2(
        self, sample_catalog: Path, args: list[str], fragment: str
    ) -> None:
        done = subprocess.run(
            [TOOLSCOUT, "search", sample_catalog, *args],
            capture_output=True,
            text=True,
            timeout=HANG,
        )
        assert done.returncode == 2
        assert done.stdout == ""
        assert_one_error_line(done.stderr, fragment)

    def test_mistake_without_traceback(self) -> None:
        done = subprocess.run(
            [TOOLSCOUT, "inspect", "missing.yaml"], capture_output=True, text=True, timeout=HANG
        )
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert_one_error_line(done.stderr, "missing.yaml: no such file")
