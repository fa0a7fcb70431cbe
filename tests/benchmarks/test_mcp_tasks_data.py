"""The real-MCP-tools development set: the catalog and tasks load, every label names a real
tool, the splits are stable, and the need-based metrics score what they say."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from benchmarks.bfcl import split_of
from benchmarks.mcp_tasks import (
    CATALOG_FILE,
    DATA,
    McpDevData,
    load_mcp_dev,
    needs_found_at,
    needs_ndcg_at,
    plain_tools,
    run_mcp_tasks,
)
from benchmarks.peers import TOOLSCOUT_ENGINES

REDISTRIBUTABLE = {
    "MIT",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "ISC",
    "0BSD",
    "Unlicense",
    "MPL-2.0",
}


@pytest.fixture(scope="module")
def data() -> McpDevData:
    return load_mcp_dev()


class TestCatalog:
    def test_has_dozens_of_servers_and_hundreds_of_tools(self, data: McpDevData) -> None:
        assert len(data.servers) >= 40
        assert 300 <= len(data.tools) <= 800

    def test_tool_ids_are_unique_and_namespaced_by_server(self, data: McpDevData) -> None:
        assert len({tool.id for tool in data.tools}) == len(data.tools)
        for tool in data.tools:
            assert tool.namespace in data.servers
            assert tool.id == f"{tool.namespace}__{tool.name}"

    def test_some_tools_are_described_in_chinese(self, data: McpDevData) -> None:
        chinese = [tool for tool in data.tools if any("一" <= c <= "鿿" for c in tool.description)]
        assert len(chinese) >= 20

    def test_every_package_is_named_versioned_licensed_and_credited(self) -> None:
        catalog = json.loads(CATALOG_FILE.read_text(encoding="utf-8"))
        notice = (DATA / "MCP_DEV_CATALOG_NOTICE.md").read_text(encoding="utf-8")
        for server, entry in catalog.items():
            assert entry["registry"] in {"npm", "pypi"}
            assert entry["version"]
            assert entry["license"] in REDISTRIBUTABLE, server
            assert f"| {server} | {entry['package']} | " in notice

    def test_plain_tools_carry_the_id_as_name(self, data: McpDevData) -> None:
        plain = plain_tools(data.tools)
        assert [tool.name for tool in plain] == [tool.id for tool in data.tools]
        assert all(tool.namespace is None for tool in plain)


class TestTasks:
    def test_every_label_names_a_real_tool(self, data: McpDevData) -> None:
        ids = {tool.id for tool in data.tools}
        for task in data.tasks:
            assert task.relevant <= ids, task.text

    def test_kinds_and_their_needs(self, data: McpDevData) -> None:
        by_kind = {
            kind: [t for t in data.tasks if t.kind == kind]
            for kind in ("single", "multi", "chinese", "none")
        }
        assert len(by_kind["single"]) >= 60
        assert len(by_kind["multi"]) >= 60
        assert len(by_kind["chinese"]) >= 15
        assert len(by_kind["none"]) >= 15
        assert all(len(task.needs) == 1 for task in by_kind["single"])
        assert all(len(task.needs) >= 2 for task in by_kind["multi"])
        assert all(not task.needs for task in by_kind["none"])
        assert any(not task.text.isascii() for task in by_kind["chinese"])
        assert any(task.text.isascii() for task in by_kind["chinese"])

    def test_some_requests_in_chinese_are_served_by_tools_described_in_english(
        self, data: McpDevData
    ) -> None:
        in_chinese = {
            tool.id for tool in data.tools if any("一" <= c <= "鿿" for c in tool.description)
        }
        translated = [
            task
            for task in data.tasks
            if task.kind == "chinese" and not task.text.isascii() and not task.relevant & in_chinese
        ]
        assert len(translated) >= 50

    def test_texts_are_unique(self, data: McpDevData) -> None:
        assert len({task.text for task in data.tasks}) == len(data.tasks)

    def test_split_follows_the_text_hash_and_both_splits_hold_every_kind(
        self, data: McpDevData
    ) -> None:
        for task in data.tasks:
            assert task.split == split_of(task.text)
        for kind in ("single", "multi", "chinese", "none"):
            assert data.tasks_in("dev", kind) and data.tasks_in("test", kind), kind

    def test_a_sample_keeps_every_kind_spread_through_each(self, data: McpDevData) -> None:
        sample = data.sample_of("dev", 2)
        kinds = ("single", "multi", "chinese", "none")
        assert [task.kind for task in sample] == [kind for kind in kinds for _ in range(2)]
        singles = data.tasks_in("dev", "single")
        assert sample[:2] == [singles[0], singles[len(singles) // 2]]
        assert data.sample_of("dev", None) == data.tasks_in("dev")

    @pytest.mark.parametrize(
        ("text", "split"),
        [
            ("what time is it right now in Sydney", "dev"),
            ("北京今天天气怎么样", "dev"),
            ("how much is Apple stock trading at", "test"),
        ],
    )
    def test_split_is_stable(self, data: McpDevData, text: str, split: str) -> None:
        (task,) = (task for task in data.tasks if task.text == text)
        assert task.split == split


class TestLoaderRefusesBadLabels:
    def write(self, folder: Path, tasks: list[dict[str, object]]) -> Path:
        path = folder / "tasks.json"
        path.write_text(json.dumps(tasks), encoding="utf-8")
        return path

    def test_unknown_tool(self, tmp_path: Path) -> None:
        tasks = self.write(
            tmp_path, [{"text": "x", "kind": "single", "needs": [["time__no_such_tool"]]}]
        )
        with pytest.raises(ValueError, match="time__no_such_tool"):
            load_mcp_dev(CATALOG_FILE, tasks)

    @pytest.mark.parametrize(
        "task",
        [
            {"text": "x", "kind": "none", "needs": [["time__get_current_time"]]},
            {"text": "x", "kind": "single", "needs": []},
            {"text": "x", "kind": "single", "needs": [[]]},
            {"text": "x", "kind": "elsewhere", "needs": [["time__get_current_time"]]},
        ],
    )
    def test_needs_that_do_not_fit_the_kind(self, tmp_path: Path, task: dict[str, object]) -> None:
        with pytest.raises(ValueError, match="task"):
            load_mcp_dev(CATALOG_FILE, self.write(tmp_path, [task]))


class TestNeedMetrics:
    needs = (frozenset({"search_a", "search_b"}), frozenset({"write"}))

    def test_a_need_is_found_by_any_of_its_tools(self) -> None:
        assert needs_found_at(["search_b", "x"], self.needs, 1) == 0.5
        assert needs_found_at(["search_b", "write"], self.needs, 2) == 1.0
        assert needs_found_at(["x"], self.needs, 5) == 0.0

    def test_a_second_tool_for_the_same_need_gains_nothing(self) -> None:
        assert needs_ndcg_at(["search_a", "write"], self.needs) == pytest.approx(1.0)
        both_searches = needs_ndcg_at(["search_a", "search_b", "write"], self.needs)
        ideal = 1 + 1 / math.log2(3)
        assert both_searches == pytest.approx((1 + 1 / math.log2(4)) / ideal)


def test_the_table_has_a_row_per_engine_and_split(data: McpDevData) -> None:
    tables = run_mcp_tasks(TOOLSCOUT_ENGINES[:1], ["dev", "test"], data)
    assert [table.title.split(":")[0] for table in tables] == [
        "Real MCP tools, dev split",
        "Real MCP tools, test split",
    ]
    for table in tables:
        (row,) = table.rows
        assert row[0] == "toolscout bm25"
        assert 0 < float(row[5]) <= 1  # nDCG@10
