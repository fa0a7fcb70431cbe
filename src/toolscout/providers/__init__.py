"""Provider wire formats: OpenAI Chat Completions, OpenAI Responses and Anthropic Messages.

Each module turns `ToolSearch` definitions into the provider's tools, reads tool calls from a
response dict, appends results in the provider's shape, and runs a small agent loop with any
callable that takes a request dict and returns a response. No SDK is imported: pass
`client.chat.completions.create(**request).model_dump()` or a scripted fake alike.
"""

from toolscout.providers import anthropic, openai_chat, openai_responses
from toolscout.providers.loop import LoopResult, ModelCall

__all__ = ["LoopResult", "ModelCall", "anthropic", "openai_chat", "openai_responses"]
