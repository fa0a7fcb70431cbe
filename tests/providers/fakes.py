"""Scripted fake models that follow each provider's real wire format.

A script is a list of intents: ("search", [queries]), ("load", [names]), ("lazy", [names]),
("call", name, arguments), ("blind_call", name, arguments), ("native_search", [queries]) or
("say", text). The fake checks what a real API would: a tool is called only if the request
declared it (or a native search result loaded it); "blind_call" skips that check, the way a
model sometimes calls a tool it does not have.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Intent = tuple[Any, ...]


class FakeModel:
    def __init__(self, provider: str, script: Sequence[Intent], *, mode: str = "load") -> None:
        self.provider = provider
        self.script = list(script)
        self.mode = mode
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(json.loads(json.dumps(request)))  # what would go on the wire
        kind, *rest = self.script.pop(0)
        if kind == "say":
            return self._text(rest[0])
        if kind == "native_search":
            return self._native_search(rest[0])
        name, arguments = {
            "search": lambda: ("search_tools", {"queries": rest[0]}),
            "load": lambda: ("load_tool", {"names": rest[0]}),
            "lazy": lambda: ("__lazy__tool__discovery__", {"tool_names": rest[0]}),
            "call": lambda: self._call(rest[0], rest[1]),
            "blind_call": lambda: (rest[0], rest[1]),
        }[kind]()
        if kind != "blind_call":
            assert name in self.available(request), f"{name} was not sent in the request"
        return self._tool_call(name, arguments, len(self.requests))

    def _call(self, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if self.mode == "proxy":
            return "call_tool", {"name": name, "arguments": arguments}
        return name, arguments

    def available(self, request: dict[str, Any]) -> set[str]:
        """Tool names the model may call: declared and not deferred, or loaded by a native
        search result earlier in the conversation."""
        tools = request.get("tools", [])
        if self.provider == "openai_chat":
            return {tool["function"]["name"] for tool in tools}
        declared = {
            tool["name"] for tool in tools if "name" in tool and not tool.get("defer_loading")
        }
        deferred = {tool["name"] for tool in tools if tool.get("defer_loading")}
        if self.provider == "anthropic":
            referenced = {
                part["tool_name"]
                for message in request["messages"]
                if message["role"] == "user" and isinstance(message["content"], list)
                for block in message["content"]
                if block.get("type") == "tool_result" and isinstance(block.get("content"), list)
                for part in block["content"]
                if part.get("type") == "tool_reference"
            }
            assert referenced <= deferred, "a tool_reference names a tool not declared deferred"
            return declared | referenced
        loaded = {
            tool["name"]
            for item in request["input"]
            if item.get("type") == "tool_search_output"
            for tool in item["tools"]
        }
        return declared | loaded

    def _text(self, text: str) -> dict[str, Any]:
        if self.provider == "openai_chat":
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "tool_calls": None},
                        "finish_reason": "stop",
                    }
                ],
            }
        if self.provider == "openai_responses":
            return {
                "id": "resp_1",
                "object": "response",
                "output": [
                    {
                        "type": "message",
                        "id": "msg_1",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    }
                ],
            }
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text, "citations": None}],
            "stop_reason": "end_turn",
        }

    def _tool_call(self, name: str, arguments: dict[str, Any], step: int) -> dict[str, Any]:
        call_id = f"call_{step}"
        if self.provider == "openai_chat":
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": call_id,
                                    "type": "function",
                                    "function": {"name": name, "arguments": json.dumps(arguments)},
                                }
                            ],
                        },
                        "finish_reason": "tool_calls",
                    }
                ],
            }
        if self.provider == "openai_responses":
            return {
                "id": "resp_1",
                "object": "response",
                "output": [
                    {
                        "type": "function_call",
                        "id": f"fc_{step}",
                        "call_id": call_id,
                        "name": name,
                        "arguments": json.dumps(arguments),
                        "status": "completed",
                    }
                ],
            }
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": f"toolu_{step}", "name": name, "input": arguments}
            ],
            "stop_reason": "tool_use",
        }

    def _native_search(self, queries: list[str]) -> dict[str, Any]:
        step = len(self.requests)
        if self.provider == "openai_responses":
            assert any(tool.get("type") == "tool_search" for tool in self.requests[-1]["tools"])
            return {
                "id": "resp_1",
                "object": "response",
                "output": [
                    {
                        "type": "tool_search_call",
                        "id": f"ts_{step}",
                        "call_id": f"call_{step}",
                        "execution": "client",
                        "status": "completed",
                        "arguments": {"queries": queries},
                    }
                ],
            }
        return self._tool_call("search_tools", {"queries": queries}, step)
