"""`toolscout search`: what a user sees for a query, as a table or as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscout.catalog import Catalog
from toolscout.data import demo_catalog_path
from toolscout.search import DEFAULT_THRESHOLDS, ToolIndex

from .conftest import RunToolscout

HIGHLIGHT = "\x1b[1;33m"  # rich's "bold yellow"


def rows_in_order(output: str, *tool_ids: str) -> bool:
    positions = [output.find(tool_id) for tool_id in tool_ids]
    return -1 not in positions and positions == sorted(positions)


def one_paragraph(text: str) -> str:
    return " ".join(text.split())


class TestSearchCommand:
    def test_tools_in_the_engines_order(self, run: RunToolscout, sample_catalog: Path) -> None:
        query = "weather in paris"
        index = ToolIndex(Catalog.from_file(sample_catalog))
        ranked = [hit.tool.id for hit in index.search(query)]
        result = run("search", sample_catalog, query)
        assert result.exit_code == 0
        assert index.engine_name == "hybrid"  # auto, with the semantic extra installed
        assert f"{len(ranked)} of 12 tools for 'weather in paris' (hybrid)" in result.stdout
        assert ranked[0] == "weather__get_current_weather"
        assert rows_in_order(result.stdout, *ranked)

    @pytest.mark.parametrize(
        ("engine", "query"), [("bm25", "send an email"), ("regex", "send_e?mail")]
    )
    def test_each_engine_finds_the_tool(
        self, run: RunToolscout, sample_catalog: Path, engine: str, query: str
    ) -> None:
        result = run("search", sample_catalog, query, "--engine", engine)
        assert result.exit_code == 0
        assert "email__send_email" in result.stdout
        assert f"({engine})" in result.stdout

    def test_k_limits_the_rows(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run("search", sample_catalog, "search", "-k", "1")
        assert result.exit_code == 0
        assert "1 of 12 tools" in result.stdout
        assert not ("files__search" in result.stdout and "slack__search" in result.stdout)

    def test_matched_words_are_highlighted(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run(
            "search", sample_catalog, "weather forecast", env={"FORCE_COLOR": "1", "NO_COLOR": None}
        )
        assert result.exit_code == 0
        assert f"{HIGHLIGHT}forecast" in result.stdout  # in the description
        assert f"{HIGHLIGHT}get_forecast" in result.stdout  # in the name
        assert f"{HIGHLIGHT}city" not in result.stdout

    def test_pattern_matches_are_highlighted(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run(
            "search",
            sample_catalog,
            "shared drive",
            "-e",
            "regex",
            env={"FORCE_COLOR": "1", "NO_COLOR": None},
        )
        assert result.exit_code == 0
        assert f"{HIGHLIGHT}shared drive" in result.stdout

    def test_no_match_shows_the_notice_instead_of_a_table(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        query = "quantum chromodynamics"
        notice = ToolIndex(Catalog.from_file(sample_catalog)).search(query).notice
        result = run("search", sample_catalog, query)
        assert result.exit_code == 0
        assert notice and one_paragraph(notice) in one_paragraph(result.stdout)
        assert "score" not in result.stdout

    def test_a_threshold_no_tool_reaches_leaves_only_a_notice(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        result = run("search", sample_catalog, "weather", "--threshold", "1")
        assert result.exit_code == 0
        assert "weather__" not in result.stdout
        assert result.stdout.strip()

    @pytest.mark.parametrize(
        ("pattern", "fragment"),
        [
            ("(unclosed", "'(unclosed' is invalid or unsupported"),
            (r"(\w+) \1", "no backreferences or lookaround"),
            ("a" * 201, "the limit is 200"),
        ],
        ids=["unclosed group", "backreference", "too long"],
    )
    def test_a_pattern_regex_cannot_run_is_a_mistake(
        self, run: RunToolscout, sample_catalog: Path, pattern: str, fragment: str
    ) -> None:
        result = run("search", sample_catalog, pattern, "-e", "regex")
        assert result.exit_code == 2
        assert result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: ") and fragment in line

    def test_a_pattern_that_matches_nothing_is_a_notice(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        result = run("search", sample_catalog, "^zzz", "-e", "regex")
        assert result.exit_code == 0
        assert "No tool matches the pattern '^zzz'" in one_paragraph(result.stdout)

    def test_demo_catalog(self, run: RunToolscout) -> None:
        result = run("search", "demo", "area of a triangle")
        assert result.exit_code == 0
        assert f"of {len(Catalog.from_file(demo_catalog_path()))} tools" in result.stdout
        assert "triangle" in result.stdout


class TestHelp:
    def test_flags_show_no_value_placeholder(self, run: RunToolscout) -> None:
        for command in (["search"], ["inspect"], ["serve"], ["dashboard"], []):
            result = run(*command, "--help")
            assert result.exit_code == 0
            assert "--help" in result.stdout
            assert "<bool>" not in result.stdout
        assert "<int>" in run("search", "--help").stdout  # options that take a value keep it

    def test_threshold_help_states_each_engine_s_default(self, run: RunToolscout) -> None:
        help_text = one_paragraph(run("search", "--help").stdout.replace("│", " "))
        for engine in ("bm25", "semantic", "hybrid"):
            assert f"{engine} {DEFAULT_THRESHOLDS[engine]}" in help_text
        assert "a regex match always scores 1" in help_text


class TestJsonOutput:
    def test_hits_with_scores_terms_and_definition(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        result = run("search", sample_catalog, "send an email", "--json", "-k", "2")
        assert result.exit_code == 0
        found = json.loads(result.stdout)
        assert (found["query"], found["notice"]) == ("send an email", None)
        assert found["engine"] in ("bm25", "hybrid")
        hits = found["hits"]
        assert len(hits) <= 2
        best = hits[0]
        assert best["rank"] == 1
        assert (best["id"], best["name"], best["namespace"]) == (
            "email__send_email",
            "send_email",
            "email",
        )
        assert 0 < best["normalized_score"] <= 1 and best["score"] > 0
        email_match = next(m for m in best["matched_terms"] if m["query_term"] == "email")
        assert (email_match["index_term"], email_match["kind"]) == ("email", "exact")
        assert "description" in email_match["fields"]
        assert best["definition"]["input_schema"]["required"] == ["to", "subject", "body"]

    def test_empty_result_has_no_hits_and_the_notice_in_the_json(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        query = "quantum chromodynamics"
        result = run("search", sample_catalog, query, "--json", "-e", "bm25")
        assert result.exit_code == 0
        found = json.loads(result.stdout)
        assert found["hits"] == []
        index = ToolIndex(Catalog.from_file(sample_catalog), engine="bm25")
        assert found["notice"] == index.search(query).notice
        assert found["notice"] not in result.stderr
