"""BM25 ranking as a user sees it through `ToolIndex`: what ranks first, and why."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from typing import Any

import pytest

from toolscout.catalog import Tool
from toolscout.errors import SearchConfigError
from toolscout.search import DEFAULT_FIELD_WEIGHTS, DEFAULT_THRESHOLD, BM25Options, ToolIndex

from .conftest import (
    forecast_tool_both_ways,
    make_index,
    make_tool,
    names,
    standard_tools,
    string_param,
)


class TestExactNames:
    @pytest.mark.parametrize("tool", standard_tools(), ids=lambda tool: tool.name)
    def test_query_naming_a_tool_ranks_it_first(self, index: ToolIndex, tool: Tool) -> None:
        results = index.search(tool.name)
        assert names(results)[0] == tool.name

    @pytest.mark.parametrize("tool", standard_tools(), ids=lambda tool: tool.name)
    def test_query_repeating_a_description_ranks_its_tool_first(
        self, index: ToolIndex, tool: Tool
    ) -> None:
        assert names(index.search(tool.description))[0] == tool.name

    def test_name_in_other_case_and_separators_still_ranks_first(self, index: ToolIndex) -> None:
        assert names(index.search("send slack message"))[0] == "sendSlackMessage"
        assert names(index.search("GetCurrentWeather"))[0] == "get_current_weather"


class TestFieldWeights:
    def test_name_match_outranks_description_only_match(self) -> None:
        in_description = make_tool("copy_tables", "Backup the database tables to cold storage.")
        in_name = make_tool("backup_database", "Copy all tables to cold storage.")
        index = make_index([in_description, in_name], threshold=0)
        results = index.search("backup")
        assert names(results) == ["backup_database", "copy_tables"]
        assert results[0].matched_fields == {"backup": ("name",)}
        assert results[1].matched_fields == {"backup": ("description",)}

    def test_field_weights_are_configurable(self) -> None:
        in_description = make_tool("copy_tables", "Backup the database tables to cold storage.")
        in_name = make_tool("backup_database", "Copy all tables to cold storage.")
        description_first = BM25Options(field_weights={**DEFAULT_FIELD_WEIGHTS, "name": 0.1})
        index = make_index([in_name, in_description], threshold=0, bm25=description_first)
        assert names(index.search("backup")) == ["copy_tables", "backup_database"]

    def test_a_field_left_out_of_the_weights_is_not_searched(self) -> None:
        weights = {name: w for name, w in DEFAULT_FIELD_WEIGHTS.items() if name != "tags"}
        tool = make_tool("run_job", "Run a batch job.", tags=["zeppelin"])
        index = make_index([tool], threshold=0, bm25=BM25Options(field_weights=weights))
        assert names(index.search("zeppelin")) == []
        assert names(make_index([tool], threshold=0).search("zeppelin")) == ["run_job"]


# Schemas that hold the parameter name "zeppelin" somewhere below the top level.
_NESTED_SCHEMAS: dict[str, dict[str, Any]] = {
    "nested object": {
        "properties": {"options": {"type": "object", "properties": {"zeppelin": {}}}},
    },
    "array items": {
        "properties": {
            "rows": {"type": "array", "items": {"type": "object", "properties": {"zeppelin": {}}}}
        },
    },
    "anyOf branch": {
        "properties": {"target": {"anyOf": [{"type": "string"}, {"properties": {"zeppelin": {}}}]}},
    },
    "$ref to $defs": {
        "properties": {"target": {"$ref": "#/$defs/Target"}},
        "$defs": {"Target": {"type": "object", "properties": {"zeppelin": {}}}},
    },
}


def _schema(body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", **body}


class TestEveryFieldIsSearchable:
    @pytest.mark.parametrize(
        ("field", "tool_fields"),
        [
            ("name", {"name": "zeppelin_tracker"}),
            ("namespace", {"namespace": "zeppelin"}),
            ("description", {"description": "Tracks every zeppelin in the sky."}),
            ("tags", {"tags": ["zeppelin"]}),
            (
                "parameter_names",
                {"input_schema": _schema({"properties": {"zeppelin": {"type": "string"}}})},
            ),
            (
                "parameter_descriptions",
                {"input_schema": _schema({"properties": {"craft": string_param("A zeppelin")}})},
            ),
            (
                "enum_values",
                {
                    "input_schema": _schema(
                        {"properties": {"kind": {"enum": ["blimp", "zeppelin"]}}}
                    )
                },
            ),
        ],
    )
    def test_word_in_one_field_is_found_and_reported_in_that_field(
        self, field: str, tool_fields: dict[str, Any]
    ) -> None:
        tool = Tool(**{"name": "some_tool", **tool_fields})
        index = make_index([tool, *standard_tools()], threshold=0)
        results = index.search("zeppelin")
        assert names(results) == [tool.name]
        assert results[0].matched_fields == {"zeppelin": (field,)}

    @pytest.mark.parametrize("where", list(_NESTED_SCHEMAS))
    def test_parameter_names_deep_in_the_schema_are_found(self, where: str) -> None:
        tool = Tool(name="some_tool", input_schema=_schema(_NESTED_SCHEMAS[where]))
        results = make_index([tool, *standard_tools()], threshold=0).search("zeppelin")
        assert names(results) == ["some_tool"]
        assert "parameter_names" in results[0].matched_fields["zeppelin"]

    @pytest.mark.parametrize(
        "schema",
        [
            {"properties": {"a": {"properties": {"b": string_param("the zeppelin id")}}}},
            {"properties": {"a": {"type": "array", "items": string_param("a zeppelin id")}}},
            {"properties": {"a": {"oneOf": [string_param("a zeppelin id"), {"type": "null"}]}}},
            {
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"type": "string", "description": "a zeppelin id"}},
            },
        ],
        ids=["nested", "array", "oneOf", "$ref"],
    )
    def test_parameter_descriptions_deep_in_the_schema_are_found(
        self, schema: dict[str, Any]
    ) -> None:
        tool = Tool(name="some_tool", input_schema=_schema(schema))
        results = make_index([tool, *standard_tools()], threshold=0).search("zeppelin")
        assert names(results) == ["some_tool"]
        assert results[0].matched_fields == {"zeppelin": ("parameter_descriptions",)}

    def test_matched_terms_say_which_query_term_hit_which_fields(self, index: ToolIndex) -> None:
        (hit,) = index.search("slack channel limit", k=1)
        assert hit.tool.name == "list_slack_channels"
        fields = hit.matched_fields
        assert set(fields["slack"]) == {"name", "namespace", "description"}
        assert "name" in fields["channel"]
        assert fields["limit"] == ("parameter_names",)


class TestKeywordStuffing:
    @pytest.mark.parametrize("spam_name", ["super_assistant", "weather_tool"])
    def test_repeating_a_word_does_not_outrank_a_genuine_tool(self, spam_name: str) -> None:
        spam = make_tool(spam_name, "Weather! " + "weather " * 200)
        tools = standard_tools()
        index = make_index([spam, *tools], threshold=0)
        ranking = names(index.search("weather"))
        assert ranking.index("get_current_weather") < ranking.index(spam_name)

    def test_stuffing_does_not_flood_the_top_k(self) -> None:
        spammers = [make_tool(f"helper_{i}", "weather " * 200) for i in range(10)]
        index = make_index([*spammers, *standard_tools()], threshold=0)
        assert names(index.search("current weather", k=3))[0] == "get_current_weather"

    def test_term_frequency_saturates(self) -> None:
        def score_with(description: str) -> float:
            tools = [make_tool("mystery_tool", description), *standard_tools()[2:]]
            (hit,) = make_index(tools, threshold=0).search("weather")
            return hit.score

        once = score_with("weather")
        stuffed = score_with(" ".join(["weather"] * 200))
        assert once < stuffed < 3 * once

    def test_the_part_of_a_huge_description_past_the_limit_is_ignored(self) -> None:
        from toolscout.search.analysis import MAX_FIELD_CHARS

        stuffed = make_tool("stuffed", "x " * MAX_FIELD_CHARS + "weather " * 10_000)
        index = make_index([stuffed, *standard_tools()], threshold=0)
        assert "stuffed" not in names(index.search("weather"))

    def test_parameter_descriptions_past_the_limit_are_ignored_together(self) -> None:
        from toolscout.search.analysis import MAX_FIELD_CHARS

        # Each description is short; together they pass the limit of one field.
        parameters = {f"p{i}": string_param("x " * 500) for i in range(MAX_FIELD_CHARS // 1000)}
        parameters["last"] = string_param("current weather " * 50)
        stuffed = make_tool("stuffed", "Does nothing.", parameters=parameters)
        index = make_index([stuffed, *standard_tools()], threshold=0)
        assert "stuffed" not in names(index.search("current weather"))


class TestPrefixMatching:
    def test_partial_word_finds_the_full_word(self, index: ToolIndex) -> None:
        results = index.search("weath", threshold=0)
        assert names(results)[0] == "get_current_weather"
        assert {(term.index_term, term.kind) for term in results[0].matched_terms} == {
            ("weather", "prefix")
        }

    def test_partial_word_with_a_complete_one(self, index: ToolIndex) -> None:
        results = index.search("calend upcoming")
        assert names(results)[0] == "list_calendar_events"
        kinds = {(t.query_term, t.index_term, t.kind) for t in results[0].matched_terms}
        assert ("calend", "calendar", "prefix") in kinds

    def test_prefix_match_counts_prefix_weight_of_an_exact_match(self, index: ToolIndex) -> None:
        exact = index.search("weather", threshold=0)[0]
        partial = index.search("weath", threshold=0)[0]
        assert exact.tool.name == partial.tool.name == "get_current_weather"
        assert partial.score == pytest.approx(BM25Options().prefix_weight * exact.score)

    def test_a_word_the_catalog_has_is_not_expanded_to_longer_words(self) -> None:
        tools = [make_tool("weathervane_status", "Report the weathervane."), *standard_tools()]
        results = make_index(tools, threshold=0).search("weather", k=20)
        assert "weathervane_status" not in names(results)
        assert "weathervane_status" in names(make_index(tools, threshold=0).search("weath"))

    @pytest.mark.parametrize("query", ["s", "sl", "c", "ca", "g", "gi"])
    def test_one_or_two_letters_never_prefix_match(self, index: ToolIndex, query: str) -> None:
        results = index.search(query, threshold=0)
        assert list(results) == []
        assert results.notice

    def test_min_prefix_length_is_configurable(self) -> None:
        index = make_index(threshold=0, bm25=BM25Options(min_prefix_length=2))
        assert "sendSlackMessage" in names(index.search("sl"))

    def test_a_word_the_catalog_has_is_not_also_prefix_matched(self, index: ToolIndex) -> None:
        for hit in index.search("list", threshold=0):
            assert all(term.kind != "prefix" for term in hit.matched_terms)

    def test_numbers_are_not_prefix_matched(self) -> None:
        index = make_index([make_tool("http_get", "Returns 404 when missing.")], threshold=0)
        assert names(index.search("40")) == []

    def test_prefix_expansions_are_bounded(self) -> None:
        tools = [make_tool(f"tool_{i}", f"Handles widget{i:04d} records.") for i in range(200)]
        index = make_index(tools, threshold=0, bm25=BM25Options(max_prefix_expansions=5))
        assert len(index.search("widget", k=100)) == 5


class TestSynonyms:
    def test_remove_finds_delete_file(self, index: ToolIndex) -> None:
        results = index.search("remove a file")
        assert names(results)[0] == "delete_file"
        kinds = {(t.query_term, t.index_term, t.kind) for t in results[0].matched_terms}
        assert ("remove", "delet", "synonym") in kinds

    def test_mail_finds_send_email(self, index: ToolIndex) -> None:
        results = index.search("mail", threshold=0)
        assert "send_email" in names(results)[:2]
        hit = next(h for h in results if h.tool.name == "send_email")
        assert [(t.index_term, t.kind) for t in hit.matched_terms] == [("email", "synonym")]

    def test_send_mail_ranks_send_email_first(self, index: ToolIndex) -> None:
        assert names(index.search("send mail"))[0] == "send_email"

    def test_save_finds_the_tool_that_writes_a_file(self) -> None:
        tools = [
            make_tool("write_file", "Create a new file or overwrite one with new content."),
            make_tool("convert_to_markdown", "Convert a PDF or Word document to Markdown."),
            make_tool("list_directory", "List the files of a directory."),
        ]
        results = make_index(tools, threshold=0).search("save the notes as a file")
        assert names(results)[0] == "write_file"
        kinds = {(t.query_term, t.index_term, t.kind) for t in results[0].matched_terms}
        assert ("save", "write", "synonym") in kinds

    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ("files of PR 88", "get_pull_request_files"),
            ("new merge request", "create_pull_request"),
            ("msg", "send_message"),
            ("img", "resize_image"),
            ("k8s", "list_kubernetes_pods"),
            ("tz of Tokyo", "get_timezone"),
        ],
    )
    def test_abbreviations_find_the_words_tools_spell_out(self, query: str, expected: str) -> None:
        tools = [
            make_tool("get_pull_request_files", "List the files changed in a pull request."),
            make_tool("create_pull_request", "Open a new pull request from a branch."),
            make_tool("list_files", "List the files of a directory."),
            make_tool("send_message", "Send a message to a channel."),
            make_tool("resize_image", "Resize an image to the given width and height."),
            make_tool("list_kubernetes_pods", "List the pods of a Kubernetes cluster."),
            make_tool("get_timezone", "The timezone of a city."),
            make_tool("convert_timezone", "Convert a time from one time zone to another."),
        ]
        assert names(make_index(tools, threshold=0).search(query))[0] == expected

    def test_a_tool_that_says_a_word_pair_another_way_is_found(self) -> None:
        # Its only match is the pair's synonym: it matches no single word of the query.
        tools = [
            make_tool("fetch", "Fetch a URL and return its content as markdown."),
            make_tool("get_timezone", "The timezone of a city."),
            make_tool("list_pages", "List the pages of a notebook."),
            make_tool("search_web", "Search the web."),
            make_tool("convert_time", "Convert a time from one zone to another."),
        ]
        index = make_index(tools, threshold=0)
        assert "fetch" in names(index.search("the web page"))
        assert "get_timezone" in names(index.search("time zone of Tokyo"))

    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ("log in to the admin site", "site_login"),
            ("login to the admin site", "site_login"),
            ("log into the admin site", "site_login"),
            ("back up the orders database", "create_backup"),
            ("sign up a new customer", "register_customer"),
            ("set up the dev environment", "environment_setup"),
        ],
    )
    def test_phrasal_verbs_find_the_tools_that_write_them_as_one_word(
        self, query: str, expected: str
    ) -> None:
        # Word by word, "log in" is a log, "back up" goes back, "set up" sets a value.
        tools = [
            make_tool("site_login", "Log in to a website with a username and password."),
            make_tool("read_logs", "Read the admin site's access logs."),
            make_tool("write_log", "Write an entry to the application log."),
            make_tool("create_backup", "Create a backup of a database."),
            make_tool("restore_database", "Go back to an earlier state of a database."),
            make_tool("register_customer", "Register a new customer."),
            make_tool("list_customers", "List the customers of the shop."),
            make_tool("environment_setup", "Prepare the setup of a development environment."),
            make_tool("set_variable", "Set an environment variable of the dev server."),
        ]
        assert names(make_index(tools, threshold=0).search(query))[0] == expected

    def test_a_presentation_is_not_something_present(self) -> None:
        tools = [
            make_tool("create_presentation", "Create a slide presentation from an outline."),
            make_tool("has_key", "Check whether a key is present in the store."),
            make_tool("list_keys", "List the keys of the store."),
        ]
        index = make_index(tools, threshold=0)
        assert names(index.search("a presentation about sales")) == ["create_presentation"]
        assert names(index.search("make a powerpoint about sales")) == ["create_presentation"]
        assert names(index.search("slides for the sales review")) == ["create_presentation"]

    def test_synonym_match_ranks_below_exact_match(self) -> None:
        tools = [
            make_tool("remove_user", "Remove a user account."),
            make_tool("delete_user", "Delete a user account."),
        ]
        results = make_index(tools, threshold=0).search("delete user")
        assert names(results) == ["delete_user", "remove_user"]
        assert results[0].score > results[1].score

    def test_a_word_counts_once_even_with_several_synonyms_present(self) -> None:
        both = make_tool("erase_remove_drop", "Erase, remove or drop records.")
        exact = make_tool("delete_records", "Delete records.")
        results = make_index([both, exact], threshold=0).search("delete")
        assert names(results)[0] == "delete_records"

    def test_synonyms_can_be_turned_off(self) -> None:
        index = make_index(threshold=0, bm25=BM25Options(synonyms=False))
        assert "delete_file" not in names(index.search("remove"))

    def test_matched_synonyms_are_listed_in_the_same_order_in_every_process(self) -> None:
        # String hashes differ between processes; the explanation must not follow them.
        script = (
            "from toolscout.catalog import Tool\n"
            "from toolscout.search import ToolIndex\n"
            "tool = Tool(name='finder', description='Search, look up, locate or find records.')\n"
            "hit = ToolIndex([tool], engine='bm25').search('find records', threshold=0)[0]\n"
            "print([term.index_term for term in hit.matched_terms])\n"
        )
        outputs = {
            subprocess.run(
                [sys.executable, "-c", script],
                env={**os.environ, "PYTHONHASHSEED": str(seed)},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for seed in range(4)
        }
        assert len(outputs) == 1
        assert "'search'" in outputs.pop()

    def test_a_synonym_scores_the_same_whether_or_not_another_tool_has_parameters(self) -> None:
        # Parameters are a supporting field; a catalog without any once weighed synonyms by
        # their idf twice.
        event = make_tool("create_event", "Create an event in the calendar.")
        plain = [event, make_tool("delete_file", "Delete a file from disk.")]
        with_parameter = [
            event,
            make_tool("delete_file", "Delete a file from disk.", parameters={"path": {}}),
        ]
        scores = [
            make_index(tools, threshold=0).search("add an event")[0].score
            for tools in (plain, with_parameter)
        ]
        assert scores[0] == pytest.approx(scores[1])

    def test_synonym_weight_is_configurable(self) -> None:
        tools = [make_tool("remove_user", "Remove a user."), make_tool("kill_user", "Kill.")]
        weak = make_index(tools, threshold=0, bm25=BM25Options(synonym_weight=0.1))
        strong = make_index(tools, threshold=0, bm25=BM25Options(synonym_weight=1.0))
        weak_score = weak.search("delete user")[0].score
        strong_score = strong.search("delete user")[0].score
        assert weak_score < strong_score


class TestTiesAndOrder:
    @staticmethod
    def twins(order: list[str]) -> list[Tool]:
        return [make_tool(name, "Convert an amount between two currencies.") for name in order]

    def test_equal_scores_keep_catalog_order(self) -> None:
        order = ["gamma", "alpha", "delta", "beta"]
        results = make_index(self.twins(order), threshold=0).search("currencies")
        assert names(results) == order
        assert len({hit.score for hit in results}) == 1

    def test_reversed_catalog_reverses_the_ties(self) -> None:
        order = ["gamma", "alpha", "delta", "beta"]
        results = make_index(self.twins(order[::-1]), threshold=0).search("currencies")
        assert names(results) == order[::-1]

    def test_ties_at_the_cut_off_keep_catalog_order(self) -> None:
        order = [f"twin_{i:02d}" for i in range(30)]
        results = make_index(self.twins(order), threshold=0).search("currencies", k=7)
        assert names(results) == order[:7]

    def test_the_order_of_a_schemas_properties_changes_no_score(self) -> None:
        # Word pairs are words of one description, whichever comes first.
        forward, backward = forecast_tool_both_ways()
        others = standard_tools()
        uncached = BM25Options(cache=False)  # one fingerprint: the second would read the first
        for query in ("temperature city", "name units", "forecast of the temperature"):
            scores = [
                [
                    hit.score
                    for hit in make_index([tool, *others], threshold=0, bm25=uncached).search(query)
                ]
                for tool in (forward, backward)
            ]
            assert scores[0] == scores[1], query

    def test_a_schemas_texts_are_read_in_its_order_in_every_process(self) -> None:
        # The analysis cache keeps a tool's terms in order; a node's subschemas must not come
        # in the order of a set of their keys, which string hashes decide.
        script = (
            "from toolscout.catalog import Tool\n"
            "from toolscout.search.fields import tool_fields\n"
            "branches = {key: [{'description': key}] for key in ('anyOf', 'oneOf', 'allOf')}\n"
            "schema = {'type': 'object', 'properties': {'p': {'items': {'description': 'i'},"
            " **branches}}}\n"
            "tool = Tool(name='t', description='d', input_schema=schema)\n"
            "print(tool_fields(tool)['parameter_descriptions'])\n"
        )
        outputs = {
            subprocess.run(
                [sys.executable, "-c", script],
                env={**os.environ, "PYTHONHASHSEED": str(seed)},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for seed in range(4)
        }
        assert outputs == {"['i', 'anyOf', 'oneOf', 'allOf']\n"}

    def test_results_are_sorted_by_score_and_ranked_from_one(self, index: ToolIndex) -> None:
        results = index.search("list events in my calendar", k=10, threshold=0)
        scores = [hit.score for hit in results]
        assert scores == sorted(scores, reverse=True)
        assert [hit.rank for hit in results] == list(range(1, len(results) + 1))


class TestOptions:
    @pytest.mark.parametrize(
        ("options", "named"),
        [
            ({"k1": -0.1}, "k1"),
            ({"b": 1.5}, "b"),
            ({"b": -0.1}, "b"),
            ({"field_weights": {"title": 1.0}}, "title"),
            ({"field_weights": {"name": -1.0}}, "weights"),
            ({"synonym_weight": 1.5}, "synonym_weight"),
            ({"prefix_weight": -0.5}, "prefix_weight"),
            ({"min_prefix_length": 1}, "min_prefix_length"),
        ],
    )
    def test_impossible_options_are_refused_with_the_name(
        self, options: dict[str, Any], named: str
    ) -> None:
        with pytest.raises(SearchConfigError, match=named):
            BM25Options(**options)

    def test_length_normalisation_b(self) -> None:
        short = make_tool("short_tool", "Resize an image.")
        long = make_tool(
            "long_tool",
            "Resize an image and keep its aspect ratio while adjusting print quality settings.",
        )

        def ranking(b: float) -> list[tuple[str, float]]:
            index = make_index([long, short], threshold=0, bm25=BM25Options(b=b))
            return [(hit.tool.name, hit.score) for hit in index.search("resize")]

        (_, long_score), (_, short_score) = sorted(ranking(0.0))
        assert long_score == pytest.approx(short_score)  # b=0: length does not matter
        assert [name for name, _ in ranking(1.0)] == ["short_tool", "long_tool"]

    def test_saturation_k1(self) -> None:
        repeated = make_tool("repeated", "image image image image")
        once = make_tool("once", "image cat dog bird")

        def scores(k1: float) -> dict[str, float]:
            index = make_index([once, repeated], threshold=0, bm25=BM25Options(k1=k1, b=0))
            return {hit.tool.name: hit.score for hit in index.search("image")}

        assert scores(0.0)["repeated"] == pytest.approx(scores(0.0)["once"])
        assert scores(1.5)["repeated"] > scores(1.5)["once"]
        assert scores(5.0)["repeated"] / scores(5.0)["once"] > (
            scores(1.5)["repeated"] / scores(1.5)["once"]
        )


class TestNormalizedScores:
    def test_normalized_scores_are_between_zero_and_one(self, index: ToolIndex) -> None:
        for query in ["weather", "send a slack message", "get", "calend", "mail", "file"]:
            for hit in index.search(query, k=20, threshold=0):
                assert 0 <= hit.normalized_score <= 1

    def test_normalized_order_follows_raw_order(self, index: ToolIndex) -> None:
        results = index.search("list events in my calendar", k=20, threshold=0)
        normalized = [hit.normalized_score for hit in results]
        assert normalized == sorted(normalized, reverse=True)

    def test_a_rare_word_once_in_name_and_description_scores_one_half(self) -> None:
        # Names and descriptions of one word each: every field has the average length.
        tools = [make_tool(word, word) for word in ["zorp", "blip", "quux", "frob", "wibble"]]
        # A one-word query is held to a third of the scale: score / (score + scale / 3).
        (hit,) = make_index(tools, threshold=0).search("zorp")
        assert hit.normalized_score == pytest.approx(0.75)
        # Nine words or more are held to the whole scale: the same match scores one half.
        (hit,) = make_index(tools, threshold=0).search(
            "zorp " + " ".join(f"w{i}" for i in range(8))
        )
        assert hit.normalized_score == pytest.approx(0.5)

    def test_exact_name_query_is_a_strong_match(self, index: ToolIndex) -> None:
        for tool in standard_tools():
            best = index.search(tool.name)[0]
            assert best.normalized_score > 0.6, tool.name

    def test_normalized_scores_compare_across_catalog_sizes(self) -> None:
        small = make_index(threshold=0)
        filler = [make_tool(f"filler_{i}", f"Does chore number {i}.") for i in range(500)]
        large = make_index([*standard_tools(), *filler], threshold=0)
        small_hit = small.search("delete file")[0]
        large_hit = large.search("delete file")[0]
        assert small_hit.tool.name == large_hit.tool.name == "delete_file"
        assert large_hit.score > small_hit.score  # rarer words, higher idf
        assert large_hit.normalized_score == pytest.approx(small_hit.normalized_score, abs=0.15)


class TestThresholds:
    def test_query_no_tool_serves_returns_nothing_and_a_notice(self, index: ToolIndex) -> None:
        results = index.search("quantum chromodynamics lattice")
        assert list(results) == []
        assert results.notice
        assert "retry" in results.notice

    def test_weak_incidental_match_is_dropped_by_default(self, index: ToolIndex) -> None:
        results = index.search("book a flight to Paris")
        assert list(results) == []
        assert results.notice
        assert names(index.search("book a flight to Paris", threshold=0)) == ["get_current_weather"]

    def test_weaker_matches_below_a_relevant_best_stay(self, index: ToolIndex) -> None:
        default = index.search("slack message", k=10)
        everything = index.search("slack message", k=10, threshold=0)
        assert default[0].normalized_score >= DEFAULT_THRESHOLD
        assert min(hit.normalized_score for hit in default) < DEFAULT_THRESHOLD
        assert all(hit.normalized_score >= DEFAULT_THRESHOLD / 2 for hit in default)
        assert names(everything)[: len(default)] == names(default)

    def test_index_default_threshold_is_used_and_can_be_overridden(self) -> None:
        strict = make_index(threshold=0.99)
        assert list(strict.search("weather")) == []
        assert names(strict.search("weather", threshold=0))[0] == "get_current_weather"

    @pytest.mark.parametrize("threshold", [0.2, 0.4, 0.6, 0.8, 1.0])
    def test_threshold_keeps_the_ranking_when_the_best_hit_reaches_it(
        self, index: ToolIndex, threshold: float
    ) -> None:
        everything = index.search("get current weather", k=20, threshold=0)
        kept = index.search("get current weather", k=20, threshold=threshold)
        best = everything[0].normalized_score
        floor = max(threshold / 2, best / 3)
        kept_ones = [hit.tool.name for hit in everything if hit.normalized_score >= floor]
        assert names(kept) == (kept_ones if best >= threshold else [])

    def test_min_score_compares_raw_scores(self, index: ToolIndex) -> None:
        everything = index.search("slack message", k=10, threshold=0)
        cut = everything[1].score
        kept = index.search("slack message", k=10, threshold=0, min_score=cut)
        assert names(kept) == names(everything)[:2]
        assert all(hit.score >= cut for hit in kept)

    def test_min_score_above_one_is_allowed_because_raw_scores_are_unbounded(
        self, index: ToolIndex
    ) -> None:
        results = index.search("get current weather", min_score=5.0, threshold=0)
        assert names(results)[0] == "get_current_weather"
        assert all(hit.score >= 5.0 for hit in results)

    def test_min_score_past_every_hit_returns_nothing_and_a_notice(self, index: ToolIndex) -> None:
        results = index.search("weather", min_score=1e9)
        assert list(results) == []
        assert results.notice


class TestExplanations:
    def test_every_hit_explains_itself(self, index: ToolIndex) -> None:
        for hit in index.search("create an event in my calendar", k=10, threshold=0):
            assert hit.matched_terms
            for term in hit.matched_terms:
                assert term.fields
                assert term.kind in {"exact", "synonym", "prefix"}

    def test_query_term_is_the_casefolded_word_and_index_term_the_stem(
        self, index: ToolIndex
    ) -> None:
        (hit,) = index.search("Pull Requests", k=1)
        assert {(t.query_term, t.index_term, t.kind) for t in hit.matched_terms} == {
            ("pull", "pull", "exact"),
            ("requests", "request", "exact"),
            ("pull requests", "pull request", "exact"),  # the phrase, as a word pair
        }

    def test_whole_identifier_match_is_reported_in_the_name(self, index: ToolIndex) -> None:
        (hit,) = index.search("delete_file", k=1)
        whole = [t for t in hit.matched_terms if t.query_term == "delete_file"]
        assert [(t.index_term, t.fields, t.kind) for t in whole] == [
            ("delete_file", ("name",), "exact")
        ]

    def test_matched_fields_merge_match_kinds(self, index: ToolIndex) -> None:
        (hit,) = [hit for hit in index.search("weather") if hit.tool.name == "get_forecast"]
        kinds = {t.kind for t in hit.matched_terms if t.query_term == "weather"}
        assert kinds == {"exact", "synonym"}  # "weather" itself, and "forecast"
        assert set(hit.matched_fields) == {"weather"}
        assert set(hit.matched_fields["weather"]) == {"name", "namespace", "description", "tags"}

    def test_unmatched_query_words_are_not_reported(self, index: ToolIndex) -> None:
        (hit,) = index.search("delete file quantum", k=1)
        assert "quantum" not in hit.matched_fields


class TestSearchMany:
    def test_one_result_per_query_in_order(self, index: ToolIndex) -> None:
        queries = ["weather", "send email", "quantum chromodynamics lattice", ""]
        batch = index.search_many(queries, k=3)
        assert [results.query for results in batch] == queries
        for query, results in zip(queries, batch, strict=True):
            single = index.search(query, k=3)
            assert names(results) == names(single)
            assert [h.score for h in results] == [h.score for h in single]
            assert results.notice == single.notice

    def test_options_apply_to_every_query(self, index: ToolIndex) -> None:
        batch = index.search_many(
            ["weather", "file"], k=1, threshold=0, filter=lambda t: t.namespace != "weather"
        )
        assert names(batch[0]) == []
        assert batch[0].notice
        assert len(batch[1]) == 1
        assert batch[1][0].tool.namespace == "files"

    def test_empty_batch(self, index: ToolIndex) -> None:
        assert index.search_many([]) == []


class TestOptionLimits:
    def test_name_and_description_cannot_both_weigh_nothing(self) -> None:
        weights = {**DEFAULT_FIELD_WEIGHTS, "name": 0.0, "description": 0.0}
        with pytest.raises(SearchConfigError, match="name or the description"):
            BM25Options(field_weights=weights)

    def test_prefix_expansion_keeps_the_closest_completions(self) -> None:
        # 70 long words share the prefix with one short one; the cap keeps the short one.
        tools = [
            make_tool(f"t{i}", f"Handles zebrafishtankcleaner{i:03d} jobs.") for i in range(70)
        ]
        tools.append(make_tool("zebra_tool", "Feeds the zebras."))
        index = make_index(tools, bm25=BM25Options(max_prefix_expansions=5), threshold=0)
        assert names(index.search("zebr", k=3))[0] == "zebra_tool"


class TestNotices:
    def test_a_query_of_only_common_words_says_so(self, index: ToolIndex) -> None:
        results = index.search("the of and to")
        assert list(results) == []
        assert results.notice and "only common words" in results.notice


class TestBuilding:
    @pytest.mark.parametrize("enabled", [True, False])
    def test_building_leaves_the_garbage_collector_as_it_found_it(self, enabled: bool) -> None:
        # Building pauses the collector; a program's own setting must survive it.
        was_enabled = gc.isenabled()
        (gc.enable if enabled else gc.disable)()
        try:
            make_index(standard_tools()).search("weather")
            assert gc.isenabled() is enabled
        finally:
            (gc.enable if was_enabled else gc.disable)()
