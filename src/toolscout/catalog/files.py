"""Read tool definitions from JSON, JSON Lines and YAML files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolscout.catalog.ingest import to_tools
from toolscout.catalog.tool import Tool
from toolscout.errors import CatalogFormatError, ToolDefinitionError
from toolscout.safe_loading import parse_json

_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")


def load_tools(path: str | Path, *, namespace: str | None = None) -> list[Tool]:
    """Read the tools in a `.json`, `.jsonl`, `.yaml` or `.yml` file.

    The file may hold one definition, a list of them or `{"tools": [...]}`, in any shape
    `toolscout.catalog.to_tools` reads; a `.jsonl` file holds one definition per line.

    Args:
        path: The file.
        namespace: Given to every tool that does not carry a namespace of its own.

    Raises:
        CatalogFormatError: the file is missing, unreadable, empty, not valid JSON or YAML
            (the message gives line and column), nested too deeply, a YAML file whose
            aliases refer to themselves or expand beyond bounds (`toolscout.safe_yaml`),
            or holds no known tool shape. The message
            starts with the file's path, as does every error this function raises.
        ToolDefinitionError: a definition in the file has wrong values.
    """
    path = Path(path)
    if path.suffix.lower() not in _SUFFIXES:
        raise CatalogFormatError(
            f"{path}: cannot tell the format from the extension {path.suffix!r}; "
            f"use one of {', '.join(_SUFFIXES)}"
        )
    try:
        # utf-8-sig also reads files that editors on Windows start with a byte-order mark.
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CatalogFormatError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogFormatError(f"{path}: cannot read the file: {error}") from None
    data = _parse(text, path) if text.strip() else None
    if data is None:
        raise CatalogFormatError(f"{path}: the file is empty; expected tool definitions")
    try:
        return to_tools(data, namespace=namespace)
    except (CatalogFormatError, ToolDefinitionError) as error:
        raise type(error)(f"{path}: {error}") from None


def _parse(text: str, path: Path) -> Any:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _parse_json(text, path)
    if suffix == ".jsonl":
        return [
            _parse_json(line, path, line_number=number)
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip()
        ]
    return _parse_yaml(text, path)


def _parse_json(text: str, path: Path, *, line_number: int | None = None) -> Any:
    try:
        return parse_json(text)
    except json.JSONDecodeError as error:
        line = error.lineno if line_number is None else line_number
        raise CatalogFormatError(
            f"{path}: invalid JSON at line {line}, column {error.colno}: {error.msg}"
        ) from None


def _parse_yaml(text: str, path: Path) -> Any:
    # JSON catalogs, the demo's included, never need PyYAML.
    import yaml

    from toolscout.safe_yaml import parse_yaml

    try:
        return parse_yaml(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        position = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise CatalogFormatError(
            f"{path}: invalid YAML{position}: {error.problem or error.context}"
        ) from None
    except yaml.YAMLError as error:
        # The second line only says "in <unicode string>", which names no file.
        raise CatalogFormatError(f"{path}: invalid YAML: {str(error).splitlines()[0]}") from None
