"""Regex search: what a pattern finds, and that no pattern can break or hang a search."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from toolscout.errors import SearchConfigError
from toolscout.search import RegexOptions, ToolIndex, pattern_problem

from .conftest import make_index, make_tool, names, standard_tools


@pytest.fixture
def regex_index() -> ToolIndex:
    return make_index(engine="regex")


class TestPatternMatching:
    def test_matching_is_case_insensitive(self, regex_index: ToolIndex) -> None:
        assert names(regex_index.search("SLACK")) == names(regex_index.search("slack"))
        assert names(regex_index.search("SLACK")) == ["sendSlackMessage", "list_slack_channels"]

    def test_results_come_in_catalog_order(self, regex_index: ToolIndex) -> None:
        results = regex_index.search("file|weather|slack", k=20)
        assert names(results) == [
            "get_current_weather",
            "get_forecast",
            "sendSlackMessage",
            "list_slack_channels",
            "delete_file",
            "read_file",
        ]

    @pytest.mark.parametrize("k", [1, 2, 5])
    def test_k_caps_the_results(self, regex_index: ToolIndex, k: int) -> None:
        results = regex_index.search("e", k=k)
        assert len(results) == k
        assert names(results) == [tool.name for tool in standard_tools()][:k]

    def test_every_hit_scores_one(self, regex_index: ToolIndex) -> None:
        for hit in regex_index.search("list", k=10):
            assert hit.score == 1.0
            assert hit.normalized_score == 1.0

    def test_threshold_does_not_hide_pattern_matches(self) -> None:
        index = make_index(engine="regex", threshold=1.0)
        assert names(index.search("forecast")) == ["get_forecast"]

    def test_caret_anchors_at_the_start_of_each_field(self) -> None:
        tools = [
            make_tool("send_invoice", "Bill a customer."),
            make_tool("resend_invite", "Invite a user again."),
            make_tool("notify_team", "Will send a note to the team."),
            make_tool("dispatch", "Send it now."),
            make_tool("announce", parameters={"sender": {"type": "string"}}),
        ]
        results = make_index(tools, engine="regex").search("^send")
        assert names(results) == ["send_invoice", "dispatch", "announce"]
        assert [hit.matched_fields["^send"] for hit in results] == [
            ("name",),
            ("description",),
            ("parameter_names",),
        ]

    def test_dollar_anchors_at_the_end_of_each_field(self, regex_index: ToolIndex) -> None:
        assert names(regex_index.search("_file$")) == ["delete_file", "read_file"]

    def test_pattern_finds_every_field(self) -> None:
        tool = make_tool(
            "tool",
            "d",
            namespace="nsword",
            parameters={"pname": {"type": "string", "description": "pdesc", "enum": ["evalue"]}},
            tags=["tagword"],
        )
        index = make_index([tool], engine="regex")
        for pattern, field in [
            # The id `nsword__tool` is searched with the name, so a namespace is found twice.
            ("nsword", ("name", "namespace")),
            ("pname", ("parameter_names",)),
            ("pdesc", ("parameter_descriptions",)),
            ("evalue", ("enum_values",)),
            ("tagword", ("tags",)),
        ]:
            (hit,) = index.search(pattern)
            assert hit.matched_fields == {pattern: field}

    def test_explanations_name_the_matched_text_and_fields(self, regex_index: ToolIndex) -> None:
        (hit,) = regex_index.search("Fahrenheit")
        assert hit.tool.name == "get_current_weather"
        assert [(t.query_term, t.index_term, t.fields, t.kind) for t in hit.matched_terms] == [
            ("Fahrenheit", "fahrenheit", ("enum_values",), "pattern")
        ]

    def test_a_match_never_runs_from_one_tool_into_the_next(self) -> None:
        tools = [make_tool("alpha", "ends with omega"), make_tool("beta", "starts here")]
        index = make_index(tools, engine="regex")
        assert names(index.search(r"omega\s+beta")) == []
        assert names(index.search(r"omega$")) == ["alpha"]

    def test_later_match_in_the_same_tool_is_found_after_a_cross_tool_one(self) -> None:
        tools = [
            make_tool("alpha", "omega", tags=["omega beta"]),
            make_tool("beta", "second"),
        ]
        index = make_index(tools, engine="regex")
        assert names(index.search(r"omega\s+beta")) == ["alpha"]

    def test_whitespace_in_text_is_collapsed_to_single_spaces(self) -> None:
        tool = make_tool("tool", "Send\n\n   a   message")
        assert names(make_index([tool], engine="regex").search("send a message")) == ["tool"]

    @pytest.mark.parametrize(
        ("pattern", "expected"),
        [("ترجمة", "translate_arabic"), ("לוח", "hebrew_calendar"), ("🎉", "party_planner")],
    )
    def test_unicode_patterns(self, pattern: str, expected: str) -> None:
        tools = [
            make_tool("translate_arabic", "ترجمة النص إلى العربية"),
            make_tool("hebrew_calendar", "לוח שנה עברי"),
            make_tool("party_planner", "Plan a party 🎉 with friends"),
            *standard_tools(),
        ]
        assert names(make_index(tools, engine="regex").search(pattern)) == [expected]

    def test_no_match_has_a_notice(self, regex_index: ToolIndex) -> None:
        results = regex_index.search("zeppelin")
        assert list(results) == []
        assert results.notice
        assert "zeppelin" in results.notice


class TestRegexSafety:
    @pytest.mark.parametrize(
        ("pattern", "problem"),
        [
            (r"(a)\1", r"\1"),
            ("(?=x)", "(?="),
            ("(?<!x)y", "(?<!"),
            ("[unclosed", "missing ]"),
            ("(unbalanced", "missing )"),
            ("a{1001}", "{1001}"),
            ("*start", "*"),
            ("trailing\\", "trailing"),
        ],
    )
    def test_invalid_pattern_returns_nothing_and_names_the_problem(
        self, regex_index: ToolIndex, pattern: str, problem: str
    ) -> None:
        results = regex_index.search(pattern)
        assert list(results) == []
        assert results.notice
        assert problem in results.notice
        assert "RE2" in results.notice
        assert pattern_problem(pattern) == results.notice

    @pytest.mark.parametrize("pattern", ["^send", "weather|forecast", "x" * 200])
    def test_a_pattern_regex_can_run_has_no_problem(self, pattern: str) -> None:
        assert pattern_problem(pattern) is None

    def test_pattern_over_the_length_cap_is_refused_with_a_notice(
        self, regex_index: ToolIndex
    ) -> None:
        results = regex_index.search("weather|" * 30)
        assert list(results) == []
        assert results.notice
        assert "200" in results.notice

    def test_pattern_at_the_length_cap_is_accepted(self, regex_index: ToolIndex) -> None:
        pattern = "forecast|" + "x" * (200 - len("forecast|"))
        assert len(pattern) == 200
        assert names(regex_index.search(pattern)) == ["get_forecast"]

    def test_length_cap_is_configurable(self) -> None:
        index = make_index(engine="regex", regex=RegexOptions(max_pattern_length=5))
        assert list(index.search("forecast")) == []
        assert names(index.search("fore")) == ["get_forecast"]

    @pytest.mark.parametrize("pattern", ["", "   ", "\n\t"])
    def test_empty_pattern_has_a_notice(self, regex_index: ToolIndex, pattern: str) -> None:
        results = regex_index.search(pattern)
        assert list(results) == []
        assert results.notice
        assert "empty" in results.notice

    @pytest.mark.parametrize(
        ("pattern", "victim", "target"),
        [
            ("(a+)+$", "a" * 5_000 + "!", "b" + "a" * 5_000),
            ("(a|aa)+$", "a" * 5_000 + "!", "b" + "a" * 5_000),
            ("(a*)*z$", "a" * 5_000 + "!", "a" * 5_000 + "z"),
            ("(.*a){20}$", "a" * 5_000 + "!", "a" * 5_000),
            ("(x+x+)+y", "x" * 5_000, "x" * 5_000 + "y"),
        ],
    )
    def test_catastrophic_backtracking_patterns_finish(
        self, pattern: str, victim: str, target: str
    ) -> None:
        # A backtracking engine takes exponential time on the victims; RE2 is linear.
        victims = [make_tool(f"victim_{i}", victim) for i in range(20)]
        index = make_index(
            [*victims, make_tool("target", target), *standard_tools()],
            engine="regex",
            regex=RegexOptions(time_budget=30),  # never cut short: the pattern must finish
        )
        assert names(index.search(pattern, k=50)) == ["target"]

    def test_a_pattern_that_defeats_re2s_dfa_stops_at_the_budget(self) -> None:
        # One RE2 call over this catalog's 1.3 MB of text with this pattern runs for minutes
        # (RE2 simulates its automaton, tens of microseconds per byte): the search must stop
        # near its 0.1 s budget. Run in a new process, so that a hang cannot stall the suite.
        program = textwrap.dedent(
            """
            import json, time
            from toolscout import Catalog, Tool, ToolIndex

            words = "alpha beta gamma delta weather forecast invoice report ".split()
            catalog = Catalog(
                Tool(name=f"tool_{n}", description=" ".join(words[(n * 7 + i) % 8]
                     for i in range(400)))
                for n in range(500)
            )
            index = ToolIndex(catalog, engine="regex")
            index.refresh()
            began = time.monotonic()
            results = index.search("(?s)(a|.){0,1000}#")
            print(json.dumps({"seconds": time.monotonic() - began, "notice": results.notice}))
            """
        )
        finished = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, timeout=240
        )
        assert finished.returncode == 0, finished.stderr
        measured = json.loads(finished.stdout)
        assert "stopped after 0.1s" in measured["notice"]
        assert measured["seconds"] < 30  # generous: about 0.2 s of computing

    def test_a_pattern_that_spans_tools_is_searched_tool_by_tool(self) -> None:
        # `(?s)` lets a match run from one tool's text into the next; such a match is no
        # tool's, and the tools on either side are checked on their own.
        tools = [make_tool(f"tool_{n}", "a" * 10) for n in range(1_000)]
        tools.append(make_tool("target", "a" * 30))
        index = make_index(tools, engine="regex", regex=RegexOptions(time_budget=30))
        assert names(index.search("(?s)(.*a){25}", k=5)) == ["target"]

    def test_pattern_too_big_for_the_memory_limit_is_refused(self) -> None:
        index = make_index(engine="regex", regex=RegexOptions(max_memory=1 << 16))
        results = index.search(r"\w{1000}")
        assert list(results) == []
        assert results.notice
        assert "too large" in results.notice

    def test_time_budget_stops_the_search_with_a_notice(self) -> None:
        tools = [make_tool(f"tool_{i}", f"Handles record {i}.") for i in range(20_000)]
        index = make_index(tools, engine="regex", regex=RegexOptions(time_budget=1e-9))
        results = index.search("record", k=10)
        assert len(results) < 10
        assert results.notice
        assert "stopped" in results.notice
        assert all(hit.tool.name.startswith("tool_") for hit in results)

    @pytest.mark.parametrize(
        "options",
        [
            {"max_pattern_length": 0},
            {"time_budget": 0},
            {"time_budget": -1.0},
            {"max_memory": 1024},
        ],
    )
    def test_impossible_options_are_refused(self, options: dict[str, Any]) -> None:
        with pytest.raises(SearchConfigError):
            RegexOptions(**options)


class TestIdsAreSearchable:
    def test_a_namespaced_id_matches_a_pattern(self) -> None:
        index = make_index(
            [make_tool("create_issue", "Open a ticket.", namespace="github")], engine="regex"
        )
        assert names(index.search("^github__create")) == ["create_issue"]
