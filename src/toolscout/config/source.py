"""Reading a config file's text: the data, and the line and column of every key in it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from toolscout.errors import ConfigError
from toolscout.safe_loading import parse_json

# PyYAML is imported when a config is read: a search with no config file never needs it.
if TYPE_CHECKING:
    from yaml.nodes import Node

SourceFormat: TypeAlias = Literal["yaml", "json"]

KeyPath: TypeAlias = tuple[str, ...]
"""Where a value is: its keys from the top, list positions as digits (`("servers", "0")`)."""


@dataclass(frozen=True)
class Position:
    """A 1-based line and column in a file."""

    line: int
    column: int


@dataclass(frozen=True)
class ConfigSource:
    """A config file's data, and where each key (or list item) is in its text."""

    name: str
    """The file as the user named it, for messages."""
    data: Any
    positions: Mapping[KeyPath, Position] = field(default_factory=dict)

    def position(self, path: KeyPath) -> Position | None:
        """Where `path` is, or the nearest enclosing key that is in the file."""
        for end in range(len(path), 0, -1):
            found = self.positions.get(path[:end])
            if found is not None:
                return found
        return None

    def location(self, path: KeyPath) -> str:
        """`name:line:column` of `path` (or of what encloses it), or just `name`."""
        where = self.position(path)
        return f"{self.name}:{where.line}:{where.column}" if where else self.name


def read_source(text: str, name: str, format: SourceFormat) -> ConfigSource:
    """The data of a YAML or JSON text, with the position of each key.

    Raises:
        ConfigError: the text is not valid YAML or JSON, or a mapping repeats a key, or it
            nests too deeply or has YAML aliases that refer to themselves or expand beyond
            bounds (`toolscout.safe_loading`, `toolscout.safe_yaml`).
    """
    import yaml

    from toolscout.safe_yaml import BoundedLoader

    if format == "json":
        try:
            data = parse_json(text)
        except json.JSONDecodeError as error:
            raise ConfigError(
                f"{name}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"
            ) from None
        loader = BoundedLoader(text)
        try:  # JSON is (nearly) YAML: the same composer finds the keys' positions
            node = loader.get_single_node()
        except yaml.YAMLError:
            return ConfigSource(name, data)
        finally:
            loader.dispose()
        return ConfigSource(name, data, _positions(node, name))
    loader = BoundedLoader(text)
    try:
        node = loader.get_single_node()
        # Walked before construction, which merges `<<` keys into the mapping's node.
        positions = _positions(node, name)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        problem = error.problem or error.context or "not valid YAML"
        raise ConfigError(f"{where}: invalid YAML: {problem}") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{name}: invalid YAML: {error}") from None
    finally:
        loader.dispose()
    return ConfigSource(name, data, positions)


def _positions(node: Node | None, name: str) -> dict[KeyPath, Position]:
    positions: dict[KeyPath, Position] = {}
    if node is not None:
        _walk(node, (), positions, name)
    return positions


def _walk(node: Node, path: KeyPath, positions: dict[KeyPath, Position], name: str) -> None:
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    if isinstance(node, MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                continue  # a complex key: no field of a config model has one
            key = str(key_node.value)
            here = Position(key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if key == "<<":
                continue  # a merge key: its keys were merged into this mapping by the loader
            if key in seen:
                raise ConfigError(
                    f"{name}:{here.line}:{here.column}: {dotted((*path, key))}: "
                    "this key appears twice in the same mapping; keep one"
                )
            seen.add(key)
            positions[(*path, key)] = here
            _walk(value_node, (*path, key), positions, name)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            mark = item.start_mark
            positions[(*path, str(index))] = Position(mark.line + 1, mark.column + 1)
            _walk(item, (*path, str(index)), positions, name)


def dotted(path: KeyPath) -> str:
    """`tool_search.store.kind`, `servers[0].url`."""
    text = ""
    for part in path:
        text += f"[{part}]" if part.isdigit() else (f".{part}" if text else part)
    return text or "(the whole file)"
