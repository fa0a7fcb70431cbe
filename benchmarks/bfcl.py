"""The evaluation data, built from the installed `bfcl-eval` package (never the network).

BFCL, the Berkeley Function Calling Leaderboard (ShishirPatil/gorilla, Apache-2.0), gives each
test case its own few function definitions. Tool search needs one large catalog instead, so the
definitions of every file in `POOL_FILES` are pooled into one catalog, deduplicated by name, and
each test case becomes a query whose relevant tools are the functions its ground truth calls.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal, TypeVar

from toolscout.catalog import Tool

POOL_FILES: tuple[str, ...] = (
    "BFCL_v4_simple_python",
    "BFCL_v4_simple_java",
    "BFCL_v4_simple_javascript",
    "BFCL_v4_multiple",
    "BFCL_v4_parallel",
    "BFCL_v4_parallel_multiple",
    "BFCL_v4_live_simple",
    "BFCL_v4_live_multiple",
    "BFCL_v4_live_parallel",
    "BFCL_v4_live_parallel_multiple",
    "BFCL_v4_live_relevance",
    "BFCL_v4_live_irrelevance",
)
"""Files whose function definitions make the pooled catalog. Their order decides which
definition of a name is kept: the first seen, file by file, line by line."""

QUERY_FILES: tuple[str, ...] = tuple(
    # live_relevance has no possible_answer file (its cases only say that *some* function
    # applies), and irrelevance cases have no relevant tool, so neither yields ranked queries.
    name
    for name in POOL_FILES
    if name not in {"BFCL_v4_live_relevance", "BFCL_v4_live_irrelevance"}
)
"""Files whose test cases become queries with relevant tools."""

IRRELEVANCE_FILES: tuple[str, ...] = ("BFCL_v4_irrelevance", "BFCL_v4_live_irrelevance")
"""Files whose test cases become queries that no tool of their own test case serves."""

Split = Literal["dev", "test"]

_Item = TypeVar("_Item")

# BFCL writes Python and Java type names where JSON Schema has its own. "any" (and one empty
# string) mean any value, which JSON Schema says by leaving `type` out.
_JSON_SCHEMA_TYPE: dict[str, str | None] = {
    "any": None,
    "": None,
    "dict": "object",
    "HashMap": "object",
    "float": "number",
    "double": "number",
    "long": "integer",
    "tuple": "array",
    "Array": "array",
    "ArrayList": "array",
    "String": "string",
    "char": "string",
    "Boolean": "boolean",
}


@dataclass(frozen=True, slots=True)
class Query:
    """One search a benchmark runs, built from one BFCL test case."""

    id: str
    """The BFCL test case id (`simple_python_0`, `live_multiple_2-1-0`...)."""
    text: str
    """The user messages of the case's first turn, joined by newlines."""
    relevant: frozenset[str]
    """Names of the tools the ground truth calls; empty for irrelevance queries."""
    split: Split
    """`dev` to tune on, `test` to report; see `split_of`."""


@dataclass(frozen=True, slots=True)
class PoolCounts:
    """What loading found, for the report."""

    definitions: int
    """Function definitions read from `POOL_FILES`."""
    duplicates: int
    """Definitions dropped because a definition of the same name (and wording) came earlier."""
    differing_duplicates: int
    """Of those, how many differ from the kept definition (types, wording, parameters)."""
    schemas_fixed: int
    """Kept tools whose parameters used a BFCL type name, rewritten to JSON Schema."""
    queries_read: int
    """Test cases read from `QUERY_FILES`."""
    queries_dropped: int
    """Test cases dropped because a tool their ground truth calls is not in the pool."""
    irrelevance_read: int
    """Test cases read from `IRRELEVANCE_FILES`."""
    irrelevance_dropped: int
    """Of those, cases whose text is exactly that of a query with a relevant tool."""


@dataclass(frozen=True)
class BfclData:
    """The pooled catalog and the queries over it."""

    tools: tuple[Tool, ...]
    """The pooled catalog, one tool per name (or per wording), in pool order."""
    queries: tuple[Query, ...]
    """Queries with at least one relevant tool, from `QUERY_FILES`."""
    irrelevance_queries: tuple[Query, ...]
    """Queries from `IRRELEVANCE_FILES`, which measure abstention."""
    counts: PoolCounts
    variants_apart: bool = False
    """One tool per name and description, not per name (see `load_bfcl`)."""

    def queries_in(self, split: Split) -> list[Query]:
        return [query for query in self.queries if query.split == split]

    def irrelevance_queries_in(self, split: Split) -> list[Query]:
        return [query for query in self.irrelevance_queries if query.split == split]


def split_of(text: str) -> Split:
    """Assign a query to `dev` or `test` by a hash of its text: stable across runs and
    machines, and identical texts from different files always land together."""
    return "dev" if hashlib.blake2b(text.encode()).digest()[0] % 2 == 0 else "test"


def spread(items: Sequence[_Item], count: int | None) -> list[_Item]:
    """At most `count` of `items`, evenly spaced (all of them for None). Queries come file by
    file, so an even stride keeps every file in a smaller sample."""
    if count is None or len(items) <= count:
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


