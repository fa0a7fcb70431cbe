"""Checking a call's arguments against its tool's input schema, in bounded time.

jsonschema checks `pattern`, `patternProperties` and `additionalProperties` with Python's
backtracking `re`: a pattern such as `^(a+)+$` takes seconds on thirty characters, holding
the interpreter the while. Here those keywords run on RE2, which takes linear time, and
`uniqueItems` compares canonical forms instead of every pair. The check runs under a budget
of CPU time (`CHECK_BUDGET`), counted at every keyword, and `ToolSearch` runs it in a worker
thread with a deadline (`CHECK_DEADLINE`).

It fails closed: the call is refused, with a sentence saying why, when the arguments nest
deeper than `MAX_NESTING`, when the check runs out of budget, and when the schema has a
pattern RE2 cannot run (lookaround, backreferences), or combines `unevaluatedProperties`
with `patternProperties` (which jsonschema would evaluate with `re`). A schema that is not
valid JSON Schema cannot judge anything: its arguments are left to the tool, as before.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2
from jsonschema import FormatChecker, validators
from jsonschema import exceptions as schema_errors
from jsonschema.exceptions import ValidationError

from toolscout.catalog.tool import Tool
from toolscout.safe_loading import MAX_NESTING
from toolscout.workers import DeadlineWorkers

logger = logging.getLogger("toolscout.protocol")

CHECK_BUDGET = 1.0
"""Seconds of CPU time one call's argument check may take; past it the call is refused."""

CHECK_DEADLINE = 10.0
"""Seconds `ToolSearch` waits for an argument check, however busy the machine."""

CHECK_THREADS = 2
"""Threads argument checks run in, shared by every `ToolSearch` of the process: however many
calls bring arguments that are slow to check, they take at most this many cores."""

PATTERN_MEMORY = 8 << 20
"""Bytes RE2 may use for one schema pattern."""

PATTERN_WORK = 200_000_000
"""The most bytes × RE2 program size one pattern check may cost. When RE2's fast automaton
gives up, matching costs a few nanoseconds per byte per instruction of the program: this is
about a second at worst. A simple pattern (`^[A-Za-z0-9+/]*={0,2}$`, 9 instructions) checks
22 MB; `(\\p{L}|\\d){60}#` (71,945) about 2,700 bytes; a longer text is refused."""

_MESSAGE_CHARS = 200  # of one problem in a refusal: values are quoted, and may be huge
_WORKERS = DeadlineWorkers(CHECK_THREADS, "toolscout-arguments")


class ArgumentChecker:
    """The problems of a call's arguments, for the model to read; validators are built
    once per schema and kept."""

    def __init__(self) -> None:
        self._validators: dict[str, _Validator | None] = {}
        self._lock = threading.Lock()

    async def aproblems(self, tool: Tool, arguments: Mapping[str, Any]) -> list[str] | None:
        """`problems`, in one of `CHECK_THREADS` worker threads, within `CHECK_DEADLINE`."""
        try:
            return await _WORKERS.run(
                functools.partial(self.problems, tool, arguments), CHECK_DEADLINE
            )
        except TimeoutError:
            return [
                f"arguments: they could not be checked within {CHECK_DEADLINE:g} s; send "
                "smaller arguments"
            ]

    def problems(self, tool: Tool, arguments: Mapping[str, Any]) -> list[str] | None:
        """Up to three problems of `arguments`, most relevant first; None if they are valid
        (or the schema cannot judge them). Bounded by `MAX_NESTING` and `CHECK_BUDGET`.
        Meant for a worker thread: it may take up to the budget."""
        validator = self._validator(tool)
        if validator is None:
            return None
        if validator.uncheckable:
            return [validator.uncheckable]
        depth = _depth(arguments)
        if depth > MAX_NESTING:
            return [f"arguments: nested more than {MAX_NESTING} levels deep"]
        _budget.deadline = time.thread_time() + CHECK_BUDGET
        try:
            errors = sorted(validator.checker.iter_errors(arguments), key=schema_errors.relevance)
        except _OutOfBudget:
            return [
                f"arguments: checking them against the schema took more than {CHECK_BUDGET:g} s;"
                " send smaller arguments"
            ]
        except _UncheckablePattern as error:
            return [str(error)]
        except RecursionError:
            return ["arguments: too deeply nested for the schema to check"]
        except Exception:  # an unusual schema the validator cannot apply: let the tool judge
            logger.debug("cannot validate the arguments of %r", tool.id, exc_info=True)
            return None
        finally:
            _budget.deadline = None
        return [_describe(error) for error in errors[:3]] or None

    def _validator(self, tool: Tool) -> _Validator | None:
        key = tool.fingerprint
        with self._lock:
            if key not in self._validators:
                self._validators[key] = _build(tool.input_schema)
            return self._validators[key]


