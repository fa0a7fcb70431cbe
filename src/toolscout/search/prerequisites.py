"""Prerequisites: the tools that give another tool a value it needs.

Many APIs take an id that only another tool of theirs gives, and say so where the parameter is
described: context7's `query-docs` takes a library id "retrieved from resolve-library-id", a
booking site's car search takes the coordinates that "can be retrieved from ... (Search Car
Location)". An agent that finds the one tool must call the other first; a search that returns
both spares it a second search. This module finds those mentions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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

# What a tool's name looks like in text: word characters joined by the separators names use.
_NAME_LIKE = re.compile(r"[A-Za-z0-9]+(?:[_.\-][A-Za-z0-9]+)+|[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class _NamesOf:
    """The tools of one namespace by how their parameters' descriptions may name them."""

    written: dict[str, Tool]
    """Names of two words or more, as written."""
    phrases: dict[tuple[str, ...], Tool]
    """Names of `MIN_PHRASE_WORDS` to `MAX_PHRASE_WORDS` words, as lower-case words."""
    phrase_lengths: tuple[int, ...]


class Prerequisites:
    """Each tool's prerequisites in one state of a catalog: the tools of its namespace that
    its parameters' descriptions name, in order of first mention. Found when first asked for,
    tool by tool, and remembered: a search asks about a few tools, not the whole catalog."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = tools
        self._names: dict[str | None, _NamesOf] = {}
        self._found: dict[str, tuple[Tool, ...]] = {}

    def of(self, tool: Tool) -> tuple[Tool, ...]:
        """The tools that `tool`'s parameters' descriptions name, itself left out."""
        found = self._found.get(tool.id)
        if found is None:
            found = self._found[tool.id] = self._find(tool)
        return found

    def _find(self, tool: Tool) -> tuple[Tool, ...]:
        text = parameter_text(tool)
        if not text:
            return ()
        names = self._names_of(tool.namespace)
        named = [names.written.get(candidate) for candidate in _NAME_LIKE.findall(text)]
        if names.phrases:
            words = _WORD.findall(text.lower())
            named += [
                names.phrases.get(tuple(words[start : start + length]))
                for start in range(len(words))
                for length in names.phrase_lengths
            ]
        by_id = {found.id: found for found in named if found is not None and found.id != tool.id}
        return tuple(by_id.values())

    def _names_of(self, namespace: str | None) -> _NamesOf:
        names = self._names.get(namespace)
        if names is None:
            written: dict[str, Tool] = {}
            phrases: dict[tuple[str, ...], Tool] = {}
            for tool in self._tools:
                if tool.namespace != namespace:
                    continue
                words = tuple(word.casefold() for word in identifier_words(tool.name))
                if len(words) >= 2:
                    written.setdefault(tool.name, tool)
                if MIN_PHRASE_WORDS <= len(words) <= MAX_PHRASE_WORDS:
                    phrases.setdefault(words, tool)
            lengths = tuple(sorted({len(words) for words in phrases}))
            names = self._names[namespace] = _NamesOf(written, phrases, lengths)
        return names


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
