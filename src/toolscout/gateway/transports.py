"""How the gateway reaches an upstream over HTTP: streamable HTTP, or the deprecated HTTP+SSE
transport of the 2024-11-05 revision; each a pair of message streams for a session.

Both read what a server sends the way the gateway needs in front of someone else's servers:

- Text that is not Unicode (a lone surrogate escape such as `"\\ud800"`, which JSON's grammar
  allows and the SDK's parser refuses) is read with Python's parser, so that the one tool or
  result holding it is judged where it matters instead of the whole message being lost.
- Every message is held to `gateway.max_result_size`: the SDK bounds the events of an SSE
  stream (at 1 MiB unless told otherwise) but reads a plain JSON answer whole, however large.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from urllib.parse import urljoin, urlsplit

import anyio
import httpx2
import mcp_types as types
from anyio.abc import TaskStatus
from httpx2 import ServerSentEvent
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import StreamableHTTPTransport
from mcp.shared._context_streams import ContextSendStream, create_context_streams
from mcp.shared._httpx_utils import request_within_origin, sse_within_origin
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

logger = logging.getLogger("toolscout.gateway")

#: What the SDK says when it gives up on a message over its size limit; `Upstream.call`
#: answers a call whose result it reads with the size setting's name.
TOO_LARGE = "byte limit"
#: A JSON escape of a UTF-16 surrogate: where a message may hold text that is not Unicode.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")

StreamWriter = ContextSendStream[SessionMessage | Exception]


def lenient_message(raw: str | bytes) -> types.JSONRPCMessage | None:
    """A JSON-RPC message the SDK's parser refused, read with Python's, which accepts a lone
    surrogate escape in a string; None when it is not JSON or not a JSON-RPC message."""
    try:
        return types.jsonrpc_message_adapter.validate_python(json.loads(raw), by_name=False)
    except (ValueError, RecursionError):
        return None


def _may_hold_surrogates(data: str) -> bool:
    return _SURROGATE_ESCAPE.search(data) is not None


class _GatewayHTTPTransport(StreamableHTTPTransport):
    """The SDK's streamable HTTP transport, reading leniently and holding plain JSON answers
    to the size limit of SSE events."""

    async def _handle_sse_event(
        self,
        sse: ServerSentEvent,
        read_stream_writer: StreamWriter,
        original_request_id: types.RequestId | None = None,
        resumption_callback: Callable[[str], Awaitable[None]] | None = None,
    ) -> bool:
        if sse.event == "message" and sse.data and _may_hold_surrogates(sse.data):
            message = _strictly_unreadable(sse.data)
            if message is not None:
                if original_request_id is not None and isinstance(
                    message, types.JSONRPCResponse | types.JSONRPCError
                ):
                    message.id = original_request_id
                await read_stream_writer.send(SessionMessage(message))
                if sse.id and resumption_callback:
                    await resumption_callback(sse.id)
                return isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
        return await super()._handle_sse_event(
            sse, read_stream_writer, original_request_id, resumption_callback
        )

    async def _handle_json_response(
        self,
        response: httpx2.Response,
        read_stream_writer: StreamWriter,
        *,
        request_id: types.RequestId,
    ) -> None:
        limit = self.max_sse_event_size
        content = bytearray()
        try:
            async for chunk in response.aiter_bytes():
                content += chunk
                if limit is not None and len(content) > limit:
                    await response.aclose()
                    await _answer(
                        read_stream_writer,
                        request_id,
                        types.CONNECTION_CLOSED,
                        f"the JSON answer exceeds the {limit:,} {TOO_LARGE}",
                    )
                    return
        except httpx2.StreamError as error:
            await _answer(
                read_stream_writer,
                request_id,
                types.PARSE_ERROR,
                f"Failed to read the JSON answer: {error}",
            )
            return
        try:
            message = types.jsonrpc_message_adapter.validate_json(bytes(content), by_name=False)
        except ValidationError as error:
            salvaged = lenient_message(bytes(content))
            if salvaged is None:
                await _answer(
                    read_stream_writer,
                    request_id,
                    types.PARSE_ERROR,
                    f"Failed to parse JSON response: {error}",
                )
                return
            message = salvaged
        await read_stream_writer.send(SessionMessage(message))


def _strictly_unreadable(data: str) -> types.JSONRPCMessage | None:
    """The message in `data` when only Python's parser reads it; None when the SDK's does
    (it then reads it itself) or when neither does."""
    try:
        types.jsonrpc_message_adapter.validate_json(data, by_name=False)
    except ValidationError:
        return lenient_message(data)
    return None


async def _answer(writer: StreamWriter, request_id: types.RequestId, code: int, text: str) -> None:
    error = types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=text)
    )
    await writer.send(SessionMessage(error))


@asynccontextmanager
async def streamable_http(
    url: str, http: httpx2.AsyncClient, *, max_result_size: int
) -> AsyncIterator[TransportStreams]:
    """A streamable HTTP connection, as the SDK's `streamable_http_client` opens it with
    the gateway's transport (the SDK names its transport class inside that function)."""
    transport = _GatewayHTTPTransport(url, max_sse_event_size=max_result_size)
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    async with (
        read_writer,
        read_stream,
        write_stream,
        write_reader,
        anyio.create_task_group() as group,
    ):

        def start_get_stream() -> None:
            group.start_soon(transport.handle_get_stream, http, read_writer)

        group.start_soon(
            transport.post_writer,
            http,
            write_reader,
            read_writer,
            write_stream,
            start_get_stream,
            group,
        )
        try:
            yield read_stream, write_stream
        finally:
            if transport.session_id:
                await transport.terminate_session(http)
            group.cancel_scope.cancel()