@cache
def load_bfcl(*, variants_apart: bool = False) -> BfclData:
    """Load the pooled catalog and the queries (cached: the files never change in a run).

    With `variants_apart`, the pool keeps one tool per name and description instead of one
    per name: BFCL words many functions differently from case to case, and each wording
    becomes a tool of its own, named `{name}_var{n}` after the first. A query's relevant
    tools are then the wordings of its own case, which the other wordings compete with. That
    pool is made of the `QUERY_FILES` alone, without the live relevance and irrelevance
    files' functions: it is the catalog of 2,101 tools that the project's pooled BFCL
    targets are stated on.
    """
    definitions = [
        function
        for name in (QUERY_FILES if variants_apart else POOL_FILES)
        for case in read_cases(name)
        for function in case["function"]
    ]
    key = _wording if variants_apart else _name
    kept, differing = _first_of_each(definitions, key)
    names = _tool_names(kept)
    tools: list[Tool] = []
    schemas_fixed = 0
    for kept_key, definition in kept.items():
        parameters, fixes = _with_json_schema_types(definition["parameters"])
        schemas_fixed += fixes > 0
        tools.append(
            Tool(
                name=names[kept_key],
                description=definition["description"],
                input_schema=parameters,
            )
        )

    read = [
        _query(case, _relevant(answers, case, names, key))
        for name, answers in _answers()
        for case in read_cases(name)
    ]
    queries = [query for query in read if query.relevant]
    # A few irrelevance cases repeat, word for word, a question that another case answers with
    # a tool now in the pool; abstaining on those would be wrong, so they are left out.
    answerable = {query.text for query in queries}
    irrelevance = [
        _query(case, frozenset()) for name in IRRELEVANCE_FILES for case in read_cases(name)
    ]
    kept_irrelevance = [query for query in irrelevance if query.text not in answerable]

    counts = PoolCounts(
        definitions=len(definitions),
        duplicates=len(definitions) - len(kept),
        differing_duplicates=differing,
        schemas_fixed=schemas_fixed,
        queries_read=len(read),
        queries_dropped=len(read) - len(queries),
        irrelevance_read=len(irrelevance),
        irrelevance_dropped=len(irrelevance) - len(kept_irrelevance),
    )
    return BfclData(tuple(tools), tuple(queries), tuple(kept_irrelevance), counts, variants_apart)


_Key = tuple[str, ...]


def _name(definition: dict[str, Any]) -> _Key:
    return (definition["name"],)


def _wording(definition: dict[str, Any]) -> _Key:
    return (definition["name"], definition.get("description", ""))


def _first_of_each(
    definitions: list[dict[str, Any]], key: Callable[[dict[str, Any]], _Key]
) -> tuple[dict[_Key, dict[str, Any]], int]:
    """The first definition of each key, and how many later ones differ from it."""
    kept: dict[_Key, dict[str, Any]] = {}
    differing = 0
    for definition in definitions:
        first = kept.setdefault(key(definition), definition)
        if first is not definition and first != definition:
            differing += 1
    return kept, differing


def _tool_names(kept: dict[_Key, dict[str, Any]]) -> dict[_Key, str]:
    """Each kept definition's tool name: its own for the first of a name, `{name}_var{n}` for
    the n-th wording of it (past any name the pool already has)."""
    taken = {definition["name"] for definition in kept.values()}
    names: dict[_Key, str] = {}
    seen: dict[str, int] = {}
    for key, definition in kept.items():
        name = definition["name"]
        count = seen[name] = seen.get(name, 0) + 1
        if count > 1:
            while f"{name}_var{count}" in taken:
                count += 1
            seen[name] = count
            taken.add(name := f"{name}_var{count}")
        names[key] = name
    return names


def _answers() -> Iterator[tuple[str, dict[str, list[dict[str, Any]]]]]:
    """Each file of `QUERY_FILES` with its ground truth: test case id → expected calls."""
    for name in QUERY_FILES:
        answers = read_cases(f"possible_answer/{name}")
        yield name, {answer["id"]: answer["ground_truth"] for answer in answers}


def _relevant(
    answers: dict[str, list[dict[str, Any]]],
    case: dict[str, Any],
    names: dict[_Key, str],
    key: Callable[[dict[str, Any]], _Key],
) -> frozenset[str]:
    """The pooled tools of the functions the case's ground truth calls, as the case defines
    them; empty when one of them is not in the pool."""
    # Each expected call is a one-key dict: {function name: accepted arguments}.
    called = {function for call in answers[case["id"]] for function in call}
    own = {definition["name"]: key(definition) for definition in case["function"]}
    relevant = set()
    for function in called:
        name = names.get(own.get(function, (function,)))
        if name is None:
            return frozenset()
        relevant.add(name)
    return frozenset(relevant)


def read_cases(name: str) -> Iterator[dict[str, Any]]:
    """The test cases of one BFCL data file (JSON Lines despite the `.json` suffix)."""
    path = resources.files("bfcl_eval") / "data" / f"{name}.json"
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _query(case: dict[str, Any], relevant: frozenset[str]) -> Query:
    # Later turns of a case follow up on the first; a search starts from what the user asked.
    first_turn = case["question"][0]
    text = "\n".join(message["content"] for message in first_turn if message["role"] == "user")
    return Query(id=case["id"], text=text, relevant=relevant, split=split_of(text))


def _with_json_schema_types(schema: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A copy of a parameters schema with BFCL's type names below the top level replaced by
    JSON Schema's, and how many were replaced. (`Tool` itself maps the top-level `dict`.)"""
    fixes = 0

    def fixed(node: Any) -> Any:
        nonlocal fixes
        if not isinstance(node, dict):
            return node
        node = dict(node)
        kind = node.get("type")
        if isinstance(kind, str) and kind in _JSON_SCHEMA_TYPE:
            fixes += 1
            json_type = _JSON_SCHEMA_TYPE[kind]
            if json_type is None:
                del node["type"]
            else:
                node["type"] = json_type
        if isinstance(node.get("properties"), dict):
            node["properties"] = {key: fixed(value) for key, value in node["properties"].items()}
        if "items" in node:
            node["items"] = fixed(node["items"])
        return node

    properties = {key: fixed(value) for key, value in schema.get("properties", {}).items()}
    return {**schema, "properties": properties}, fixes
