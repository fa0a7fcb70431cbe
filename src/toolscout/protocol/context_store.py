"""`ContextStore`: the discovered tools, read from the conversation itself.

Nothing is kept between requests: each step reads which tools the conversation's own tool
results made available. So a restart loses nothing, two conversations never share anything,
and a discovery whose result was trimmed from the history (compaction, a sliding window) is
forgotten with it, and the tool can be found again.

It reads messages in the shapes of OpenAI Chat Completions (`{"role": "tool", ...}`), OpenAI
Responses (`function_call_output` and `tool_search_output` items) and the Anthropic Messages
API (`tool_result` blocks, with text or `tool_reference` blocks), as plain dicts or as SDK
objects with `model_dump()`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from toolscout.protocol.results import parse_available


class ContextStore:
    """A `StateStore` whose state is the messages: `save` keeps nothing, `load` reads the
    messages. Returns the tools' names as the model saw them (the tool id, unless the id had
    to be made a valid tool name); `ToolSearch` resolves either."""

    def load(self, thread_id: str | None, messages: Sequence[Any] = ()) -> list[str]:
        """The tools the conversation's tool results made available, in order of discovery."""
        names: dict[str, None] = {}
        for message in messages:
            for name in _available_in(as_dict(message)):
                names.setdefault(name, None)
        return list(names)

    def save(self, thread_id: str | None, tool_ids: Sequence[str]) -> None:
        """Nothing to do: the results that made the tools available are in the messages."""

    def __repr__(self) -> str:
        return "ContextStore()"


def _available_in(message: Mapping[str, Any]) -> Iterator[str]:
    kind = message.get("type")
    if message.get("role") == "tool":  # OpenAI Chat Completions
        yield from parse_available(_text(message.get("content")))
    elif kind == "function_call_output":  # OpenAI Responses
        yield from parse_available(_text(message.get("output")))
    elif kind == "tool_search_output":
        yield from _function_names(message.get("tools"))
    content = message.get("content")
    if message.get("role") == "user" and isinstance(content, list):  # Anthropic
        for block in map(as_dict, content):
            if block.get("type") != "tool_result":
                continue
            result = block.get("content")
            yield from parse_available(_text(result))
            if isinstance(result, list):
                for part in map(as_dict, result):
                    if part.get("type") == "tool_reference" and isinstance(
                        part.get("tool_name"), str
                    ):
                        yield part["tool_name"]


def _function_names(tools: object) -> Iterator[str]:
    if not isinstance(tools, list):
        return
    for tool in map(as_dict, tools):
        if tool.get("type") == "namespace":
            yield from _function_names(tool.get("tools"))
        elif isinstance(tool.get("name"), str):
            yield tool["name"]


def _text(content: object) -> str:
    """The text of a result: a string, or the `text` of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in map(as_dict, content)
            if isinstance(part.get("text"), str) and part.get("type") != "tool_reference"
        )
    return ""


def as_dict(item: object) -> Mapping[str, Any]:
    if isinstance(item, Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return dumped
    return {}
