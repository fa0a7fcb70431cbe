"""A hand-written streamable HTTP server (answers as plain JSON, or as one SSE event each with
`--events`), for what the SDK's own servers never send: a tool list holding a lone surrogate
escape (`"\\ud800"`) in one tool among good ones, and results of any size.

    python raw_http.py PORT [--events]
"""

from __future__ import annotations

import json
import sys
from typing import Any

import uvicorn

TOOLS: list[dict[str, Any]] = [
    {
        "name": "lookup_word",
        "description": "Look up a word in the dictionary.",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
    {
        "name": "broken_text",
        "description": "Spell a word \ud800 backwards.",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
    {
        "name": "text_of_size",
        "description": "Answer with a text of the given number of bytes.",
        "inputSchema": {
            "type": "object",
            "properties": {"size": {"type": "integer"}},
            "required": ["size"],
        },
    },
]
EVENTS = "--events" in sys.argv


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method = message.get("method")
    if method == "initialize":
        result: Any = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw-http", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        params = message.get("params") or {}
        arguments = params.get("arguments") or {}
        if params.get("name") == "text_of_size":
            body = "x" * int(arguments["size"])
        else:
            body = f"{arguments.get('word', '')}: found"
        result = {"content": [{"type": "text", "text": body}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    if scope["method"] != "POST":
        await respond(send, 405 if scope["method"] == "GET" else 200, b"", "text/plain")
        return
    body = b""
    while True:
        chunk = await receive()
        body += chunk.get("body", b"")
        if not chunk.get("more_body"):
            break
    message = json.loads(body)
    if "id" not in message:
        await respond(send, 202, b"", "text/plain")
        return
    reply = json.dumps(answer(message))  # ensure_ascii: a lone surrogate becomes "\ud800"
    if EVENTS:
        await respond(send, 200, f"event: message\ndata: {reply}\n\n".encode(), "text/event-stream")
    else:
        await respond(send, 200, reply.encode(), "application/json")


async def respond(send: Any, status: int, body: bytes, content_type: str) -> None:
    headers = [(b"content-type", content_type.encode()), (b"mcp-session-id", b"raw-session")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
