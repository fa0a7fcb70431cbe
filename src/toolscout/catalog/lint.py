"""Find the tools search will struggle to find or to tell apart, and say what to fix."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolscout.catalog.tool import Tool

LintCode = Literal[
    "missing-description",
    "short-description",
    "duplicate-description",
    "undocumented-parameter",
    "name-collision",
    "keyword-stuffing",
    "invalid-name",
]
"""What kind of problem a `LintIssue` is; stable, so scripts can filter on it."""

LINT_CODES: tuple[LintCode, ...] = (
    "missing-description",
    "short-description",
    "duplicate-description",
    "undocumented-parameter",
    "name-collision",
    "keyword-stuffing",
    "invalid-name",
)

#: A description under either limit is `short-description`: "Sends an email." (3 words) and
#: "Get weather for X" (17 characters) give search too few words to match a request with.
MIN_DESCRIPTION_WORDS = 4
MIN_DESCRIPTION_CHARS = 20

#: Descriptions whose sets of words have a Jaccard similarity at least this high are
#: `duplicate-description`. Word sets are what a bag-of-words engine such as BM25 sees, so
#: tools this similar get near-equal scores for every query. At 0.9, a 20-word description
#: with one word swapped is still a duplicate; a 10-word one is only if the words are the same.
DUPLICATE_SIMILARITY = 0.9

#: `keyword-stuffing` flags a tool with the same tag twice or more, the same description on at
#: least this many parameters, or one word this many times in its text (description,
#: parameter descriptions, enum values and tags) where it is also at least
#: `STUFFED_WORD_SHARE` of the words. Search counts such repeats once or little more, so they
#: only make a tool look like spam; a long description that names its subject often is left
#: alone by the share.
STUFFED_PARAMETER_DESCRIPTIONS = 4
STUFFED_WORD_REPEATS = 10
STUFFED_WORD_SHARE = 0.2

_WORD = re.compile(r"\w+")
_WHITESPACE = re.compile(r"\s")
# Words too common to count as stuffing when repeated (a long text says "the" often).
_COMMON_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)
_LISTED_AT_MOST = 5


@dataclass(frozen=True, slots=True)
class LintIssue:
    """One problem with one tool."""

    tool_id: str
    """The tool with the problem."""
    code: LintCode
    """What kind of problem it is."""
    message: str
    """The problem and its fix, in a sentence."""


def lint_tools(
    tools: Iterable[Tool], *, duplicate_similarity: float = DUPLICATE_SIMILARITY
) -> list[LintIssue]:
    """The issues of `tools`, in tool order, at most one per tool and code, in the order
    of `LINT_CODES`.

    Args:
        tools: the tools to check, such as a `Catalog`.
        duplicate_similarity: the Jaccard similarity of word sets from which two
            descriptions count as duplicates, in (0, 1]. Low values make common words
            candidates too, and compare far more pairs on a large catalog.
    """
    if not 0 < duplicate_similarity <= 1:
        raise ValueError(f"duplicate_similarity must be in (0, 1], got {duplicate_similarity}")
    tools = list(tools)
    issues = [issue for tool in tools for issue in _single_tool_issues(tool)]
    issues += _duplicate_issues(tools, duplicate_similarity)
    issues += _collision_issues(tools)
    position = {tool.id: index for index, tool in enumerate(tools)}
    return sorted(issues, key=lambda issue: (position[issue.tool_id], LINT_CODES.index(issue.code)))


def name_collisions(tools: Iterable[Tool]) -> dict[str, list[Tool]]:
    """Each name used by more than one tool (in different namespaces), with those tools."""
    by_name: defaultdict[str, list[Tool]] = defaultdict(list)
    for tool in tools:
        by_name[tool.name].append(tool)
    return {name: group for name, group in by_name.items() if len(group) > 1}


def undocumented_parameters(input_schema: dict[str, Any]) -> list[str]:
    """Paths of the parameters without a description, nested ones included: `city`,
    `address.street`, `recipients[].email`. Local `$ref`s are followed."""
    found: list[str] = []
    _collect_undocumented(input_schema, "", input_schema, frozenset(), found)
    return found


def _single_tool_issues(tool: Tool) -> Iterator[LintIssue]:
    description = tool.description.strip()
    if not description:
        yield LintIssue(
            tool.id,
            "missing-description",
            "no description: search can match only the name and parameters; "
            "say what the tool does and when to use it",
        )
    else:
        word_count = len(_WORD.findall(description))
        if word_count < MIN_DESCRIPTION_WORDS or len(description) < MIN_DESCRIPTION_CHARS:
            yield LintIssue(
                tool.id,
                "short-description",
                f"description {description!r} is too short to match requests worded "
                "differently; say what the tool does, on what, and when to use it",
            )
    undocumented = undocumented_parameters(tool.input_schema)
    if undocumented:
        yield LintIssue(
            tool.id,
            "undocumented-parameter",
            f"{_listing(undocumented)} {'has' if len(undocumented) == 1 else 'have'} no "
            "description; describe what each expects (format, units, allowed values)",
        )
    stuffing = stuffing_signs(tool)
    if stuffing:
        yield LintIssue(
            tool.id,
            "keyword-stuffing",
            f"{'; '.join(stuffing)}: search counts a repeat once, so it only makes the tool "
            "look like spam; say each thing once",
        )
    if _WHITESPACE.search(tool.name):
        yield LintIssue(
            tool.id,
            "invalid-name",
            f"the name {_shortened(tool.name)!r} has spaces, which OpenAI and Anthropic refuse "
            "in a tool name (they take letters, digits, _ and -); join the words with _",
        )


def stuffing_signs(tool: Tool) -> list[str]:
    """What in `tool` looks like keyword stuffing, each as a phrase: repeated tags, one
    description on many parameters, one word many times over."""
    signs: list[str] = []
    tags = Counter(tag.strip().casefold() for tag in tool.tags if tag.strip())
    repeated_tags = [f"{tag!r} ×{count}" for tag, count in tags.most_common() if count > 1]
    if repeated_tags:
        signs.append(f"repeated tags {_listing(repeated_tags)}")
    # The texts search reads, nested parameters too; imported here because toolscout.search
    # imports the catalog package.
    from toolscout.search.fields import tool_fields

    fields = tool_fields(tool)
    descriptions = Counter(
        " ".join(text.casefold().split()) for text in fields["parameter_descriptions"]
    )
    shared = [
        (text, count)
        for text, count in descriptions.most_common()
        if count >= STUFFED_PARAMETER_DESCRIPTIONS
    ]
    if shared:
        text, count = shared[0]
        signs.append(f"{count} parameters share the description {_shortened(text)!r}")
    words = [
        word.casefold()
        for field in ("description", "parameter_descriptions", "enum_values", "tags")
        for text in fields[field]
        for word in _WORD.findall(text)
    ]
    counts = Counter(word for word in words if word not in _COMMON_WORDS and not word.isdigit())
    if counts:
        word, count = counts.most_common(1)[0]
        if count >= STUFFED_WORD_REPEATS and count >= STUFFED_WORD_SHARE * len(words):
            signs.append(f"{word!r} is {count} of its {len(words)} words")
    return signs


def _shortened(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _duplicate_issues(tools: Sequence[Tool], similarity: float) -> Iterator[LintIssue]:
    for group in _near_duplicate_groups(tools, similarity):
        for tool in group:
            others = [other.id for other in group if other is not tool]
            yield LintIssue(
                tool.id,
                "duplicate-description",
                f"description is (nearly) the same as that of {_listing(others)}, so search "
                "ranks them alike for every query; say what sets this tool apart",
            )


def _collision_issues(tools: Sequence[Tool]) -> Iterator[LintIssue]:
    for name, group in name_collisions(tools).items():
        for tool in group:
            others = [other.id for other in group if other is not tool]
            yield LintIssue(
                tool.id,
                "name-collision",
                f"the name {name!r} is also used by {_listing(others)}; a request naming it "
                "matches them all, so make the name say what is specific to this tool",
            )


def _listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_LISTED_AT_MOST])
    hidden = len(items) - _LISTED_AT_MOST
    return f"{shown} and {hidden} more" if hidden > 0 else shown


def _collect_undocumented(
    schema: dict[str, Any],
    path: str,
    root: dict[str, Any],
    refs_followed: frozenset[str],
    found: list[str],
) -> None:
    schema, refs_followed = _follow_ref(schema, root, refs_followed)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            if not isinstance(prop, dict):
                continue
            prop_path = f"{path}.{name}" if path else name
            target, _ = _follow_ref(prop, root, refs_followed)
            if not (_has_description(prop) or _has_description(target)):
                found.append(prop_path)
            _collect_undocumented(prop, prop_path, root, refs_followed, found)
    items = schema.get("items")
    if isinstance(items, dict):
        _collect_undocumented(items, f"{path}[]", root, refs_followed, found)
    for keyword in ("anyOf", "oneOf", "allOf"):
        for alternative in schema.get(keyword) or ():
            if isinstance(alternative, dict):
                _collect_undocumented(alternative, path, root, refs_followed, found)


def _follow_ref(
    schema: dict[str, Any], root: dict[str, Any], refs_followed: frozenset[str]
) -> tuple[dict[str, Any], frozenset[str]]:
    """The schema a local `$ref` points to (`#/$defs/Address`), or `schema` itself; a ref
    already followed on this path (a recursive schema) is not followed again."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/") or ref in refs_followed:
        return schema, refs_followed
    target: Any = root
    for key in ref[2:].split("/"):
        target = target.get(key) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        return schema, refs_followed
    return target, refs_followed | {ref}