@asynccontextmanager
async def legacy_sse(
    url: str, http: httpx2.AsyncClient, *, max_result_size: int
) -> AsyncIterator[TransportStreams]:
    """A connection over the HTTP+SSE transport of the 2024-11-05 revision: one event
    stream from the server (its first event names where to post), and a POST per message
    to the server.

    Its messages share the one stream, so a message over `max_result_size` cannot be
    skipped: the stream ends, with a warning, and the gateway reconnects.
    """
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    async with sse_within_origin(http, url, max_event_size=max_result_size) as events:
        events.response.raise_for_status()

        async def read_events(task_status: TaskStatus[str] = anyio.TASK_STATUS_IGNORED) -> None:
            try:
                async for event in events:
                    if event.event == "endpoint":
                        endpoint = urljoin(url, event.data)
                        if urlsplit(endpoint)[:2] != urlsplit(url)[:2]:
                            raise ValueError(
                                f"the server posts to {endpoint}, not to the origin of {url}"
                            )
                        task_status.started(endpoint)
                    elif event.event == "message" and event.data:
                        await read_writer.send(_read_event(event.data))
            except httpx2.SSEError as error:
                logger.warning("upstream SSE stream at %s ended: %s", url, error)
            finally:
                await read_writer.aclose()

        async def post_messages(endpoint: str) -> None:
            async with write_reader:
                async for session_message in write_reader:
                    body = session_message.message.model_dump(
                        by_alias=True, mode="json", exclude_unset=True
                    )
                    try:
                        response = await request_within_origin(http, "POST", endpoint, json=body)
                        response.raise_for_status()
                    except httpx2.HTTPError as error:
                        with contextlib.suppress(anyio.ClosedResourceError):
                            await read_writer.send(error)

        async with read_writer, read_stream, write_stream, anyio.create_task_group() as group:
            endpoint = await group.start(read_events)
            group.start_soon(post_messages, endpoint)
            try:
                yield read_stream, write_stream
            finally:
                group.cancel_scope.cancel()


def _read_event(data: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(data, by_name=False))
    except ValidationError as error:
        message = lenient_message(data)
        return SessionMessage(message) if message is not None else error
