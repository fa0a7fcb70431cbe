"""The reworded-requests set: every tool it names exists, both splits hold served and
unserved requests, and the table is built."""

from __future__ import annotations

from benchmarks.peers import TOOLSCOUT_ENGINES
from benchmarks.rewordings import REQUESTS, run_rewordings
from benchmarks.senses import CATALOG, QUERIES


def test_every_named_tool_is_in_the_catalog() -> None:
    names = {tool.name for tool in CATALOG}
    for request in REQUESTS:
        assert request.relevant <= names, request.text


def test_each_split_has_requests_served_and_not() -> None:
    for split in ("dev", "test"):
        requests = [request for request in REQUESTS if request.split == split]
        assert any(request.relevant for request in requests)
        assert any(not request.relevant for request in requests)


def test_its_requests_are_not_the_senses_requests() -> None:
    assert not {request.text for request in REQUESTS} & {query.text for query in QUERIES}


def test_the_table_has_a_row_per_engine_and_split() -> None:
    table = run_rewordings(TOOLSCOUT_ENGINES[:1], ["dev", "test"])
    assert [row[:2] for row in table.rows] == [
        ["toolscout bm25", "dev"],
        ["toolscout bm25", "test"],
    ]