def _has_description(schema: dict[str, Any]) -> bool:
    description = schema.get("description")
    return isinstance(description, str) and bool(description.strip())


def _near_duplicate_groups(tools: Sequence[Tool], similarity: float) -> list[list[Tool]]:
    """Groups of tools whose descriptions are near-duplicates, linked transitively."""
    # Tools with the same word set share one entry, so a thousand copies of one
    # boilerplate description cost one comparison, not half a million.
    tools_by_words: dict[frozenset[str], list[Tool]] = defaultdict(list)
    for tool in tools:
        words = frozenset(word.casefold() for word in _WORD.findall(tool.description))
        if words:
            tools_by_words[words].append(tool)
    word_sets = list(tools_by_words)
    parent = list(range(len(word_sets)))

    def root_of(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for first, second in _similar_pairs(word_sets, similarity):
        parent[root_of(first)] = root_of(second)
    groups: defaultdict[int, list[Tool]] = defaultdict(list)
    for index, words in enumerate(word_sets):
        groups[root_of(index)].extend(tools_by_words[words])
    return [group for group in groups.values() if len(group) > 1]


def _similar_pairs(
    word_sets: Sequence[frozenset[str]], similarity: float
) -> Iterator[tuple[int, int]]:
    """Index pairs of the sets with Jaccard similarity >= `similarity`, found by prefix
    filtering (Bayardo et al., "Scaling up all pairs similarity search", 2007) rather than
    by comparing every pair.

    With each set's words ordered rarest first, two sets that similar must share a word
    among the first `size - ceil(similarity * size) + 1` words of each. Those words are the
    rare ones, whose lists of sets holding them are short, so few pairs are ever compared.
    """
    frequency = Counter(word for words in word_sets for word in words)
    sets_with_prefix_word: defaultdict[str, list[int]] = defaultdict(list)
    # Sets are visited smallest first so that every candidate already indexed is no larger;
    # it can then only be similar enough if it has at least `similarity * size` words.
    for index in sorted(range(len(word_sets)), key=lambda i: len(word_sets[i])):
        words = word_sets[index]
        size = len(words)
        # The epsilon errs towards a longer prefix: more candidates, never a missed pair.
        prefix_length = size - math.ceil(similarity * size - 1e-9) + 1
        prefix = sorted(words, key=lambda word: (frequency[word], word))[:prefix_length]
        candidates: set[int] = set()
        for word in prefix:
            candidates.update(
                other
                for other in sets_with_prefix_word[word]
                if len(word_sets[other]) >= similarity * size - 1e-9
            )
            sets_with_prefix_word[word].append(index)
        for other in candidates:
            if _jaccard(words, word_sets[other]) >= similarity - 1e-9:
                yield other, index


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    shared = len(first & second)
    return shared / (len(first) + len(second) - shared)
