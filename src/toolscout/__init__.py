"""toolscout: tool search for LLM agents.

Put thousands of tools in a `Catalog`, search them with a `ToolIndex`, and send the model
only the tools it needs.
"""

from typing import TYPE_CHECKING

from toolscout._lazy_exports import lazy_exports
from toolscout.errors import (
    CatalogFormatError,
    DuplicateToolError,
    SearchConfigError,
    ToolDefinitionError,
    ToolScoutError,
    UnknownToolError,
)

if TYPE_CHECKING:
    from toolscout.catalog import Catalog, Tool, tool_from_callable
    from toolscout.search import MatchedTerm, SearchHit, SearchResults, ToolIndex

__version__ = "0.1.0"

__all__ = [
    "Catalog",
    "CatalogFormatError",
    "DuplicateToolError",
    "MatchedTerm",
    "SearchConfigError",
    "SearchHit",
    "SearchResults",
    "Tool",
    "ToolDefinitionError",
    "ToolIndex",
    "ToolScoutError",
    "UnknownToolError",
    "__version__",
    "tool_from_callable",
]

# Imported on first use, so that `import toolscout` and `toolscout --help` stay quick.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "toolscout.catalog": ["Catalog", "Tool", "tool_from_callable"],
            "toolscout.search": ["MatchedTerm", "SearchHit", "SearchResults", "ToolIndex"],
        },
    )
