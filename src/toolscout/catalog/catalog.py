"""`Catalog`: the live, ordered set of tools an index searches."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolscout.catalog.ingest import to_tools
from toolscout.catalog.tool import Tool
from toolscout.errors import DuplicateToolError, ToolDefinitionError, UnknownToolError


@dataclass(frozen=True)
class SyncReport:
    """What one `Catalog.sync` changed, as tool ids in catalog order."""

    added: tuple[str, ...] = ()
    """Tools that were not in the catalog (or the namespace) and now are, at the end."""
    replaced: tuple[str, ...] = ()
    """Tools whose definition (or handler) differed; each keeps its position."""
    removed: tuple[str, ...] = ()
    """Tools that were in the catalog (or the namespace) and are not in the wanted list."""
    unchanged: tuple[str, ...] = ()
    """Tools equal to the ones already there; the catalog keeps its own objects."""


class Catalog:
    """An ordered collection of tools with unique ids, changeable at run time.

    Order is insertion order (a replaced tool keeps its place); search engines break ties by it.
    Every change bumps `version`, which is how indexes notice they must catch up. Accepts
    `Tool` objects and anything `toolscout.catalog.to_tools` understands: Python callables,
    OpenAI / Anthropic / MCP tool definitions, or lists of them.
    """

    def __init__(self, tools: Iterable[Any] | Any = (), *, namespace: str | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._lock = threading.RLock()
        self._version = 0
        self.add(tools, namespace=namespace)

    @classmethod
    def from_file(cls, path: str | Path, *, namespace: str | None = None) -> Catalog:
        """Load a JSON or YAML file holding tool definitions in any supported shape."""
        from toolscout.catalog.files import load_tools

        return cls(load_tools(path, namespace=namespace))

    @property
    def version(self) -> int:
        """A counter bumped by every add, remove, replace or sync that changes something."""
        return self._version

    def add(self, tools: Iterable[Any] | Any, *, namespace: str | None = None) -> list[Tool]:
        """Add one tool or many; all or none are added. `namespace` applies to the tools
        that do not carry one.

        Raises:
            DuplicateToolError: a tool's id is already in the catalog, or twice in `tools`.
        """
        new_tools = to_tools(tools, namespace=namespace)
        with self._lock:
            seen: set[str] = set()
            for tool in new_tools:
                if tool.id in self._tools or tool.id in seen:
                    raise DuplicateToolError(_duplicate_message(tool))
                seen.add(tool.id)
            for tool in new_tools:
                self._tools[tool.id] = tool
            if new_tools:
                self._version += 1
        return new_tools

    def remove(self, *tool_ids: str) -> None:
        """Remove tools by id; all or none are removed.

        Raises:
            UnknownToolError: an id is not in the catalog.
        """
        with self._lock:
            for tool_id in tool_ids:
                self._require(tool_id)
            for tool_id in tool_ids:
                del self._tools[tool_id]
            if tool_ids:
                self._version += 1

    def replace(self, tool: Any) -> Tool:
        """Swap in a new definition for the tool with the same id, keeping its position.

        Raises:
            UnknownToolError: no tool with that id to replace (use `add`).
        """
        (new_tool,) = to_tools([tool])
        with self._lock:
            self._require(new_tool.id)
            self._tools[new_tool.id] = new_tool
            self._version += 1
        return new_tool

    def sync(self, tools: Iterable[Any] | Any, *, namespace: str | None = None) -> SyncReport:
        """Make the catalog (or one namespace of it) hold exactly `tools`, in one step.

        A tool equal to the one already there (every field, the handler included) is left
        alone, so nothing about it is re-indexed; a different one replaces it in place; the
        new ones go at the end, in the given order; the others leave. All of it happens
        under one lock with one version bump, so a search running meanwhile sees the catalog
        as it was or as it is now, never half of each. Nothing changes when nothing differs.

        Args:
            tools: What `add` accepts.
            namespace: Sync only this namespace: tools without a namespace get it, and tools
                of other namespaces stay as they are. `None` syncs the whole catalog.

        Raises:
            DuplicateToolError: two of `tools` have the same id, or one has the id of a tool
                of another namespace.
            ToolDefinitionError: a tool of another namespace is in `tools`, or (as from
                `to_tools`) a definition cannot be read.

        In every case of error the catalog is left unchanged.
        """
        wanted = to_tools(tools, namespace=namespace)
        by_id: dict[str, Tool] = {}
        for tool in wanted:
            if namespace is not None and tool.namespace != namespace:
                raise ToolDefinitionError(
                    f"tool {tool.id!r} is in namespace {tool.namespace!r}, not {namespace!r}: "
                    f"syncing namespace {namespace!r} takes only its own tools"
                )
            if tool.id in by_id:
                raise DuplicateToolError(_duplicate_message(tool))
            by_id[tool.id] = tool
        with self._lock:
            for tool_id in by_id:
                other = self._tools.get(tool_id)
                if other is not None and namespace is not None and other.namespace != namespace:
                    raise DuplicateToolError(
                        f"tool id {tool_id!r} is already taken by a tool of namespace "
                        f"{other.namespace!r}; give one of them another id"
                    )
            synced: dict[str, Tool] = {}
            added: list[str] = []
            replaced: list[str] = []
            removed: list[str] = []
            unchanged: list[str] = []
            for tool_id, current in self._tools.items():
                if namespace is not None and current.namespace != namespace:
                    synced[tool_id] = current
                elif (new := by_id.get(tool_id)) is None:
                    removed.append(tool_id)
                elif new is current or new == current:
                    synced[tool_id] = current
                    unchanged.append(tool_id)
                else:
                    synced[tool_id] = new
                    replaced.append(tool_id)
            for tool_id, tool in by_id.items():
                if tool_id not in self._tools:
                    synced[tool_id] = tool
                    added.append(tool_id)
            if added or replaced or removed:
                # One assignment: a reader that does not take the lock sees either dict whole.
                self._tools = synced
                self._version += 1
        return SyncReport(
            added=tuple(added),
            replaced=tuple(replaced),
            removed=tuple(removed),
            unchanged=tuple(unchanged),
        )

    def get(self, tool_id: str) -> Tool | None:
        """The tool with this id, or None."""
        return self._tools.get(tool_id)

    def by_name(self, name: str) -> list[Tool]:
        """All tools called `name`, across namespaces, in catalog order."""
        return [tool for tool in self._tools.values() if tool.name == name]

    def snapshot(self) -> tuple[int, list[Tool]]:
        """The version and the tools in order, read together so they agree."""
        with self._lock:
            return self._version, list(self._tools.values())

    def __getitem__(self, tool_id: str) -> Tool:
        return self._require(tool_id)

    def __contains__(self, tool_id: object) -> bool:
        return tool_id in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"Catalog({len(self)} tools, version {self._version})"

    def _require(self, tool_id: str) -> Tool:
        try:
            return self._tools[tool_id]
        except KeyError:
            raise UnknownToolError(f"no tool with id {tool_id!r} in the catalog") from None


def _duplicate_message(tool: Tool) -> str:
    where = f"namespace {tool.namespace!r}" if tool.namespace else "the catalog (no namespace)"
    return (
        f"tool {tool.name!r} appears twice in {where} (id {tool.id!r}); rename one, "
        "or give them different namespaces"
    )
