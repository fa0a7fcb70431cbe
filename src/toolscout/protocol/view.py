"""The catalog as tool search sees it: which tools are pinned, which are deferred, and the
names the model calls them by.

"Pinned" is the protocol's one name for *always sent*: a pinned tool is in the tool list at
every step and is never a search result. A tool is pinned when it is marked `pinned`, when it
is not `deferred` (the two flags say the same to the protocol), or when its id is in
`ToolSearchConfig.pinned` (the config file's `always_available`). `is_pinned` is the rule;
everything else asks it. The index ranks whatever catalog it is given, every tool of it;
which of its tools a search may return is this module's answer, which tool search hands each
search as its filter (`CatalogView.deferred_ids`). So a pinned tool is never a result, and
`ToolSearch.find` can still say that it matched and why it was left out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.errors import ToolSearchConfigError
from toolscout.protocol.config import WIRE_NAME, ToolSearchConfig
from toolscout.protocol.definitions import DefinitionKind, ToolDefinition


def is_pinned(tool: Tool, pinned_ids: Collection[str] = ()) -> bool:
    """Whether `tool` is sent at every step and never returned by search: marked `pinned`,
    not `deferred`, or named (by id) in `pinned_ids` (`ToolSearchConfig.pinned`)."""
    return tool.pinned or not tool.deferred or tool.id in pinned_ids


@dataclass(frozen=True)
class CatalogView:
    """One version of the catalog as tool search sees it (`catalog_view`)."""

    version: int
    """The catalog version it was built from."""
    pinned: list[Tool]
    """Sent at every step (`is_pinned`), in catalog order."""
    deferred: list[Tool]
    """Hidden until discovered, in catalog order."""
    by_name: dict[str, Tool]
    """Tools by wire name and by id."""
    wire_names: dict[str, str]
    """Wire name by id."""
    deferred_ids: frozenset[str]
    """The ids of `deferred`."""

    def resolve(self, name: str) -> Tool | None:
        """The tool a wire name or an id names."""
        return self.by_name.get(name)

    def is_deferred(self, tool: Tool) -> bool:
        """Whether `tool` is hidden until discovered (and so searchable by the model)."""
        return tool.id in self.deferred_ids

    def wire_name(self, tool: Tool) -> str:
        """The name the model calls `tool` by."""
        return self.wire_names.get(tool.id) or wire_name(tool.id)

    def definition(self, tool: Tool, kind: DefinitionKind) -> ToolDefinition:
        """`tool` as sent to the model."""
        return ToolDefinition(
            self.wire_name(tool),
            tool.description,
            tool.input_schema,
            kind,
            tool_id=tool.id,
            tool=tool,
        )


def catalog_view(catalog: Catalog, config: ToolSearchConfig) -> CatalogView:
    """The current version of `catalog` as tool search sees it.

    Raises:
        ToolSearchConfigError: a `config.pinned` id no tool has, or a tool named like a
            meta-tool.
    """
    version, tools = catalog.snapshot()
    pinned_ids = frozenset(config.pinned)
    missing = pinned_ids - {tool.id for tool in tools}
    if missing:
        raise ToolSearchConfigError(
            f"pinned tools {sorted(missing)} are not in the catalog; pin tools by id"
        )
    pinned = [tool for tool in tools if is_pinned(tool, pinned_ids)]
    pinned_set = {tool.id for tool in pinned}
    deferred = [tool for tool in tools if tool.id not in pinned_set]
    wire_names = {tool.id: wire_name(tool.id) for tool in tools}
    by_name = {tool.id: tool for tool in tools}
    by_name.update({wire_names[tool.id]: tool for tool in tools})
    check_clashes(config, wire_names.values())
    return CatalogView(
        version, pinned, deferred, by_name, wire_names, frozenset(tool.id for tool in deferred)
    )


def check_clashes(config: ToolSearchConfig, names: Iterable[str]) -> None:
    """Refuse a tool named like one of tool search's meta-tools.

    Raises:
        ToolSearchConfigError: naming the clash and how to avoid it.
    """
    meta = config.meta_tool_names.model_dump()
    clashes = sorted(set(names) & set(meta.values()))
    if clashes:
        field_name = next(key for key, value in meta.items() if value == clashes[0])
        raise ToolSearchConfigError(
            f"a tool is named {clashes[0]!r}, like tool search's own meta-tool; rename it, "
            f"or choose another name with meta_tool_names={{'{field_name}': ...}}"
        )


def wire_name(tool_id: str) -> str:
    """The id, or, when the id is not a valid OpenAI / Anthropic tool name, the id with every
    other character replaced by `_`, cut, and a short hash of the id appended (unique)."""
    if WIRE_NAME.match(tool_id):
        return tool_id
    digest = hashlib.blake2b(tool_id.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return re.sub(r"[^A-Za-z0-9_-]", "_", tool_id)[:55] + "_" + digest
