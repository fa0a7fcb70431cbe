"""JSON read from files and peers toolscout does not control (catalogs, configs, an upstream's
answers), with nesting deeper than `MAX_NESTING` levels (`[[[[...` 5,000 deep) refused: it
would overflow Python's stack in the parser or in any code that walks the data afterwards.
It is refused with the parser's own error type (`json.JSONDecodeError`), with the line and
column where it happens, so that callers report it as they report any other syntax error.
YAML has the same bounds and more in `toolscout.safe_yaml`.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_NESTING = 100
"""The deepest nesting of lists and mappings a file may have."""

# A JSON string, or a bracket outside strings: enough to find where nesting gets too deep.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def parse_json(text: str) -> Any:
    """The value of a JSON text.

    Raises:
        json.JSONDecodeError: the text is not JSON, or nests deeper than `MAX_NESTING`.
    """
    try:
        data = json.loads(text)
    except RecursionError:
        data = None  # nested deeper than the parser's stack: found below
    else:
        if _depth(data) <= MAX_NESTING:
            return data
    raise json.JSONDecodeError(too_deep(), text, _deep_position(text))


def too_deep() -> str:
    """What a text nested too deeply is told."""
    return f"nested more than {MAX_NESTING} levels deep"


def _depth(data: Any) -> int:
    """How deeply lists and mappings nest in `data` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            break
        # Scalars nest nothing: only containers are looked at again.
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _deep_position(text: str) -> int:
    """Where the first bracket too deep in a JSON text is (0 if none is found)."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return token.start()
        elif bracket in "]}":
            depth -= 1
    return 0
