"""YAML read from files toolscout does not control (catalogs, configs), with the three ways
such a file can exhaust a reader closed:

- nesting deeper than `MAX_NESTING` levels (`[[[[...` 5,000 deep), which would overflow
  Python's stack in the parser or in any code that walks the data afterwards;
- an anchor that contains its own alias (`&x [*x]`), which makes a structure that contains
  itself, so that any walk of it never ends;
- aliases that repeat a structure that repeats a structure... (an alias bomb: 300 bytes that
  stand for millions of values); the values aliases add may not exceed
  `MAX_ALIAS_EXPANSION`, or ten times the values the file writes out, if that is more.

Each is refused with the parser's own error type (`yaml.MarkedYAMLError`), with the line and
column where it happens. Its own module, apart from `toolscout.safe_loading`'s JSON: PyYAML
is imported only by what reads YAML, not by a search of a JSON catalog.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent, CollectionStartEvent
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.scanner import ScannerError

from toolscout.safe_loading import MAX_NESTING, too_deep

MAX_ALIAS_EXPANSION = 100_000
"""The values YAML aliases may add to a file, beyond ten times the values it writes out."""


def parse_yaml(text: str) -> Any:
    """The value of a YAML text (one document, safe tags only, as `yaml.safe_load`).

    Raises:
        yaml.YAMLError: the text is not YAML, or is refused as the module says.
    """
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


class BoundedLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses deep nesting, self-referencing anchors and alias
    bombs while it composes the document, so that nothing it returns can exhaust a reader.

    For callers that need the node tree (`get_single_node()`), as the config reader does to
    locate keys; `parse_yaml` is the short way to the data.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._open_anchors: set[str] = set()
        # Per composed node: the values it stands for with its aliases expanded, and its
        # height; aliases reuse their anchor's node, so these are counted once per node.
        self._expanded: dict[int, tuple[int, int]] = {}
        self._written = 0

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        # Refused as the scanner meets it: past this, PyYAML scans ahead for a possible key
        # at every level at once, which takes seconds on `[[[[...`.
        if self.flow_level >= MAX_NESTING:
            raise ScannerError(None, None, too_deep(), self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event: Any = self.peek_event()  # type: ignore[no-untyped-call]
        mark: Any = event.start_mark
        if isinstance(event, AliasEvent):
            if event.anchor in self._open_anchors:
                raise ComposerError(
                    None,
                    None,
                    f"the alias *{event.anchor} is inside its own anchor &{event.anchor}, "
                    "which makes a structure that contains itself",
                    mark,
                )
            node = super().compose_node(parent, index)
            assert node is not None  # an alias always names a node
            self._check(node, mark)
            return node
        collection = isinstance(event, CollectionStartEvent)
        anchor = event.anchor if collection else None
        if collection:
            self._depth += 1
            if self._depth > MAX_NESTING:
                raise ComposerError(None, None, too_deep(), mark)
        if anchor is not None:
            self._open_anchors.add(anchor)
        try:
            node = super().compose_node(parent, index)
            assert node is not None  # a node event always makes a node
        finally:
            if collection:
                self._depth -= 1
            if anchor is not None:
                self._open_anchors.discard(anchor)
        self._written += 1
        self._record(node)
        self._check(node, node.start_mark)
        return node

    def _record(self, node: Node) -> None:
        if isinstance(node, SequenceNode):
            children = node.value
        elif isinstance(node, MappingNode):
            children = [child for pair in node.value for child in pair]
        else:
            self._expanded[id(node)] = (1, 0)
            return
        values, height = 1, 1
        for child in children:
            child_values, child_height = self._expanded[id(child)]
            values += child_values
            height = max(height, child_height + 1)
        self._expanded[id(node)] = (values, height)

    def _check(self, node: Node, mark: Any) -> None:
        """Refuse `node`, placed inside the collections being composed, if its aliases make
        the document too deep or too large."""
        values, height = self._expanded[id(node)]
        if self._depth + height > MAX_NESTING:
            raise ComposerError(None, None, too_deep(), mark)
        if values > max(MAX_ALIAS_EXPANSION, 10 * self._written):
            raise ComposerError(
                None,
                None,
                f"its aliases expand to {values:,} values, more than toolscout reads from "
                f"a file of this size (at most {MAX_ALIAS_EXPANSION:,}, or ten times the "
                "values the file writes out); write the values out instead of repeating "
                "aliases of aliases",
                mark,
            )
