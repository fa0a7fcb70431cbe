"""Bad and extreme input: every case either works or fails with a clear, named error."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from toolscout.catalog import Catalog, Tool
from toolscout.errors import SearchConfigError, ToolDefinitionError
from toolscout.search import MAX_K, ToolIndex
from toolscout.search.index import MAX_QUERY_CHARS

from .conftest import make_index, make_tool, names, standard_tools, string_param


class TestEmptyCatalog:
    @pytest.mark.parametrize("query", ["weather", "send an email", "w", "^get"])
    def test_search_returns_nothing_and_says_the_catalog_is_empty(
        self, engine: str, query: str
    ) -> None:
        results = make_index([], engine).search(query)
        assert list(results) == []
        assert results.notice
        assert "empty" in results.notice

    def test_search_many_over_an_empty_catalog(self, engine: str) -> None:
        batch = make_index([], engine).search_many(["weather", "email"])
        assert [list(results) for results in batch] == [[], []]
        assert all(results.notice for results in batch)


class TestEmptyQuery:
    @pytest.mark.parametrize("query", ["", " ", "   \n\t  ", "\u3000"])
    def test_empty_or_blank_query_returns_a_notice(self, engine: str, query: str) -> None:
        results = make_index(engine=engine).search(query)
        assert list(results) == []
        assert results.notice
        assert "empty" in results.notice

    @pytest.mark.parametrize("query", ["the of and", "?!?", "🎉🎂", "...", "---"])
    def test_query_without_searchable_words_returns_a_notice(self, query: str) -> None:
        results = make_index().search(query)
        assert list(results) == []
        assert results.notice

    @pytest.mark.parametrize("query", [None, 42, b"weather", ["weather"]])
    def test_query_that_is_not_text_is_refused(self, engine: str, query: Any) -> None:
        with pytest.raises(SearchConfigError, match="query must be a string"):
            make_index(engine=engine).search(query)


class TestLongQueries:
    def test_ten_thousand_character_query_still_finds_the_tool(self) -> None:
        query = "current weather " + "lorem ipsum dolor sit amet " * 400
        assert len(query) > 10_000
        results = make_index().search(query)
        assert names(results)[0] == "get_current_weather"
        assert len(results.query) == MAX_QUERY_CHARS

    def test_ten_thousand_character_chinese_query_still_finds_the_tool(self) -> None:
        # Each Chinese word brings its English senses: the request read grows, and still works.
        query = "删除这个文件，" + "我们今天说了很多话，" * 1_000  # "delete this file", chatter
        results = make_index().search(query)
        assert names(results)[0] == "delete_file"
        assert len(results.query) == MAX_QUERY_CHARS

    # The last query's one real word lies past MAX_QUERY_CHARS, so it is never read.
    @pytest.mark.parametrize("query", ["a" * 10_000, "x" * 9_999 + " weather", "🎉" * 10_000])
    def test_ten_thousand_character_word_finds_nothing_and_says_so(
        self, engine: str, query: str
    ) -> None:
        results = make_index(engine=engine).search(query)
        assert list(results) == []
        assert results.notice

    def test_ten_thousand_character_pattern_is_refused_with_a_notice(self) -> None:
        results = make_index(engine="regex").search("weather|" * 1_250)
        assert list(results) == []
        assert results.notice
        assert "limit" in results.notice


@pytest.fixture(scope="module")
def huge_tool() -> Tool:
    description = "Summarise legal contracts. " + "lorem ipsum " * 90_000 + "zebra"
    assert len(description) > 1_000_000
    return make_tool("summarise_contract", description)


class TestHugeDescriptions:
    def test_one_megabyte_description_is_indexed_and_found(self, huge_tool: Tool) -> None:
        index = make_index([huge_tool, *standard_tools()])
        assert names(index.search("summarise legal contracts"))[0] == "summarise_contract"
        assert names(index.search("current weather"))[0] == "get_current_weather"

    def test_regex_searches_the_whole_description(self, huge_tool: Tool) -> None:
        index = make_index([huge_tool, *standard_tools()], engine="regex")
        assert names(index.search("zebra$")) == ["summarise_contract"]


class TestMalformedToolDefinitions:
    @pytest.mark.parametrize(
        ("fields", "field"),
        [
            ({"name": "x", "description": 42}, "description"),
            ({"name": 42}, "name"),
            ({"name": "x", "description": ["a", "list"]}, "description"),
            ({"name": "x", "input_schema": ["not", "a", "dict"]}, "input_schema"),
            ({"name": "x", "input_schema": {"type": "string"}}, "input_schema"),
            ({"name": "x", "tags": [1, 2]}, "tags"),
            ({"name": ""}, "name"),
        ],
    )
    def test_wrong_types_fail_when_the_tool_is_made(
        self, fields: dict[str, Any], field: str
    ) -> None:
        with pytest.raises(ValidationError) as raised:
            Tool(**fields)
        assert field in str(raised.value)

    def test_integer_description_says_what_is_wrong(self) -> None:
        with pytest.raises(ValidationError, match="must be a string, got int"):
            Tool(name="x", description=42)

    @pytest.mark.parametrize(
        ("definition", "message"),
        [
            (
                {"name": "get_weather", "description": 42, "parameters": {}},
                "tool 'get_weather': description must be a string, got int",
            ),
            ({"name": 42, "description": "d", "parameters": {}}, "name must be a string"),
            (
                {"name": "get_weather", "parameters": {"type": "array"}},
                "parameters must describe an object",
            ),
        ],
    )
    def test_catalog_names_the_tool_and_field(
        self, definition: dict[str, Any], message: str
    ) -> None:
        with pytest.raises(ToolDefinitionError, match=message):
            Catalog([definition])

    def test_a_bad_definition_adds_nothing_to_a_live_catalog(self, engine: str) -> None:
        catalog = Catalog(standard_tools())
        index = make_index(catalog, engine)
        with pytest.raises(ToolDefinitionError):
            catalog.add([{"name": "zeppelin", "parameters": {}}, {"name": 1, "parameters": {}}])
        assert names(index.search("zeppelin")) == []
        assert len(index.tools) == len(standard_tools())


def _nested(depth: int, leaf: dict[str, Any]) -> dict[str, Any]:
    schema = leaf
    for level in reversed(range(depth)):
        schema = {"type": "object", "properties": {f"level{level}": schema}}
    return schema


class TestAwkwardSchemas:
    def test_twenty_levels_of_nesting_are_searchable(self, engine: str) -> None:
        leaf = {"type": "object", "properties": {"zeppelin": string_param("airship callsign")}}
        schema = _nested(20, leaf)
        tool = Tool(name="deep_tool", description="Deep.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert names(index.search("zeppelin")) == ["deep_tool"]
        assert names(index.search("callsign")) == ["deep_tool"]

    def test_very_deep_nesting_does_not_break_indexing(self, engine: str) -> None:
        schema = _nested(200, {"type": "string", "description": "bottom"})
        tool = Tool(name="abyss_tool", description="Goes very deep.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert names(index.search("abyss"))[0] == "abyss_tool"

    def test_self_referencing_schema_terminates(self, engine: str) -> None:
        schema = {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Node": {
                    "type": "object",
                    "description": "A tree node",
                    "properties": {
                        "label": string_param("node label"),
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        "parent": {"$ref": "#/$defs/Node"},
                    },
                }
            },
        }
        tool = Tool(name="walk_tree", description="Walk a tree.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert names(index.search("children"))[0] == "walk_tree"
        assert names(index.search("label"))[0] == "walk_tree"

    def test_mutually_recursive_and_root_references_terminate(self, engine: str) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "me": {"$ref": "#"}},
            "$defs": {
                "A": {"properties": {"to_b": {"$ref": "#/$defs/B"}}},
                "B": {"properties": {"to_a": {"$ref": "#/$defs/A"}}},
            },
        }
        tool = Tool(name="ping_pong", description="Ping pong.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert names(index.search("to_b"))[0] == "ping_pong"

    @pytest.mark.parametrize(
        "ref", ["#/$defs/Missing", "https://example.com/schema.json", "#/", "", "#/$defs/~1x"]
    )
    def test_unresolvable_references_are_ignored(self, engine: str, ref: str) -> None:
        schema = {"type": "object", "properties": {"thing": {"$ref": ref}}}
        tool = Tool(name="odd_refs", description="Odd references.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine)
        assert names(index.search("odd references"))[0] == "odd_refs"

    def test_any_of_branches_and_non_string_enums(self, engine: str) -> None:
        schema = {
            "type": "object",
            "properties": {
                "size": {
                    "anyOf": [
                        {"type": "integer", "enum": [1, 2, 3]},
                        {"type": "string", "enum": ["small", "large", None, True]},
                        {"type": "null"},
                    ]
                },
                "mode": {"const": "turbo"},
            },
        }
        tool = Tool(name="set_size", description="Set the size.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert names(index.search("large"))[0] == "set_size"
        assert names(index.search("turbo"))[0] == "set_size"

    @pytest.mark.parametrize(
        "properties",
        [
            {"weird": "not a schema"},
            {"weird": None},
            {"weird": {"enum": "not a list"}},
            {"weird": {"items": [1, 2]}},
            {"weird": {"anyOf": "nope"}},
            {"weird": {"description": 42, "title": ["x"]}},
        ],
    )
    def test_malformed_subschemas_are_skipped(
        self, engine: str, properties: dict[str, Any]
    ) -> None:
        schema = {"type": "object", "properties": properties}
        tool = Tool(name="weird_tool", description="Weird schema.", input_schema=schema)
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert names(index.search("weird"))[0] == "weird_tool"


class TestScripts:
    @pytest.fixture
    def tools(self) -> list[Tool]:
        return [
            make_tool("translate_text", "ترجمة النص إلى العربية", tags=["لغة"]),
            make_tool("hebrew_calendar", "לוח שנה עברי ותאריכי חגים"),
            make_tool("party_planner", "Plan a party 🎉🎂 with friends 👯"),
            make_tool("weather_ru", "Погода в Москве на сегодня"),
            *standard_tools(),
        ]

    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ("ترجمة النص", "translate_text"),
            ("לוח שנה", "hebrew_calendar"),
            ("погода в москве", "weather_ru"),
            ("party 🎉", "party_planner"),
        ],
    )
    def test_queries_find_tools_in_their_script(
        self, tools: list[Tool], query: str, expected: str
    ) -> None:
        assert names(make_index(tools).search(query))[0] == expected

    @pytest.mark.parametrize(
        ("pattern", "expected"),
        [("النص", "translate_text"), ("עברי", "hebrew_calendar"), ("🎂", "party_planner")],
    )
    def test_patterns_find_tools_in_their_script(
        self, tools: list[Tool], pattern: str, expected: str
    ) -> None:
        assert names(make_index(tools, "regex").search(pattern)) == [expected]

    def test_right_to_left_text_is_highlighted_and_explained(self, tools: list[Tool]) -> None:
        (hit,) = make_index(tools).search("ترجمة النص", k=1)
        assert hit.matched_fields == {
            "ترجمة": ("description",),
            "النص": ("description",),
            "ترجمة النص": ("description",),  # the two words side by side, as in the query
        }

    def test_emoji_only_query_returns_a_notice(self, tools: list[Tool]) -> None:
        results = make_index(tools).search("🎉")
        assert list(results) == []
        assert results.notice

    # A lone surrogate reaches Python from JSON such as "\\ud800"; it is not valid UTF-8.
    @pytest.mark.parametrize("query", ["\ud800", "weather \udfff", "caf\ud83d"])
    def test_lone_surrogates_in_queries_do_not_raise(self, engine: str, query: str) -> None:
        results = make_index(engine=engine).search(query)
        assert results.notice is not None or results

    def test_lone_surrogates_in_tool_text_do_not_raise(self, engine: str) -> None:
        broken = make_tool("broken_tool", "Broken \ud800 zeppelin text", tags=["\udfff"])
        catalog = Catalog([broken, *standard_tools()])
        index = make_index(catalog, engine, threshold=0)
        assert names(index.search("zeppelin")) == ["broken_tool"]
        catalog.replace(broken.model_copy(update={"description": "Broken \ud800 blimp"}))
        assert names(index.search("blimp")) == ["broken_tool"]

    def test_control_characters_and_mixed_direction_marks(self, engine: str) -> None:
        tool = make_tool("mixed_tool", "Mixed \u200f\u202eעברית\u202c and english\x00 text")
        index = make_index([tool, *standard_tools()], engine, threshold=0)
        assert "mixed_tool" in names(index.search("עברית", k=20))


_VERBS = ["get", "list", "create", "update", "delete", "sync", "export", "archive"]
_NOUNS = ["invoice", "ticket", "order", "shipment", "contact", "report", "asset", "lead"]


def _generated_tool(i: int) -> Tool:
    verb, noun = _VERBS[i % 8], _NOUNS[(i // 8) % 8]
    return Tool(
        name=f"{verb}_{noun}_{i}",
        description=f"{verb.title()} a {noun} in system {i % 101}.",
        namespace=f"service{i % 50}",
    )


@pytest.fixture(scope="module")
def big_catalog() -> Catalog:
    needle = make_tool("get_current_weather", "Get the current weather conditions for a city.")
    return Catalog([*map(_generated_tool, range(100_000)), needle])


@pytest.fixture(scope="module")
def big_index(big_catalog: Catalog) -> ToolIndex:
    index = ToolIndex(big_catalog, engine="bm25")
    index.refresh()
    return index


class TestHundredThousandTools:
    def test_bm25_finds_the_one_relevant_tool(self, big_index: ToolIndex) -> None:
        results = big_index.search("current weather conditions")
        assert names(results)[0] == "get_current_weather"
        assert len(big_index.tools) == 100_001

    def test_bm25_ranks_an_exact_generated_name_first(self, big_index: ToolIndex) -> None:
        name = _generated_tool(99_999).name
        assert name == "archive_shipment_99999"
        assert names(big_index.search(name))[0] == name

    def test_bm25_returns_k_hits_for_a_common_query(self, big_index: ToolIndex) -> None:
        results = big_index.search("delete invoice", k=MAX_K, threshold=0)
        assert len(results) == MAX_K
        assert all(hit.tool.name.startswith("delete_invoice_") for hit in results)

    def test_regex_finds_the_one_matching_tool(self, big_catalog: Catalog) -> None:
        results = ToolIndex(big_catalog, engine="regex").search("^get_current_weather$")
        assert names(results) == ["get_current_weather"]


class TestOutOfRangeArguments:
    @pytest.mark.parametrize("k", [0, -1, MAX_K + 1, 10**9, 1.5, True, "5", None])
    def test_k_out_of_range_is_refused(self, engine: str, k: Any) -> None:
        with pytest.raises(SearchConfigError, match=f"k must be a whole number from 1 to {MAX_K}"):
            make_index(engine=engine).search("weather", k=k)

    @pytest.mark.parametrize("k", [1, MAX_K])
    def test_k_at_the_bounds_is_accepted(self, engine: str, k: int) -> None:
        assert len(make_index(engine=engine).search("e", k=k, threshold=0)) <= k

    @pytest.mark.parametrize("threshold", [-0.1, 1.01, float("nan"), float("inf"), True, "0.5"])
    def test_threshold_out_of_range_is_refused_at_construction(self, threshold: Any) -> None:
        with pytest.raises(SearchConfigError, match="threshold must be between 0 and 1"):
            ToolIndex(standard_tools(), threshold=threshold)

    @pytest.mark.parametrize("threshold", [-0.1, 1.01, float("nan"), float("-inf"), False, "0"])
    def test_threshold_out_of_range_is_refused_per_search(
        self, engine: str, threshold: Any
    ) -> None:
        with pytest.raises(SearchConfigError, match="threshold must be between 0 and 1"):
            make_index(engine=engine).search("weather", threshold=threshold)

    @pytest.mark.parametrize("min_score", [float("nan"), float("inf"), float("-inf"), True, "1"])
    def test_min_score_that_is_not_a_finite_number_is_refused(
        self, engine: str, min_score: Any
    ) -> None:
        with pytest.raises(SearchConfigError, match="min_score must be a finite number or None"):
            make_index(engine=engine).search("weather", min_score=min_score)

    @pytest.mark.parametrize("engine_name", ["BM25", "", "vector", "Hybrid"])
    def test_unknown_engine_is_refused(self, engine_name: str) -> None:
        with pytest.raises(SearchConfigError, match="unknown engine"):
            ToolIndex(standard_tools(), engine=engine_name)  # type: ignore[arg-type]

    def test_search_many_checks_its_arguments(self, engine: str) -> None:
        with pytest.raises(SearchConfigError):
            make_index(engine=engine).search_many(["weather"], k=0)

    def test_errors_are_value_errors_for_callers_that_catch_those(self) -> None:
        with pytest.raises(ValueError):
            make_index().search("weather", k=0)
