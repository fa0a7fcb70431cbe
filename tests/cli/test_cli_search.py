"""`toolscout search`: what a user sees for a query, as a table or as JSON: what `search_tools`
would return, and what it leaves out and why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscout.catalog import Catalog
from toolscout.config import ToolSearchSettings
from toolscout.data import demo_catalog_path
from toolscout.search import DEFAULT_THRESHOLDS, ToolIndex

from .conftest import RunToolscout, WriteCatalog

HIGHLIGHT = "\x1b[1;33m"  # rich's "bold yellow"


def rows_in_order(output: str, *tool_ids: str) -> bool:
    positions = [output.find(tool_id) for tool_id in tool_ids]
    return -1 not in positions and positions == sorted(positions)


def one_paragraph(text: str) -> str:
    return " ".join(text.split())


def results_part(output: str) -> str:
    """The output before the table of tools left out: the results and the notice."""
    return output.split("Left out:")[0]


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
        shown = results_part(result.stdout)
        assert not ("files__search" in shown and "slack__search" in shown)
        assert "past max_results: a search returns 1 tool" in result.stdout

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
        assert "score" not in results_part(result.stdout)
        assert "of 12 tools" not in result.stdout

    def test_a_threshold_no_tool_reaches_leaves_only_a_notice(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        result = run("search", sample_catalog, "weather", "--threshold", "1")
        assert result.exit_code == 0
        assert "weather__" not in results_part(result.stdout)
        assert results_part(result.stdout).strip()
        # ... and the tools it would have had, with why they are not there.
        assert "below the threshold 1.00" in result.stdout

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

    def test_the_engine_is_named_before_a_first_search_embeds_the_catalog(
        self, run: RunToolscout, write_catalog: WriteCatalog, tmp_path: Path
    ) -> None:
        # A new cache, as on a fresh machine: the search embeds all 600 tools first, and the
        # user learns which engine waits for it, and why, before its progress.
        tools = [
            {"name": f"tool_{i}", "description": f"Does thing number {i}."} for i in range(600)
        ]
        catalog = write_catalog(tools)
        result = run("search", catalog, "thing", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
        assert result.exit_code == 0
        lines = result.stderr.splitlines()
        assert lines[0] == (
            "engine: hybrid (auto: semantic search is installed, with a multilingual model)"
        )
        assert lines[1].startswith("Embedding tools: 600 texts with ")
        assert lines[-1].startswith("Embedding tools: 600/600 in ")


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


def search_json(run: RunToolscout, *args: str | Path) -> dict[str, Any]:
    result = run("search", *args, "--json")
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def hit_ids(answer: dict[str, Any]) -> list[str]:
    return [hit["id"] for hit in answer["hits"]]


def left_out_reasons(answer: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["reason"] for entry in answer["left_out"]}


class TestWhatSearchToolsReturns:
    """The command answers with `ToolSearch.find`, as `search_tools` would."""

    @pytest.mark.parametrize(
        "query", ["weather in paris", "send an email", "search", "quantum chromodynamics"]
    )
    @pytest.mark.parametrize("engine", ["bm25", "hybrid"])
    def test_the_hits_are_what_find_returns(
        self, run: RunToolscout, sample_catalog: Path, query: str, engine: str
    ) -> None:
        answer = search_json(run, sample_catalog, query, "-e", engine)
        search = ToolSearchSettings(engine=engine).build(Catalog.from_file(sample_catalog))
        (expected,) = search.find(query).queries
        assert hit_ids(answer) == [entry.tool.id for entry in expected.found]
        assert [entry["id"] for entry in answer["left_out"]] == [
            entry.tool.id for entry in expected.left_out
        ]
        assert answer["notice"] == expected.notice

    def test_always_available_tools_are_left_out_as_pinned(
        self, run: RunToolscout, tmp_path: Path
    ) -> None:
        config = tmp_path / "gateway.yaml"
        config.write_text(
            "tool_search:\n  engine: bm25\n  always_available: [send_email]\n", encoding="utf-8"
        )
        answer = search_json(run, "demo", "send an email", "--config", config)
        assert "send_email" not in hit_ids(answer) and answer["hits"]
        assert left_out_reasons(answer)["send_email"] == "pinned"
        table = run("search", "demo", "send an email", "--config", config).stdout
        assert "send_email" not in results_part(table)
        assert "pinned: sent with every request" in one_paragraph(table.replace("│", " "))

    @pytest.mark.parametrize("flag", [{"pinned": True}, {"deferred": False}])
    def test_tools_the_catalog_pins_are_never_hits(
        self, run: RunToolscout, write_catalog: WriteCatalog, flag: dict[str, bool]
    ) -> None:
        tools = [
            {"name": "get_weather", "description": "Get the current weather.", **flag},
            {"name": "get_forecast", "description": "Get the weather forecast."},
        ]
        catalog = write_catalog(tools)
        for engine in ("bm25", "regex", "hybrid"):
            answer = search_json(run, catalog, "get_weather", "-e", engine, "--threshold", "0")
            assert "get_weather" not in hit_ids(answer)
            assert left_out_reasons(answer)["get_weather"] == "pinned"

    def test_the_files_mode_and_max_results(self, run: RunToolscout, tmp_path: Path) -> None:
        config = tmp_path / "gateway.yaml"
        config.write_text(
            "tool_search:\n  engine: bm25\n  mode: proxy\n  max_results: 2\n", encoding="utf-8"
        )
        answer = search_json(run, "demo", "weather forecast", "--config", config)
        assert (answer["mode"], answer["max_results"], len(answer["hits"])) == ("proxy", 2, 2)
        assert "past_max_results" in left_out_reasons(answer).values()

    def test_k_is_the_max_results_to_search_with(self, run: RunToolscout, tmp_path: Path) -> None:
        config = tmp_path / "gateway.yaml"
        config.write_text("tool_search:\n  engine: bm25\n  max_results: 1\n", encoding="utf-8")
        answer = search_json(run, "demo", "weather forecast", "-k", "4", "--config", config)
        assert answer["max_results"] == 4 and len(answer["hits"]) == 4
        answer = search_json(run, "demo", "weather forecast", "--config", config)
        assert answer["max_results"] == 1 and len(answer["hits"]) == 1

    def test_threshold_overrides_the_file(self, run: RunToolscout, tmp_path: Path) -> None:
        config = tmp_path / "gateway.yaml"
        config.write_text("tool_search:\n  engine: bm25\n  threshold: 0.99\n", encoding="utf-8")
        assert search_json(run, "demo", "weather forecast", "--config", config)["hits"] == []
        answer = search_json(
            run, "demo", "weather forecast", "--threshold", "0.1", "--config", config
        )
        assert answer["threshold"] == 0.1 and answer["hits"]

    def test_an_option_is_checked_like_the_files_key(
        self, run: RunToolscout, tmp_path: Path
    ) -> None:
        config = tmp_path / "gateway.yaml"
        config.write_text("tool_search:\n  max_results: 3\n", encoding="utf-8")
        result = run("search", "demo", "weather", "-k", "21", "--config", config)
        assert result.exit_code == 2 and result.stdout == ""
        assert "Invalid value for -k: must be at most 20 (got 21)" in result.stderr


class TestJsonLeftOut:
    def test_each_left_out_tool_says_where_it_ranked_and_why(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        answer = search_json(run, sample_catalog, "weather", "-e", "bm25", "-k", "1")
        assert set(answer) == {
            "query",
            "engine",
            "mode",
            "max_results",
            "threshold",
            "notice",
            "hits",
            "left_out",
        }
        (entry,) = answer["left_out"]
        assert set(entry) == {
            "ranked",
            "id",
            "name",
            "namespace",
            "score",
            "normalized_score",
            "reason",
            "detail",
        }
        assert entry["id"] not in hit_ids(answer) and entry["ranked"] == 2
        assert entry["reason"] == "past_max_results"
        assert entry["detail"] == "past max_results: a search returns 1 tool"
        assert 0 < entry["normalized_score"] <= answer["hits"][0]["normalized_score"]

    def test_left_out_tools_are_in_ranking_order(
        self, run: RunToolscout, sample_catalog: Path
    ) -> None:
        answer = search_json(run, sample_catalog, "search files", "-e", "bm25", "-k", "1")
        ranks = [entry["ranked"] for entry in answer["left_out"]]
        assert len(ranks) > 1 and ranks == sorted(ranks)
