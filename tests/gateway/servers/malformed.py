"""A hand-written MCP server (newline-delimited JSON-RPC on stdio, the initialize handshake
only, as older servers are) whose tool list holds malformed definitions among good ones."""

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
]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message:
        return None
    if method == "initialize":
        result: Any = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "malformed", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        word = str((message.get("params") or {}).get("arguments", {}).get("word", ""))
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
