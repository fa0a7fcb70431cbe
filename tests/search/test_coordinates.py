"""Coordinates in a request: a latitude and a longitude name a place, for the map tools that
say "coordinates"."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscout.search import ToolIndex
from toolscout.search.coordinates import COORDINATE_WORDS, with_coordinate_words


def _point_parameters(description: str) -> dict[str, object]:
    number = {"type": "number"}
    return {
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {"latitude": number, "longitude": number},
        },
    }


# As the Google Maps MCP server describes them.
MAP_TOOLS = [
    {"name": "maps_reverse_geocode", **_point_parameters("Convert coordinates into an address")},
    {
        "name": "maps_geocode",
        "description": "Convert an address into geographic coordinates",
        "inputSchema": {"type": "object", "properties": {"address": {"type": "string"}}},
    },
    {"name": "maps_search_places", "description": "Search for places using Google Places API"},
    {
        "name": "maps_distance_matrix",
        "description": "Calculate travel distance and time for multiple origins and destinations",
    },
]


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("what street is at 48.8584, 2.2945", "what street is at 48.8584, 2.2945 {}"),
        ("which town is at 40.7, -74.0?", "which town is at 40.7, -74.0 {}?"),
        ("I am at 40.7,-74.0. Where is that?", "I am at 40.7,-74.0 {}. Where is that?"),
        (
            "from (48.8584° N, 2.2945° E) to (41.8902 N, 12.4922 E)",
            "from (48.8584° N, 2.2945° E {}) to (41.8902 N, 12.4922 E {})",
        ),
        ("这里 116.397,39.908 是什么地方", "这里 116.397,39.908 {} 是什么地方"),
    ],
)
def test_a_latitude_and_longitude_are_coordinates(request_text: str, expected: str) -> None:
    assert with_coordinate_words(request_text) == expected.replace("{}", COORDINATE_WORDS)


@pytest.mark.parametrize(
    "request_text",
    [
        "the mean of 0.7, 0.8, and 0.9",  # a list
        "sum 1.5, 2.5, 3.5",
        "200.5, 300.5",  # beyond any latitude
        "the coordinates 40.7, -74.0",  # says it already
        "latitude 40.7, longitude -74.0",
        "prices $12.50, $13.75",
        "v1.2, 3.4",
        "upgrade from 1.2, 3.4.5 is out",
        "3, 4",  # whole numbers
    ],
)
def test_what_is_not_a_place_is_left_alone(request_text: str) -> None:
    assert with_coordinate_words(request_text) == request_text


@given(st.text(alphabet=st.sampled_from("1.,-° NE$a\n"), max_size=40))
def test_coordinate_words_are_only_ever_added(request_text: str) -> None:
    added = with_coordinate_words(request_text).replace(f" {COORDINATE_WORDS}", "")
    assert added == request_text


@pytest.mark.parametrize(
    "request_text",
    ["1.1" + " " * 3_990 + "x", "1." + "1" * 3_990, "1.1," * 1_000, "1.1 N " * 650, "-1.1, " * 650],
)
def test_hostile_requests_are_read_in_one_pass(request_text: str) -> None:
    # A pattern that backtracked over them would take seconds at the query length cap.
    assert with_coordinate_words(request_text)


@pytest.mark.parametrize("engine", ["bm25", "hybrid"])
def test_a_request_for_what_is_at_a_point_finds_the_reverse_geocoder(engine: str) -> None:
    index = ToolIndex(MAP_TOOLS, engine)  # type: ignore[arg-type]
    hits = index.search("what street is at 48.8584, 2.2945", 1, threshold=0)
    assert [hit.tool.name for hit in hits] == ["maps_reverse_geocode"]
