"""The benchmark data, metrics and demo catalog: what the published figures rest on."""

from __future__ import annotations

import hashlib
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from benchmarks.bfcl import QUERY_FILES, BfclData, load_bfcl, read_cases, split_of
from benchmarks.metrics import abstention_rate, ndcg_at, quality, recall_at, reciprocal_rank
from benchmarks.peers import catalog_text, query_pattern, toolscout_unavailable

from toolscout import Catalog
from toolscout.data import demo_catalog_path

ROOT = Path(__file__).resolve().parents[2]
JSON_SCHEMA_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


@pytest.fixture(scope="module")
def data() -> BfclData:
    return load_bfcl()


def schema_types(schema: dict[str, Any]) -> Iterator[Any]:
    yield schema.get("type", "object")
    for child in schema.get("properties", {}).values():
        yield from schema_types(child)
    if isinstance(schema.get("items"), dict):
        yield from schema_types(schema["items"])


class TestPool:
    def test_counts_add_up(self, data: BfclData) -> None:
        counts = data.counts
        assert 1_000 < len(data.tools) < counts.definitions
        assert counts.duplicates == counts.definitions - len(data.tools)
        assert counts.differing_duplicates <= counts.duplicates
        assert len({tool.name for tool in data.tools}) == len(data.tools)

    def test_first_definition_of_a_name_is_kept(self, data: BfclData) -> None:
        # simple_python_0 declares integer sides; later files redeclare them as floats.
        (triangle,) = (tool for tool in data.tools if tool.name == "calculate_triangle_area")
        assert triangle.input_schema["properties"]["base"]["type"] == "integer"

    def test_schemas_use_json_schema_types_only(self, data: BfclData) -> None:
        assert data.counts.schemas_fixed > 0
        for tool in data.tools:
            assert set(schema_types(tool.input_schema)) <= JSON_SCHEMA_TYPES, tool.name


class TestQueries:
    def test_query_is_the_first_user_turn(self, data: BfclData) -> None:
        (query,) = (query for query in data.queries if query.id == "simple_python_0")
        assert query.text == (
            "Find the area of a triangle with a base of 10 units and height of 5 units."
        )
        assert query.relevant == {"calculate_triangle_area"}

    def test_every_relevant_tool_is_in_the_pool(self, data: BfclData) -> None:
        names = {tool.name for tool in data.tools}
        assert all(query.relevant and query.relevant <= names for query in data.queries)
        assert data.counts.queries_read == len(data.queries) + data.counts.queries_dropped

    def test_irrelevance_queries_have_no_relevant_tool(self, data: BfclData) -> None:
        answerable = {query.text for query in data.queries}
        assert data.irrelevance_queries
        for query in data.irrelevance_queries:
            assert not query.relevant
            assert query.text not in answerable

    @pytest.mark.parametrize("kind", ["queries", "irrelevance_queries"])
    def test_splits_are_disjoint_and_balanced(self, data: BfclData, kind: str) -> None:
        queries = getattr(data, kind)
        dev = {query.id for query in queries if query.split == "dev"}
        test = {query.id for query in queries if query.split == "test"}
        assert not dev & test
        assert len(dev) + len(test) == len(queries)
        assert 0.4 < len(dev) / len(queries) < 0.6

    def test_split_follows_the_text_hash(self, data: BfclData) -> None:
        for query in data.queries + data.irrelevance_queries:
            first_byte = hashlib.blake2b(query.text.encode()).digest()[0]
            assert query.split == ("dev" if first_byte % 2 == 0 else "test")

    @pytest.mark.parametrize(
        ("text", "split"),
        [
            ("Find the area of a triangle with a base of 10 units and height of 5 units.", "dev"),
            ("Calculate the factorial of 5 using math functions.", "test"),
        ],
    )
    def test_split_is_stable(self, text: str, split: str) -> None:
        assert split_of(text) == split


class TestVariantsApart:
    """The pool with each wording of a function as a tool of its own."""

    @pytest.fixture(scope="class")
    def variants(self) -> BfclData:
        return load_bfcl(variants_apart=True)

    def test_each_wording_is_a_tool_with_a_name_of_its_own(
        self, data: BfclData, variants: BfclData
    ) -> None:
        names = [tool.name for tool in variants.tools]
        assert len(set(names)) == len(names)
        assert len(data.tools) < len(variants.tools) < variants.counts.definitions
        wordings = {
            (re.sub(r"_var\d+$", "", tool.name), tool.description) for tool in variants.tools
        }
        assert len(wordings) == len(variants.tools)
        first_wordings = {
            function["name"]
            for name in QUERY_FILES
            for case in read_cases(name)
            for function in case["function"]
        }
        assert first_wordings <= set(names)

    def test_it_is_the_catalog_the_targets_are_stated_on(self, variants: BfclData) -> None:
        # The files with ranked queries, without the live relevance and irrelevance files'
        # functions, which no query asks for.
        assert len(variants.tools) == 2_101

    def test_the_same_queries_with_their_own_cases_wordings(
        self, data: BfclData, variants: BfclData
    ) -> None:
        assert [(q.id, q.text) for q in variants.queries] == [(q.id, q.text) for q in data.queries]
        assert variants.irrelevance_queries == data.irrelevance_queries
        cases = {case["id"]: case for case in read_cases("BFCL_v4_live_multiple")}
        by_name = {tool.name: tool for tool in variants.tools}
        several_wordings = 0
        for query in variants.queries:
            if query.id not in cases:
                continue
            own = {function["description"] for function in cases[query.id]["function"]}
            for name in query.relevant:
                assert by_name[name].description in own, query.id
                several_wordings += "_var" in name
        assert several_wordings > 100  # most live functions come in several wordings


