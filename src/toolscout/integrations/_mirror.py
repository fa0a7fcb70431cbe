"""A catalog kept equal to a framework's current tools. A framework tool is converted once
while its definition stays the same, and the catalog changes only where the tools did, so
the index re-analyses only those."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool

FrameworkTool = TypeVar("FrameworkTool")


class CatalogMirror(Generic[FrameworkTool]):
    """`catalog` holds the framework tools last given to `update`, as toolscout tools.

    Args:
        convert: A framework tool as a toolscout `Tool` (with a handler that runs it).
        key: What identifies a framework tool's definition: equal keys, same `Tool`.
    """

    def __init__(
        self,
        convert: Callable[[FrameworkTool], Tool],
        key: Callable[[FrameworkTool], Hashable],
    ) -> None:
        self.catalog = Catalog()
        self._convert = convert
        self._key = key
        self._converted: dict[Hashable, Tool] = {}
        self._lock = threading.Lock()

    def update(self, tools: Sequence[FrameworkTool]) -> None:
        """Make the catalog hold exactly `tools`, in one step (`Catalog.sync`)."""
        with self._lock:
            converted: dict[Hashable, Tool] = {}
            for tool in tools:
                key = self._key(tool)
                converted[key] = self._converted.get(key) or self._convert(tool)
            self._converted = converted
            # Two framework tools of one name: the last wins, as in the framework's own lookups.
            by_id = {tool.id: tool for tool in converted.values()}
            self.catalog.sync(list(by_id.values()))
