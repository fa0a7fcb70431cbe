"""The agent protocol: meta-tools, the per-step `ToolSearch` processor, policy and state.

Each step, `ToolSearch.prepare()` gives the tools to send and `ToolSearch.execute()` answers
each call the model makes; `toolscout.providers` speaks OpenAI's and Anthropic's wire formats.
"""

from typing import TYPE_CHECKING

from toolscout._lazy_exports import lazy_exports

if TYPE_CHECKING:
    from toolscout.protocol.activation import (
        CONTEXT_WINDOWS,
        Activation,
        AutoActivation,
        Enabled,
        context_window_of,
    )
    from toolscout.protocol.choices import Mode, ResultFormat
    from toolscout.protocol.config import MetaToolNames, PreloadConfig, ToolSearchConfig
    from toolscout.protocol.context_store import ContextStore
    from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult
    from toolscout.protocol.estimates import TokenEstimate, estimate_tokens
    from toolscout.protocol.find import (
        FoundTool,
        LeftOutReason,
        LeftOutTool,
        QueryAnswer,
        SearchAnswer,
    )
    from toolscout.protocol.policy import PHASES, Phase, ToolPolicy
    from toolscout.protocol.processor import REQUEST_CONTEXT, ToolSearch
    from toolscout.protocol.stats import ToolSearchStats
    from toolscout.protocol.view import is_pinned

__all__ = [
    "CONTEXT_WINDOWS",
    "PHASES",
    "REQUEST_CONTEXT",
    "Activation",
    "AutoActivation",
    "ContextStore",
    "Enabled",
    "FoundTool",
    "LeftOutReason",
    "LeftOutTool",
    "MetaToolNames",
    "Mode",
    "Phase",
    "PreloadConfig",
    "QueryAnswer",
    "ResultFormat",
    "SearchAnswer",
    "TokenEstimate",
    "ToolCall",
    "ToolDefinition",
    "ToolPolicy",
    "ToolResult",
    "ToolSearch",
    "ToolSearchConfig",
    "ToolSearchStats",
    "context_window_of",
    "estimate_tokens",
    "is_pinned",
]

# Imported on first use: reading a config file's defaults needs no JSON Schema validator.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "toolscout.protocol.activation": [
                "CONTEXT_WINDOWS",
                "Activation",
                "AutoActivation",
                "Enabled",
                "context_window_of",
            ],
            "toolscout.protocol.choices": ["Mode", "ResultFormat"],
            "toolscout.protocol.config": ["MetaToolNames", "PreloadConfig", "ToolSearchConfig"],
            "toolscout.protocol.context_store": ["ContextStore"],
            "toolscout.protocol.definitions": ["ToolCall", "ToolDefinition", "ToolResult"],
            "toolscout.protocol.policy": ["PHASES", "Phase", "ToolPolicy"],
            "toolscout.protocol.processor": ["REQUEST_CONTEXT", "ToolSearch"],
            "toolscout.protocol.estimates": ["TokenEstimate", "estimate_tokens"],
            "toolscout.protocol.find": [
                "FoundTool",
                "LeftOutReason",
                "LeftOutTool",
                "QueryAnswer",
                "SearchAnswer",
            ],
            "toolscout.protocol.stats": ["ToolSearchStats"],
            "toolscout.protocol.view": ["is_pinned"],
        },
    )
