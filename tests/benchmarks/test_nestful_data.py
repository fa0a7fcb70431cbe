"""The NESTFUL and ComplexFuncBench tasks: read from the installed package, every need an API
of the pooled catalog, in the order the call sequence calls them."""

from __future__ import annotations

import pytest
from benchmarks.bfcl import split_of
from benchmarks.nestful import (
    PACKAGE_VERSION,
    TASK_SETS,
    NestfulData,
    load_nestful,
    nestful_unavailable,
    run_nestful,
)
from benchmarks.peers import TOOLSCOUT_ENGINES


@pytest.fixture(scope="module")
def data() -> NestfulData:
    return load_nestful()


def test_the_package_is_installed_at_the_measured_version() -> None:
    from importlib.metadata import version

    assert nestful_unavailable() is None
    assert version("nestful-wrapper") == PACKAGE_VERSION


def test_the_catalog_pools_every_collection_s_apis_once(data: NestfulData) -> None:
    assert len(data.tools) == 173
    assert len({tool.name for tool in data.tools}) == len(data.tools)
    assert all(tool.description for tool in data.tools)


def test_every_need_is_an_api_of_the_catalog(data: NestfulData) -> None:
    names = {tool.name for tool in data.tools}
    assert {name: len(tasks) for name, tasks in data.task_sets.items()} == {
        "NESTFUL": 300,
        "ComplexFuncBench": 1000,
    }
    for tasks in data.task_sets.values():
        for task in tasks:
            assert task.needs and set().union(*task.needs) <= names
            assert task.split == split_of(task.text)
            assert task.kind == ("multi" if len(task.needs) > 1 else "single")


def test_a_task_needs_the_apis_its_sequence_calls_in_order(data: NestfulData) -> None:
    (task,) = (
        task
        for task in data.task_sets["NESTFUL"]
        if task.text.startswith("Find flights from New York to London that depart on August 15")
    )
    # The airport search is called twice (New York, London): one need. The last call,
    # `var_result`, gathers the results and is no API.
    assert [next(iter(need)) for need in task.needs] == [
        "SkyScrapperSearchAirport",
        "SkyScrapperFlightSearch",
        "TripadvisorSearchLocation",
        "TripadvisorSearchHotels",
    ]


def test_parameters_keep_their_descriptions_and_allowed_values(data: NestfulData) -> None:
    (bus,) = (tool for tool in data.tools if tool.name == "Buses.FindBus")
    fare = bus.input_schema["properties"]["fare_type"]
    assert fare["enum"] == ["Economy", "Economy extra", "Flexible"]
    assert fare["description"] == "Type of fare for the booking"
    assert "origin" in bus.input_schema["required"]


def test_the_tables_have_a_row_per_engine_for_each_set_and_split(data: NestfulData) -> None:
    tables = run_nestful(TOOLSCOUT_ENGINES[:1], ["dev", "test"], data, limit=20)
    assert [table.title.split(":")[0] for table in tables] == [
        f"{name}, {split} split" for name in TASK_SETS for split in ("dev", "test")
    ]
    for table in tables:
        (row,) = table.rows
        assert row[0] == "toolscout bm25"
        assert 0 < float(row[5]) <= 1  # nDCG@10
