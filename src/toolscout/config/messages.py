"""Pydantic's validation errors, said as a config file's author needs them: the key's path,
what is wrong, and what to write instead."""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from toolscout.config.source import KeyPath

#: Keys people write that the model spells otherwise.
_SAME_AS = {"pinned": "always_available", "pinned_tools": "always_available"}
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def file_path(loc: Sequence[str | int], data: Any) -> KeyPath:
    """The keys of a pydantic error location as they are in the file: a union member's tag
    (which pydantic puts in the location) is left out."""
    path: list[str] = []
    current: Any = data
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        if isinstance(current, Mapping):
            key = next((k for k in current if str(k) == str(part)), _MISSING)
            if key is not _MISSING:
                path.append(str(part))
                current = current[key]
            elif last:
                path.append(str(part))
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            path.append(str(part))
            current = current[part]
        elif last and not path:
            path.append(str(part))
    return tuple(path)


def error_loc(detail: ErrorDetails) -> tuple[str | int, ...]:
    """Where the error is: for a tagged union's bad or missing tag, the tag's own key."""
    loc = tuple(detail["loc"])
    if detail["type"] in ("union_tag_invalid", "union_tag_not_found"):
        discriminator = str((detail.get("ctx") or {}).get("discriminator", "")).strip("'")
        if discriminator.isidentifier():
            return (*loc, discriminator)
    return loc


def problem(detail: ErrorDetails, model: type[BaseModel]) -> str:
    """What is wrong with the value, and the fix, in a few words."""
    kind = detail["type"]
    ctx: Mapping[str, Any] = detail.get("ctx") or {}
    value = detail.get("input")
    got = f" (got {_shown(value)})"
    if kind == "extra_forbidden":
        return _unknown_key(str(detail["loc"][-1]), _keys_at(model, detail["loc"][:-1]))
    if kind in ("missing", "union_tag_not_found"):
        return "is required; add it"
    if kind == "union_tag_invalid":
        choices = _QUOTED.findall(str(ctx.get("expected_tags", "")))
        tag = ctx.get("tag")
        close = _closest(str(tag), choices)
        got = f" (got {_shown(tag)}; did you mean {close}?)" if close else f" (got {_shown(tag)})"
        return f"must be one of {', '.join(choices)}{got}"
    if kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
        words = {
            "less_than_equal": ("at most", "le"),
            "greater_than_equal": ("at least", "ge"),
            "less_than": ("less than", "lt"),
            "greater_than": ("more than", "gt"),
        }[kind]
        return f"must be {words[0]} {ctx.get(words[1])}{got}"
    if kind == "literal_error":
        choices = _QUOTED.findall(str(ctx.get("expected", "")))
        close = _closest(str(value), choices)
        got = f" (got {_shown(value)}; did you mean {close}?)" if close else got
        return f"must be one of {', '.join(choices)}{got}"
    if kind in ("value_error", "assertion_error"):
        return re.sub(r"^(Value|Assertion) error, ", "", detail["msg"])
    simple = {
        "bool_parsing": "must be true or false",
        "bool_type": "must be true or false",
        "int_parsing": "must be a whole number",
        "int_type": "must be a whole number",
        "int_from_float": "must be a whole number",
        "float_parsing": "must be a number",
        "float_type": "must be a number",
        "string_type": "must be text",
        "list_type": "must be a list",
        "tuple_type": "must be a list",
        "dict_type": "must be a mapping of keys to values",
        "model_type": "must be a mapping of keys to values",
        "model_attributes_type": "must be a mapping of keys to values",
        "too_short": "has too few items",
        "too_long": "has too many items",
        "string_too_short": "is too short",
        "string_too_long": "is too long",
    }
    if kind in simple:
        return simple[kind] + got
    message = str(detail["msg"])
    return message[:1].lower() + message[1:] + got


def _unknown_key(key: str, keys: list[str] | None) -> str:
    if not keys:
        return "unknown key; remove it"
    same = _SAME_AS.get(key)
    close = same if same in keys else _closest(key, keys)
    hint = f" (did you mean {close}?)" if close else ""
    return f"unknown key{hint}; the keys here are {', '.join(keys)}"


def _closest(value: str, choices: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _keys_at(model: type[BaseModel], loc: Sequence[str | int]) -> list[str] | None:
    """The keys the model accepts at `loc`, or None when they cannot be told."""
    annotation: Any = model
    for part in loc:
        annotation = _step(annotation, part)
        if annotation is None:
            return None
    found = _model_of(annotation)
    return _keys(found) if found is not None else None


def _step(annotation: Any, part: str | int) -> Any:
    """The type of the value at `part` inside a value of type `annotation`."""
    annotation = _unwrap(annotation)
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            if part in (name, field.alias):
                return field.annotation
        return None
    if origin in (Union, types.UnionType):
        members = [_unwrap(member) for member in get_args(annotation)]
        for member in members:
            found = _step(member, part)
            if found is not None:
                return found
        for member in members:  # a member's tag: its class name or its discriminator value
            if isinstance(member, type) and (
                member.__name__ == part or part in _literal_values(member)
            ):
                return member
        return None
    if origin is not None and isinstance(origin, type):
        args = get_args(annotation)
        if issubclass(origin, Mapping) and len(args) == 2:
            return args[1]
        if issubclass(origin, (list, tuple, set, frozenset)) and args:
            return args[0]
    return None


def _unwrap(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _model_of(annotation: Any) -> type[BaseModel] | None:
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, types.UnionType):
        models = [m for m in map(_model_of, get_args(annotation)) if m is not None]
        return models[0] if len(models) == 1 else None
    return None


def _keys(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _literal_values(model: type[BaseModel]) -> set[Any]:
    if not issubclass(model, BaseModel):
        return set()
    values: set[Any] = set()
    for field in model.model_fields.values():
        if get_origin(_unwrap(field.annotation)) is Literal:
            values.update(get_args(_unwrap(field.annotation)))
    return values


class _Missing:
    pass


_MISSING = _Missing()
