"""toolscout: tool search for LLM agents.

Put thousands of tools in a `Catalog`, search them with a `ToolIndex`, and send the model
only the tools it needs.
"""

from toolscout.catalog import Catalog, Tool, tool_from_callable
from toolscout.errors import (
    CatalogFormatError,
    DuplicateToolError,
    SearchConfigError,
    ToolDefinitionError,
    ToolScoutError,
    UnknownToolError,
)
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
