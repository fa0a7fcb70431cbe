"""Arguments checked against the tool's input schema: patterns run in linear time, every
check is bounded, and what cannot be checked safely is refused (issue 13, break 2)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from toolscout import Tool
from toolscout.protocol import ToolCall, ToolResult, ToolSearch


def guarded(schema_of_text: dict[str, Any] | None = None, **schema: Any) -> ToolSearch:
    """A ToolSearch over one always-visible tool `guarded`, whose input schema is `schema`
    or an object with one property `text` described by `schema_of_text`."""
    if schema_of_text is not None:
        schema = {"type": "object", "properties": {"text": schema_of_text}}
    tool = Tool(
        name="guarded",
        description="A tool whose arguments must fit its schema.",
        input_schema={"type": "object", **schema},
        deferred=False,
        handler=lambda **arguments: "ran",
    )
    return ToolSearch([tool])


def run(search: ToolSearch, arguments: Any) -> ToolResult:
    return search.execute(ToolCall("guarded", arguments))


# Run in a new process that prints how long the call took: on a backtracking engine each of
# these takes longer than the age of the universe, and the process is stopped by its timeout.
_TIMED_CALL = textwrap.dedent(
    """
    import json, sys, time
    from toolscout import Tool
    from toolscout.protocol import ToolCall, ToolSearch

    schema, arguments = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    tool = Tool(name="guarded", input_schema=schema, deferred=False, handler=lambda **a: "ran")
    began = time.monotonic()
    result = ToolSearch([tool]).execute(ToolCall("guarded", arguments))
    print(json.dumps({"seconds": time.monotonic() - began, "content": result.content}))
    """
)


def timed_call(schema: dict[str, Any], arguments: dict[str, Any]) -> tuple[float, str]:
    finished = subprocess.run(
        [sys.executable, "-c", _TIMED_CALL, json.dumps(schema), json.dumps(arguments)],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    measured = json.loads(finished.stdout)
    return measured["seconds"], measured["content"]


class TestPatternsRunInLinearTime:
    @pytest.mark.parametrize(
        ("schema", "arguments", "refusal"),
        [
            (
                {"properties": {"text": {"type": "string", "pattern": "^(a+)+$"}}},
                {"text": "a" * 60 + "!"},
                "text: '" + "a" * 60 + "!' does not match '^(a+)+$'",
            ),
            (
                {"patternProperties": {"^(a|aa)+$": {"type": "integer"}}},
                {"a" * 60: "not an integer"},
                "is not of type 'integer'",
            ),
            (
                {"patternProperties": {"^(a+)+$": {}}, "additionalProperties": False},
                {"a" * 60 + "!": 1},
                "does not match any of the regexes: '^(a+)+$'",
            ),
            (
                {"propertyNames": {"pattern": "^(\\w+\\s?)*$"}},
                {"word " * 40 + "!": 1},
                "does not match '^(\\\\w+\\\\s?)*$'",
            ),
        ],
    )
    def test_a_catastrophic_pattern_answers_at_once(
        self, schema: dict[str, Any], arguments: dict[str, Any], refusal: str
    ) -> None:
        seconds, content = timed_call({"type": "object", **schema}, arguments)
        assert refusal in content
        assert seconds < 30  # generous: the check itself takes milliseconds

    def test_matching_arguments_still_pass(self) -> None:
        search = guarded({"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"})
        assert run(search, {"text": "north-east"}).content == "ran"
        assert run(search, {"text": "North East"}).is_error

    def test_ecma_escapes_are_read(self) -> None:
        search = guarded({"type": "string", "pattern": "^\\u00e9t\\u00e9\\Z"})
        assert run(search, {"text": "été"}).content == "ran"
        assert run(search, {"text": "ete"}).is_error

    def test_a_pattern_python_cannot_read_is_checked(self) -> None:
        search = guarded({"type": "string", "pattern": "^\\p{Lu}\\p{Ll}+$"})
        assert run(search, {"text": "Émile"}).content == "ran"
        assert "does not match" in run(search, {"text": "émile"}).content

    def test_text_that_is_not_unicode_is_checked_not_crashed(self) -> None:
        result = run(guarded({"type": "string", "pattern": "^a"}), {"text": "\ud800"})
        assert result.is_error
        assert "does not match '^a'" in result.content


class TestWhatCannotBeCheckedIsRefused:
    @pytest.mark.parametrize("pattern", ["^(?!admin)", "^(a)\\1$", "(?<=x)y"])
    def test_a_pattern_re2_cannot_run_refuses_the_call(self, pattern: str) -> None:
        result = run(guarded({"type": "string", "pattern": pattern}), {"text": "bob"})
        assert result.is_error
        assert f"the tool's input schema has the pattern {pattern!r}" in result.content
        assert "cannot check in linear time" in result.content

    def test_a_pattern_in_a_definition_is_found_too(self) -> None:
        search = guarded(
            properties={"text": {"$ref": "#/$defs/name"}},
            **{"$defs": {"name": {"type": "string", "pattern": "^(?!root$)"}}},
        )
        assert "cannot check in linear time" in run(search, {"text": "bob"}).content

    def test_a_pattern_as_a_value_is_not_a_pattern(self) -> None:
        search = guarded({"type": "object", "const": {"pattern": "(?!x)"}})
        assert run(search, {"text": {"pattern": "(?!x)"}}).content == "ran"

    def test_unevaluated_properties_with_pattern_properties_is_refused(self) -> None:
        search = guarded(
            patternProperties={"^x_": {"type": "integer"}}, unevaluatedProperties=False
        )
        result = run(search, {"x_1": 1})
        assert result.is_error
        assert "combines unevaluatedProperties with patternProperties" in result.content

    def test_arguments_nested_too_deeply_are_refused(self) -> None:
        search = guarded({})
        nested: Any = []
        for _ in range(150):
            nested = [nested]
        result = run(search, {"text": nested})
        assert result.is_error
        assert "arguments: nested more than 100 levels deep" in result.content
        as_text = run(search, '{"text": ' + "[" * 5_000 + "]" * 5_000 + "}")
        assert as_text.is_error
        assert "nested more than 100 levels deep" in as_text.content

    def test_a_schema_that_is_not_json_schema_is_left_to_the_tool(self) -> None:
        assert run(guarded(properties={"text": {"type": 42}}), {"text": 1}).content == "ran"


class TestBoundedWork:
    def test_unique_items_of_objects_is_linear(self) -> None:
        search = guarded({"type": "array", "uniqueItems": True})
        items = [{"id": number} for number in range(20_000)]
        assert run(search, {"text": items}).content == "ran"
        result = run(search, {"text": [*items, {"id": 7}]})
        assert result.is_error
        assert "has non-unique elements" in result.content

    @pytest.mark.parametrize(
        ("items", "unique"),
        [
            ([1, 1.0], False),
            ([True, 1], True),
            ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),
            ([[1, {"a": None}], [1, {"a": None}]], False),
            ([[1, 2], [2, 1]], True),
            ([None, False, 0, ""], True),
        ],
    )
    def test_unique_items_means_what_json_schema_says(self, items: list[Any], unique: bool) -> None:
        result = run(guarded({"type": "array", "uniqueItems": True}), {"text": items})
        assert result.is_error is not unique

    def test_a_check_that_would_take_exponential_time_is_cut_short(self) -> None:
        # Both branches fail at every level: jsonschema would try 2**40 paths.
        branch = {"type": "array", "items": {"$ref": "#/$defs/node"}}
        search = guarded(
            properties={"text": {"$ref": "#/$defs/node"}},
            **{"$defs": {"node": {"anyOf": [branch, dict(branch)]}}},
        )
        nested: Any = 1
        for _ in range(40):
            nested = [nested]
        result = run(search, {"text": nested})
        assert result.is_error
        assert "send smaller arguments" in result.content  # out of CPU budget, or of time

    def test_a_text_too_long_for_a_complex_pattern_is_refused(self) -> None:
        search = guarded({"type": "string", "pattern": "(\\p{L}|\\d){60}#"})
        assert "does not match" in run(search, {"text": "é" * 1_000}).content
        result = run(search, {"text": "é" * 100_000})
        assert result.is_error
        assert "a text of 200,000 bytes is too long to check against the pattern" in result.content
        simple = guarded({"type": "string", "pattern": "^[A-Za-z0-9+/]*={0,2}$"})
        assert run(simple, {"text": "QUJD" * 1_000_000}).content == "ran"  # 4 MB of base64

    def test_many_long_keys_against_a_slow_pattern_are_cut_short(self) -> None:
        # Each key costs RE2 most of a second; all of them are matched within one keyword.
        search = guarded(patternProperties={"(?s)(a|.){0,1000}#": {}})
        keys = {"x" * 18_990 + str(number): 1 for number in range(8)}
        result = run(search, keys)
        assert result.is_error
        assert "send smaller arguments" in result.content

    def test_a_huge_value_is_quoted_short(self) -> None:
        result = run(guarded({"type": "string", "pattern": "^a+$"}), {"text": "b" * 1_000_000})
        assert result.is_error
        assert len(result.content) < 1_000
