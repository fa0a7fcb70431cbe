"""Prerequisites: the tools that give another tool a value it needs.

Many APIs take an id that only another tool of theirs gives, and say so where the parameter is
described: context7's `query-docs` takes a library id "retrieved from resolve-library-id", a
booking site's car search takes the coordinates that "can be retrieved from ... (Search Car
Location)". An agent that finds the one tool must call the other first; a search that returns
both spares it a second search. This module finds those mentions.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolscout.catalog.tool import Tool
from toolscout.search.analysis import MAX_FIELD_CHARS, identifier_words

#: A tool's name is found in prose as its words when it has this many at least ("Search Car
#: Location" for `Search_Car_Location`). A shorter name is found only as written
#: (`list_tables`, `resolve-library-id`): two common words ("search hotels", "get page") meet
#: in prose by chance.
MIN_PHRASE_WORDS = 3
#: Names longer than this many words are found only as written.
MAX_PHRASE_WORDS = 8

# A name as written is a word of the text, with the quotes, brackets and punctuation around it
# stripped off; a name in words is found among the text's words, its punctuation made spaces.
# String methods, not regular expressions: they run in C at several times the speed.
_AROUND_A_NAME = str.maketrans(dict.fromkeys("\"'`()[]{}<>*,;:!?", " "))
_PUNCTUATION_TO_SPACES = str.maketrans(dict.fromkeys(string.punctuation, " "))


@dataclass(frozen=True, slots=True)
class _NamesOf:
    """The tools of one namespace by how their parameters' descriptions may name them."""

    written: dict[str, Tool]
    """Names of two words or more, as written."""
    phrases: dict[tuple[str, ...], Tool]
    """Names of `MIN_PHRASE_WORDS` to `MAX_PHRASE_WORDS` words, as lower-case words."""
    phrase_lengths: dict[tuple[str, str], tuple[int, ...]]
    """The lengths of the phrases that start with each two words: most pairs start none."""


class Prerequisites:
    """Each tool's prerequisites in one state of a catalog: the tools of its namespace that
    its parameters' descriptions name. All found at once when the catalog changes (0.11 s
    for 5,000 tools), so that a search only looks them up: found as a search first met each
    tool, they made a BM25 search of 500 tools 40% slower."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        by_namespace: dict[str | None, list[Tool]] = {}
        for tool in tools:
            by_namespace.setdefault(tool.namespace, []).append(tool)
        self._found: dict[str, tuple[Tool, ...]] = {}
        for namespace_tools in by_namespace.values():
            names = _names_of(namespace_tools)
            if not names.written and not names.phrases:
                continue
            for tool in namespace_tools:
                if found := _find(tool, names):
                    self._found[tool.id] = found

    def of(self, tool: Tool) -> tuple[Tool, ...]:
        """The tools that `tool`'s parameters' descriptions name, itself left out."""
        return self._found.get(tool.id, ())

    def any_of(self, tools: Iterable[Tool]) -> bool:
        """Whether any of `tools` has prerequisites: most searches find none that has."""
        found = self._found
        return bool(found) and any(tool.id in found for tool in tools)


def _names_of(tools: Sequence[Tool]) -> _NamesOf:
    """How the parameters' descriptions of one namespace's `tools` may name them."""
    written: dict[str, Tool] = {}
    phrases: dict[tuple[str, ...], Tool] = {}
    for tool in tools:
        words = tuple(word.casefold() for word in identifier_words(tool.name))
        if len(words) >= 2:
            written.setdefault(tool.name, tool)
        if MIN_PHRASE_WORDS <= len(words) <= MAX_PHRASE_WORDS:
            phrases.setdefault(words, tool)
    lengths: dict[tuple[str, str], set[int]] = {}
    for words in phrases:
        lengths.setdefault((words[0], words[1]), set()).add(len(words))
    return _NamesOf(written, phrases, {pair: tuple(sorted(n)) for pair, n in lengths.items()})


def _find(tool: Tool, names: _NamesOf) -> tuple[Tool, ...]:
    """The tools of `names` that `tool`'s parameters' descriptions name: those named as
    written, then those named in words, each in order of first mention. Set operations, which
    run in C, pick the few candidates; most texts name no tool."""
    text = parameter_text(tool)
    if not text:
        return ()
    # A sentence's full stop is no part of a name ("from list_tables."); a name's is.
    as_written = f"{text} ".translate(_AROUND_A_NAME).replace(". ", " ").replace(".\n", " ")
    written = sorted(names.written.keys() & set(as_written.split()), key=text.find)
    named = [names.written[name] for name in written]
    if names.phrases:
        words = text.lower().translate(_PUNCTUATION_TO_SPACES).split()
        pairs = list(itertools.pairwise(words))
        if starts := names.phrase_lengths.keys() & set(pairs):
            named += [
                found
                for start, pair in enumerate(pairs)
                if pair in starts
                for length in names.phrase_lengths[pair]
                if (found := names.phrases.get(tuple(words[start : start + length])))
            ]
    by_id = {found.id: found for found in named if found.id != tool.id}
    return tuple(by_id.values())


def parameter_text(tool: Tool) -> str:
    """The descriptions of a tool's top-level parameters, joined (at most `MAX_FIELD_CHARS`)."""
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict):
        return ""
    descriptions = [
        schema["description"]
        for schema in properties.values()
        if isinstance(schema, dict) and isinstance(schema.get("description"), str)
    ]
    return "\n".join(descriptions)[:MAX_FIELD_CHARS]
