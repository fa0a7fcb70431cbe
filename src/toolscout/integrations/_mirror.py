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
        """Make the catalog hold exactly `tools`: remove the ones gone, replace the ones whose
        definition changed, add the new ones at the end."""
        with self._lock:
            converted: dict[Hashable, Tool] = {}
            for tool in tools:
                key = self._key(tool)
                converted[key] = self._converted.get(key) or self._convert(tool)
            self._converted = converted
            _mirror(self.catalog, list(converted.values()))


def _mirror(catalog: Catalog, tools: Sequence[Tool]) -> None:
    current = {tool.id: tool for tool in catalog}
    wanted = {tool.id: tool for tool in tools}
    gone = [tool_id for tool_id in current if tool_id not in wanted]
    if gone:
        catalog.remove(*gone)
    for tool_id, tool in wanted.items():
        old = current.get(tool_id)
        if old is not None and old is not tool:
            catalog.replace(tool)
    new = [tool for tool_id, tool in wanted.items() if tool_id not in current]
    if new:
        catalog.add(new)
