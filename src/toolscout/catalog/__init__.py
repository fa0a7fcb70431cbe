"""Tools and where they come from: the `Tool` model, the live `Catalog`, ingestion and export."""

from typing import TYPE_CHECKING

from toolscout._lazy_exports import lazy_exports

if TYPE_CHECKING:
    from toolscout.catalog.callables import tool_from_callable
    from toolscout.catalog.catalog import Catalog, SyncReport
    from toolscout.catalog.export import (
        ExportFormat,
        NameBy,
        export_tools,
        to_anthropic,
        to_mcp,
        to_openai_chat,
        to_openai_responses,
    )
    from toolscout.catalog.files import load_tools
    from toolscout.catalog.ingest import KNOWN_SHAPES, to_tools
    from toolscout.catalog.lint import LintIssue, lint_tools
    from toolscout.catalog.tokens import catalog_tokens, count_tokens, tool_tokens
    from toolscout.catalog.tool import NAMESPACE_SEPARATOR, Tool, make_tool_id

__all__ = [
    "KNOWN_SHAPES",
    "NAMESPACE_SEPARATOR",
    "Catalog",
    "ExportFormat",
    "LintIssue",
    "NameBy",
    "SyncReport",
    "Tool",
    "catalog_tokens",
    "count_tokens",
    "export_tools",
    "lint_tools",
    "load_tools",
    "make_tool_id",
    "to_anthropic",
    "to_mcp",
    "to_openai_chat",
    "to_openai_responses",
    "to_tools",
    "tool_from_callable",
    "tool_tokens",
]

# Imported on first use: a catalog read from a file needs neither the tokenizer nor the linter.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "toolscout.catalog.callables": ["tool_from_callable"],
            "toolscout.catalog.catalog": ["Catalog", "SyncReport"],
            "toolscout.catalog.export": [
                "ExportFormat",
                "NameBy",
                "export_tools",
                "to_anthropic",
                "to_mcp",
                "to_openai_chat",
                "to_openai_responses",
            ],
            "toolscout.catalog.files": ["load_tools"],
            "toolscout.catalog.ingest": ["KNOWN_SHAPES", "to_tools"],
            "toolscout.catalog.lint": ["LintIssue", "lint_tools"],
            "toolscout.catalog.tokens": ["catalog_tokens", "count_tokens", "tool_tokens"],
            "toolscout.catalog.tool": ["NAMESPACE_SEPARATOR", "Tool", "make_tool_id"],
        },
    )