@dataclass(frozen=True)
class _Validator:
    checker: Any
    uncheckable: str | None = None
    """Why calls cannot be checked safely, when they cannot."""


def _build(schema: Mapping[str, Any]) -> _Validator | None:
    try:
        base = validators.validator_for(schema)
        # The stubs omit `format_checker`, which jsonschema 4 takes.
        base.check_schema(dict(schema), format_checker=_schema_formats(base))  # type: ignore[call-arg]
    except Exception:  # a schema that is not valid JSON Schema cannot judge arguments
        return None
    checker = _safe_class(base)(schema)
    keywords = _keywords_in(schema)
    for pattern in keywords.patterns:
        problem = _compiled(pattern)
        if isinstance(problem, str):
            return _Validator(checker, f"the tool's input schema has the pattern {problem}")
    if keywords.unevaluated_properties and keywords.pattern_properties:
        return _Validator(
            checker,
            "the tool's input schema combines unevaluatedProperties with patternProperties, "
            "which toolscout cannot check in bounded time; the call is refused",
        )
    return _Validator(checker)


@lru_cache(maxsize=64)
def _schema_formats(base: Any) -> FormatChecker:
    """The formats a schema's own values are checked for, but `regex`: Python's `re` would
    refuse patterns RE2 reads (`\\p{L}`), and accept ones it cannot run (lookaround), which
    `_build` finds itself."""
    checker = FormatChecker()
    checker.checkers = {
        name: check for name, check in base.FORMAT_CHECKER.checkers.items() if name != "regex"
    }
    return checker


@lru_cache(maxsize=64)
def _safe_class(base: Any) -> Any:
    """`base` (a jsonschema validator class) with RE2 for patterns, a linear uniqueItems,
    and the budget checked at every keyword."""
    replaced: dict[str, Callable[..., Any]] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "uniqueItems": _unique_items,
    }
    if "additionalProperties" in base.VALIDATORS:
        replaced["additionalProperties"] = _additional_properties(
            base.VALIDATORS["additionalProperties"]
        )
    keywords = {**base.VALIDATORS, **replaced}
    budgeted = {
        name: _budgeted(function) for name, function in keywords.items() if name in base.VALIDATORS
    }
    return validators.extend(base, budgeted)  # type: ignore[no-untyped-call]