class TestMetrics:
    @pytest.mark.parametrize(
        ("ranking", "relevant", "k", "expected"),
        [
            (["a", "b", "c"], {"b"}, 1, 0.0),
            (["a", "b", "c"], {"b"}, 3, 1.0),
            (["a", "b"], {"a", "c"}, 5, 0.5),
            ([], {"a"}, 5, 0.0),
        ],
    )
    def test_recall(self, ranking: list[str], relevant: set[str], k: int, expected: float) -> None:
        assert recall_at(ranking, frozenset(relevant), k) == expected

    @pytest.mark.parametrize(
        ("ranking", "relevant", "expected"),
        [
            (["a", "x"], {"a"}, 1.0),
            (["x", "a"], {"a"}, 1 / math.log2(3)),
            (["a", "x", "b"], {"a", "b"}, 1.5 / (1 + 1 / math.log2(3))),
            (["x"] * 10 + ["a"], {"a"}, 0.0),
            ([], {"a"}, 0.0),
        ],
    )
    def test_ndcg(self, ranking: list[str], relevant: set[str], expected: float) -> None:
        assert ndcg_at(ranking, frozenset(relevant)) == pytest.approx(expected)

    @pytest.mark.parametrize(
        ("ranking", "relevant", "expected"),
        [(["a"], {"a"}, 1.0), (["x", "y", "a", "b"], {"a", "b"}, 1 / 3), (["x"], {"a"}, 0.0)],
    )
    def test_reciprocal_rank(self, ranking: list[str], relevant: set[str], expected: float) -> None:
        assert reciprocal_rank(ranking, frozenset(relevant)) == pytest.approx(expected)

    def test_quality_averages_over_queries(self) -> None:
        measured = quality([["a"], ["x", "b"]], [frozenset({"a"}), frozenset({"b"})])
        assert measured.recall[1] == 0.5
        assert measured.recall[3] == 1.0
        assert measured.mrr == pytest.approx(0.75)
        assert measured.queries == 2

    def test_abstention_counts_empty_answers(self) -> None:
        assert abstention_rate([[], ["a"], [], ["b", "c"]]) == 0.5


class TestPeerInputs:
    def test_plain_text_peers_read_fastmcps_text(self, data: BfclData) -> None:
        from fastmcp.server.transforms.search.base import _extract_searchable_text
        from fastmcp.tools.base import Tool as FastMCPTool

        for tool in data.tools:
            fastmcp_tool = FastMCPTool(
                name=tool.name, description=tool.description, parameters=tool.input_schema
            )
            assert catalog_text(tool) == _extract_searchable_text(fastmcp_tool)

    def test_query_pattern_joins_distinct_words(self) -> None:
        assert query_pattern("Get the weather, the forecast (C++)") == "Get|the|weather|forecast|C"


class TestDemoCatalog:
    def test_is_what_the_script_generates_now(self) -> None:
        script = ROOT / "scripts" / "build_demo_catalog.py"
        result = subprocess.run(
            [sys.executable, str(script), "--check"], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr

    def test_loads_as_a_catalog_of_the_whole_pool(self, data: BfclData) -> None:
        catalog = Catalog.from_file(demo_catalog_path())
        assert [tool.name for tool in catalog] == [tool.name for tool in data.tools]


@pytest.mark.skipif(toolscout_unavailable() is not None, reason="toolscout.ToolIndex not built yet")
def test_quick_benchmark_run(tmp_path: Path) -> None:
    """A smoke test of the benchmark code: every table of the lexical engines and their
    peers, on the smallest inputs that still fill each of them (semantic search, the gateway
    and start-up are measured by `make bench`, not by the tests)."""
    report = tmp_path / "latest.md"
    command = ["-m", "benchmarks.run", "--quick", "--split", "dev", "--sizes", "20"]
    command += ["--queries", "2"]  # a sample: the code runs, the figures are make bench's
    result = subprocess.run(
        [
            sys.executable,
            *command,
            *("--no-semantic", "--no-gateway", "--no-startup", "--output", str(report)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    text = report.read_text()
    titles = [line.removeprefix("## ") for line in text.splitlines() if line.startswith("## ")]
    assert [title.split(":")[0].split(" over ")[0] for title in titles] == [
        "Data",
        "Quality, dev split",
        "Quality, dev split",  # the pool with same-name variants apart
        "Real MCP tools, dev split",
        "NESTFUL, dev split",
        "ComplexFuncBench, dev split",
        "False synonym matches",
        "Reworded requests",
        "Speed and scale",
        "Token savings per request",
        "Preloading",
    ]
    for engine in ("toolscout bm25", "toolscout regex", "fastmcp bm25", "bm25s", "rank_bm25"):
        assert f"| {engine} |" in text
    assert "tools, same-name variants apart" in text
    # Every kind of MCP task is in the sample, and the preloading table had conversations.
    assert "(2 single, 2 multi, 2 chinese, 2 none)" in text
    assert "| 20 | load | off | 2 |" in text
