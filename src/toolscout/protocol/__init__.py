"""The agent protocol: meta-tools, the per-step `ToolSearch` processor, policy and state.

Each step, `ToolSearch.prepare()` gives the tools to send and `ToolSearch.execute()` answers
each call the model makes; `toolscout.providers` speaks OpenAI's and Anthropic's wire formats.
"""

from toolscout.protocol.config import MetaToolNames, Mode, ResultFormat, ToolSearchConfig
from toolscout.protocol.context_store import ContextStore
from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult
from toolscout.protocol.policy import PHASES, Phase, ToolPolicy
from toolscout.protocol.processor import REQUEST_CONTEXT, ToolSearch
from toolscout.protocol.stats import TokenEstimate, ToolSearchStats, estimate_tokens

__all__ = [
    "PHASES",
    "REQUEST_CONTEXT",
    "ContextStore",
    "MetaToolNames",
    "Mode",
    "Phase",
    "ResultFormat",
    "TokenEstimate",
    "ToolCall",
    "ToolDefinition",
    "ToolPolicy",
    "ToolResult",
    "ToolSearch",
    "ToolSearchConfig",
    "ToolSearchStats",
    "estimate_tokens",
]
