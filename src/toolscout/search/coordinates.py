"""Coordinates in a request: a pair of decimal numbers names a place.

"What street is at 48.8584, 2.2945" never says "coordinates", the word the map tools that
answer it are described by ("Convert coordinates into an address"), nor "latitude" and
"longitude", the parameters of the map and weather tools that take a point.
`with_coordinate_words` adds these words after each pair that reads as a latitude and a
longitude, so that every engine but regex sees them.
"""

from __future__ import annotations

import re

#: What a pair of numbers that can be a point is ranked with.
COORDINATE_WORDS = "coordinates latitude longitude"

# Two decimal numbers, a comma between them, each with an optional degree sign and hemisphere
# letter ("48.8584° N, 2.2945° E"), no comma before or after ("0.7, 0.8, and 0.9" is a list),
# no currency sign before and no more of a version after ("1.2, 3.4.5"); a sentence may end
# after it. Possessive repeats keep a hostile request linear.
_PAIR = re.compile(
    r"(?<![\w.,$€£¥-])(?<!,\s)(-?\d{1,3}\.\d++)°?+\s*+(?:[NS](?!\w)\s*+)?,\s*+"
    r"(-?\d{1,3}\.\d++)°?+(?:\s*+[EW](?!\w))?(?!\w|\.\d|\s*+,)"
)
# What every pair has, found fast (the pattern starts with a character to search for): most
# requests have none, and are left after one quick scan.
_COMMA_THEN_DECIMAL = re.compile(r",\s*+-?\d{1,3}\.\d")
_SAID = re.compile(r"\b(?:coordinates?|latitudes?|longitudes?)\b", re.IGNORECASE)


def with_coordinate_words(request: str) -> str:
    """`request` with `COORDINATE_WORDS` after each pair of numbers that can be a latitude and
    a longitude, in either order ("at 40.7, -74.0" → "at 40.7, -74.0 coordinates latitude
    longitude"); the request itself when it has none or says "coordinates", "latitude" or
    "longitude"."""
    if not _COMMA_THEN_DECIMAL.search(request) or _SAID.search(request):
        return request
    return _PAIR.sub(_with_coordinate_word, request)


def _with_coordinate_word(match: re.Match[str]) -> str:
    first, second = abs(float(match.group(1))), abs(float(match.group(2)))
    # Longitudes reach 180 and latitudes 90; services write either first.
    if max(first, second) <= 180 and min(first, second) <= 90:
        return f"{match.group()} {COORDINATE_WORDS}"
    return match.group()