# -- the keywords ----------------------------------------------------------------------------


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{_short(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(original: Callable[..., Any]) -> Callable[..., Any]:
    """jsonschema's `additionalProperties`, except that properties `patternProperties`
    matches are found with RE2."""

    def additional_properties(
        validator: Any, allowed: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        patterns = schema.get("patternProperties")
        if not patterns or not validator.is_type(instance, "object"):
            yield from original(validator, allowed, instance, schema) or ()
            return
        properties = schema.get("properties", {})
        extras = sorted(
            (
                key
                for key in instance
                if key not in properties and not any(_matches(p, key) for p in patterns)
            ),
            key=str,
        )
        if validator.is_type(allowed, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], allowed, path=extra)
        elif not allowed and extras:
            verb = "does" if len(extras) == 1 else "do"
            names = ", ".join(_short(extra) for extra in extras[:10])
            yield ValidationError(
                f"{names} {verb} not match any of the regexes: "
                f"{', '.join(repr(pattern) for pattern in sorted(patterns))}"
            )

    return additional_properties


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"{_short(instance)} has non-unique elements")
            return
        seen.add(key)


def _canonical(value: Any) -> Any:
    """A hashable form of a JSON value, equal for values JSON Schema calls equal (1 and 1.0,
    mappings in any order) and different for the rest (true and 1)."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list | tuple):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, Mapping):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("other", id(value))


# -- RE2 ---------------------------------------------------------------------------------------

# ECMA-262 (JSON Schema's regex dialect) escapes that RE2 spells otherwise.
_ECMA_ESCAPE = re.compile(r"\\\\|\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\Z")


def _matches(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    if isinstance(compiled, str):  # a pattern `_keywords_in` did not see, from a `$ref`
        raise _UncheckablePattern(f"the tool's input schema has the pattern {compiled}")
    _spend_budget()  # keys of one object are matched within one keyword
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) * compiled.programsize > PATTERN_WORK:
        raise _UncheckablePattern(
            f"arguments: a text of {len(encoded):,} bytes is too long to check against the "
            f"pattern {pattern[:100]!r} in bounded time; send a shorter one"
        )
    return compiled.search(encoded) is not None


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    """The pattern compiled by RE2 (for UTF-8 bytes), or why it cannot be (a str)."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = PATTERN_MEMORY
    translated = _ECMA_ESCAPE.sub(_re2_escape, pattern)
    try:
        return re2.compile(translated.encode("utf-8", "surrogatepass"), options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode(errors="replace")
        return (
            f"{pattern[:100]!r}, which toolscout cannot check in linear time with RE2 "
            f"({reason}); the call is refused"
        )


def _re2_escape(match: re.Match[str]) -> str:
    if match[0] == "\\\\":
        return match[0]
    if match[0] == "\\Z":
        return "\\z"
    return f"\\x{{{match[1] or match[2]}}}"


# -- bounds --------------------------------------------------------------------------------------


class _OutOfBudget(Exception):
    """The check took more CPU time than `CHECK_BUDGET`."""


class _UncheckablePattern(Exception):
    """A pattern RE2 cannot run: the arguments cannot be checked safely."""


class _Budget(threading.local):
    deadline: float | None = None


_budget = _Budget()


def _spend_budget() -> None:
    deadline = _budget.deadline
    if deadline is not None and time.thread_time() > deadline:
        raise _OutOfBudget


def _budgeted(function: Callable[..., Any]) -> Callable[..., Any]:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _spend_budget()
        return function(validator, value, instance, schema)

    return keyword


def _depth(value: Any) -> int:
    """How deeply lists and mappings nest in `value`, without recursion; stops counting past
    `MAX_NESTING`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack and deepest <= MAX_NESTING:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


_VALUES_NOT_SCHEMAS = frozenset({"const", "enum", "default", "examples"})


@dataclass
class _SchemaKeywords:
    patterns: set[str]
    pattern_properties: bool = False
    unevaluated_properties: bool = False


def _keywords_in(schema: Any) -> _SchemaKeywords:
    """The patterns a schema holds (`pattern` values, `patternProperties` keys), and whether
    it uses `patternProperties` and `unevaluatedProperties`; walked without recursion."""
    found = _SchemaKeywords(set())
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        for key, value in node.items():
            if key in _VALUES_NOT_SCHEMAS:
                continue
            if key == "pattern" and isinstance(value, str):
                found.patterns.add(value)
            elif key == "patternProperties" and isinstance(value, Mapping):
                found.pattern_properties = True
                found.patterns.update(p for p in value if isinstance(p, str))
            elif key == "unevaluatedProperties":
                found.unevaluated_properties = True
            stack.append(value)
    return found


def _describe(error: ValidationError) -> str:
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    message = error.message
    if len(message) > _MESSAGE_CHARS:
        message = message[: _MESSAGE_CHARS - 1] + "…"
    return f"{where}: {message}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."
