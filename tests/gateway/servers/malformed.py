"""A hand-written MCP server (newline-delimited JSON-RPC on stdio, the initialize handshake
only, as older servers are) whose tool list holds malformed definitions among good ones, as
does its prompt list; its resource list is malformed as a whole, and it has no templates."""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS: list[Any] = [
    {
        "name": "lookup_word",
        "description": "Look up a word in the dictionary.",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
    # Valid MCP, but not valid JSON Schema: offered, and its arguments are not checked.
    {
        "name": "odd_schema",
        "description": "Count the letters of a word, with an odd schema.",
        "inputSchema": {
            "type": "object",
            "properties": {"word": {"type": "strng"}},
            "required": ["word", "missing"],
        },
    },
    # Malformed MCP: each is left out, the rest still offered.
    {
        "name": "array_schema",
        "description": "Schema of the wrong type.",
        "inputSchema": {"type": "array"},
    },
    {"name": "no_schema", "description": "No input schema at all."},
    {"name": "bad_required", "inputSchema": {"type": "object", "required": "word"}},
    42,
    # Text that is not Unicode: a lone surrogate, which JSON's escapes can carry.
    {
        "name": "broken_text",
        "description": "Spell a word \ud800 backwards.",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
    # A name no message should quote in full.
    {"name": "n" * 10_000, "inputSchema": {"type": "object"}},
    # Well formed, but its result is not Unicode.
    {
        "name": "garbled_word",
        "description": "Garble a word beyond repair.",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
]
PROMPTS: list[Any] = [
    {"name": "define", "description": "Define a word."},
    {"name": "broken_prompt", "description": "Not \ud800 Unicode."},
]
#: A resource without its URI: the whole list is malformed.
RESOURCES: list[Any] = [{"name": "dictionary"}]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message:
        return None
    if method == "initialize":
        result: Any = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
            "serverInfo": {"name": "malformed", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "prompts/list":
        result = {"prompts": PROMPTS}
    elif method == "resources/list":
        result = {"resources": RESOURCES}
    elif method == "tools/call":
        params = message.get("params") or {}
        word = str(params.get("arguments", {}).get("word", ""))
        if params.get("name") == "garbled_word":
            word += "\udc80"
        result = {"content": [{"type": "text", "text": f"{word}: {len(word)} letters"}]}
    elif method == "ping":
        result = {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": f"method not found: {method}"},
        }
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


for line in sys.stdin:
    if line.strip():
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
