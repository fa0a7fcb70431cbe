"""The catalog lint: what it flags, what it leaves alone, and that duplicates are exact."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from toolscout.catalog import Tool
from toolscout.catalog.lint import (
    LINT_CODES,
    LintIssue,
    lint_tools,
    name_collisions,
    undocumented_parameters,
)

GOOD_DESCRIPTION = "Get the current weather conditions for a city, in metric or imperial units."


def make_tool(
    name: str,
    description: str = GOOD_DESCRIPTION,
    *,
    namespace: str | None = None,
    properties: dict[str, Any] | None = None,
) -> Tool:
    return Tool(
        name=name,
        namespace=namespace,
        description=description,
        input_schema={"type": "object", "properties": properties or {}},
    )


def codes_by_tool(issues: list[LintIssue]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for issue in issues:
        found.setdefault(issue.tool_id, []).append(issue.code)
    return found


class TestDescriptions:
    @pytest.mark.parametrize("description", ["", "   \n "])
    def test_missing_description(self, description: str) -> None:
        issues = lint_tools([make_tool("send_email", description)])
        assert [issue.code for issue in issues] == ["missing-description"]

    @pytest.mark.parametrize(
        "description",
        ["Sends an email.", "Get it for me", "Email"],
        ids=["three words", "under 20 characters", "one word"],
    )
    def test_short_description(self, description: str) -> None:
        (issue,) = lint_tools([make_tool("send_email", description)])
        assert issue.code == "short-description"
        assert description in issue.message

    def test_a_real_description_passes(self) -> None:
        assert lint_tools([make_tool("get_weather")]) == []


class TestDuplicateDescriptions:
    def test_same_words_in_another_case_and_punctuation(self) -> None:
        tools = [
            make_tool("send_email", "Send an email message to one or more recipients."),
            make_tool("send_mail", "send an EMAIL message, to one or more recipients"),
            make_tool("get_weather"),
        ]
        issues = [i for i in lint_tools(tools) if i.code == "duplicate-description"]
        assert [i.tool_id for i in issues] == ["send_email", "send_mail"]
        assert "send_mail" in issues[0].message
        assert "send_email" in issues[1].message

    def test_one_word_changed_in_a_long_description(self) -> None:
        long_description = f"{GOOD_DESCRIPTION} Also gives the wind speed and humidity."
        changed = long_description.replace("humidity", "pressure")
        tools = [make_tool("a", long_description), make_tool("b", changed)]
        assert codes_by_tool(lint_tools(tools)) == {
            "a": ["duplicate-description"],
            "b": ["duplicate-description"],
        }

    def test_different_descriptions_are_not_duplicates(self) -> None:
        tools = [
            make_tool("get_weather"),
            make_tool("get_forecast", "Get the weather forecast for the next seven days."),
        ]
        assert lint_tools(tools) == []

    def test_many_copies_of_one_description_form_one_group(self) -> None:
        tools = [
            make_tool(f"tool_{n}", "Run a query against the analytics warehouse.")
            for n in range(300)
        ]
        issues = lint_tools(tools)
        assert len(issues) == 300
        assert "and 294 more" in issues[0].message

    @pytest.mark.parametrize("similarity", [0.5, 0.75, 0.9, 1.0])
    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_finds_exactly_the_pairs_a_full_comparison_finds(
        self, similarity: float, seed: int
    ) -> None:
        rng = random.Random(seed)
        vocabulary = [f"w{n}" for n in range(40)]
        descriptions = [" ".join(rng.sample(vocabulary, rng.randint(2, 14))) for _ in range(250)]
        tools = [make_tool(f"tool_{n}", text) for n, text in enumerate(descriptions)]
        word_sets = [set(text.split()) for text in descriptions]
        expected = set()
        for i, j in combinations(range(len(tools)), 2):
            shared = len(word_sets[i] & word_sets[j])
            if shared / len(word_sets[i] | word_sets[j]) >= similarity:
                expected |= {tools[i].id, tools[j].id}
        issues = lint_tools(tools, duplicate_similarity=similarity)
        flagged = {i.tool_id for i in issues if i.code == "duplicate-description"}
        assert flagged == expected

    def test_similarity_out_of_range_is_refused(self) -> None:
        with pytest.raises(ValueError, match=r"\(0, 1\]"):
            lint_tools([make_tool("a")], duplicate_similarity=0)


class TestUndocumentedParameters:
    def test_top_level_and_nested_parameters(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "Recipient address"},
                "subject": {"type": "string"},
                "attachments": {
                    "type": "array",
                    "description": "Files to attach",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "description": "File path"},
                            "mime_type": {"type": "string"},
                        },
                    },
                },
                "options": {
                    "anyOf": [
                        {"type": "object", "properties": {"priority": {"type": "string"}}},
                        {"type": "null"},
                    ],
                    "description": "Delivery options",
                },
            },
        }
        assert undocumented_parameters(schema) == [
            "subject",
            "attachments[].mime_type",
            "options.priority",
        ]

    def test_description_found_through_a_ref(self) -> None:
        schema = {
            "type": "object",
            "properties": {"address": {"$ref": "#/$defs/Address"}},
            "$defs": {
                "Address": {
                    "type": "object",
                    "description": "A postal address",
                    "properties": {"street": {"type": "string"}},
                }
            },
        }
        assert undocumented_parameters(schema) == ["address.street"]

    def test_recursive_schema_is_walked_once(self) -> None:
        schema = {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "Tree root"}},
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                }
            },
        }
        assert undocumented_parameters(schema) == ["root.children"]

    def test_reported_once_per_tool(self) -> None:
        tool = make_tool("create_event", properties={"title": {"type": "string"}, "start": {}})
        (issue,) = lint_tools([tool])
        assert issue.code == "undocumented-parameter"
        assert "title, start have no description" in issue.message


class TestNameCollisions:
    def test_same_name_in_two_namespaces(self) -> None:
        tools = [
            make_tool(
                "search", "Search files by name or content in the shared drive.", namespace="files"
            ),
            make_tool(
                "search", "Search messages in channels the user is a member of.", namespace="slack"
            ),
            make_tool("get_weather", namespace="weather"),
        ]
        assert codes_by_tool(lint_tools(tools)) == {
            "files__search": ["name-collision"],
            "slack__search": ["name-collision"],
        }
        assert {name: [t.id for t in group] for name, group in name_collisions(tools).items()} == {
            "search": ["files__search", "slack__search"]
        }


class TestNames:
    @pytest.mark.parametrize("name", ["get weather", "get\tweather", " get_weather"])
    def test_a_name_with_spaces_is_refused_by_providers(self, name: str) -> None:
        (issue,) = lint_tools([make_tool(name)])
        assert issue.code == "invalid-name"
        assert repr(name) in issue.message
        assert "OpenAI and Anthropic" in issue.message

    @pytest.mark.parametrize("name", ["get_weather", "get-weather", "getWeather2"])
    def test_names_providers_accept_pass(self, name: str) -> None:
        assert lint_tools([make_tool(name)]) == []


class TestIssueOrder:
    def test_in_tool_order_then_code_order(self) -> None:
        tools = [
            make_tool("b_tool", "", properties={"x": {}}),
            make_tool("a_tool", "Short.", properties={"y": {}}),
        ]
        assert [(i.tool_id, i.code) for i in lint_tools(tools)] == [
            ("b_tool", "missing-description"),
            ("b_tool", "undocumented-parameter"),
            ("a_tool", "short-description"),
            ("a_tool", "undocumented-parameter"),
        ]

    def test_codes_are_stable(self) -> None:
        assert LINT_CODES == (
            "missing-description",
            "short-description",
            "duplicate-description",
            "undocumented-parameter",
            "name-collision",
            "keyword-stuffing",
            "invalid-name",
        )


class TestKeywordStuffing:
    def test_repeated_tags(self) -> None:
        tool = make_tool("get_weather").model_copy(update={"tags": ("weather", "Weather", "paris")})
        (issue,) = lint_tools([tool])
        assert issue.code == "keyword-stuffing"
        assert "'weather' ×2" in issue.message

    def test_one_description_on_many_parameters(self) -> None:
        properties = {
            f"p{i}": {"type": "string", "description": "Weather forecast"} for i in range(5)
        }
        (issue,) = lint_tools([make_tool("get_weather", properties=properties)])
        assert issue.code == "keyword-stuffing"
        assert "5 parameters share the description 'weather forecast'" in issue.message

    def test_one_word_many_times(self) -> None:
        (issue,) = lint_tools([make_tool("get_weather", GOOD_DESCRIPTION + " weather" * 12)])
        assert issue.code == "keyword-stuffing"
        assert "'weather' is 13 of its" in issue.message

    def test_all_signs_make_one_issue(self) -> None:
        properties = {f"p{i}": {"type": "string", "description": "weather"} for i in range(20)}
        tool = make_tool("get_weather", properties=properties).model_copy(
            update={"tags": ("weather",) * 3}
        )
        (issue,) = lint_tools([tool])
        assert "repeated tags 'weather' ×3" in issue.message
        assert "20 parameters share the description 'weather'" in issue.message
        assert "'weather' is 24 of its 36 words" in issue.message

    def test_ordinary_tools_are_left_alone(self) -> None:
        long_description = " ".join(
            f"The file tool reads file number {i} of the project and reports its size."
            for i in range(8)
        )
        properties = {
            "start": {"type": "string", "description": "Date (YYYY-MM-DD)"},
            "end": {"type": "string", "description": "Date (YYYY-MM-DD)"},
        }
        tools = [
            make_tool("read_files", long_description, properties=properties),
            make_tool("get_weather").model_copy(update={"tags": ("weather", "forecast")}),
        ]
        assert lint_tools(tools) == []

    def test_the_demo_catalog_has_none(self) -> None:
        from toolscout.catalog import Catalog
        from toolscout.data import demo_catalog_path

        issues = lint_tools(Catalog.from_file(demo_catalog_path()))
        assert not [issue for issue in issues if issue.code == "keyword-stuffing"]
