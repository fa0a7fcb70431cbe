"""The false-synonym request set: every tool it names exists, and the table is built."""

from __future__ import annotations

from benchmarks.peers import TOOLSCOUT_ENGINES
from benchmarks.senses import CATALOG, QUERIES, run_senses


def test_every_named_tool_is_in_the_catalog() -> None:
    names = {tool.name for tool in CATALOG}
    assert len(names) == len(CATALOG)
    for query in QUERIES:
        assert query.relevant
        assert query.relevant <= names, query.text
        assert query.false <= names, query.text
        assert not query.relevant & query.false, query.text


def test_the_table_has_a_row_per_engine() -> None:
    table = run_senses(TOOLSCOUT_ENGINES[:1])
    assert [row[0] for row in table.rows] == ["toolscout bm25"]
    assert table.rows[0][1] == f"0 / {sum(bool(query.false) for query in QUERIES)}"
