"""The lines a stdio client sends, read so that the gateway can stop while none is coming.

The SDK reads stdin in a worker thread that a cancellation waits for: in a terminal, Ctrl-C
then did nothing until a line or the end of input arrived. Here a daemon thread reads, and
the gateway stops without waiting for it: a thread blocked on a terminal's input ends with
the process.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
import threading
from types import TracebackType
from typing import Self

import anyio
import anyio.from_thread
import anyio.lowlevel

#: Bytes read from stdin at a time.
_CHUNK = 64 * 1024


class StdinLines:
    """`async for line in StdinLines():` the lines of stdin, as text (undecodable bytes
    replaced); a stand-in for the SDK's `anyio.AsyncFile` of stdin.

    The thread reads a duplicate of the descriptor with `os.read`, never through
    `sys.stdin`: a daemon thread blocked inside a buffered reader would hold its lock while
    the interpreter shuts down, and abort it.
    """

    def __init__(self, fd: int | None = None) -> None:
        self._fd = os.dup(sys.stdin.fileno() if fd is None else fd)
        self._send, self._receive = anyio.create_memory_object_stream[str](0)

    async def __aenter__(self) -> Self:
        token = anyio.lowlevel.current_token()
        threading.Thread(
            target=self._read, args=(token,), name="toolscout stdin", daemon=True
        ).start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._receive.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    def _read(self, token: anyio.lowlevel.EventLoopToken) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        try:
            while True:
                chunk = os.read(self._fd, _CHUNK)
                pending += decoder.decode(chunk, final=not chunk)
                *lines, pending = pending.split("\n")
                for line in lines:
                    anyio.from_thread.run(self._send.send, line + "\n", token=token)
                if not chunk:
                    break
            if pending:
                anyio.from_thread.run(self._send.send, pending, token=token)
        except (OSError, RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # stdin failed, or the gateway stopped reading: nothing is left to do
        finally:
            os.close(self._fd)
            with contextlib.suppress(RuntimeError):  # the event loop has ended
                anyio.from_thread.run_sync(self._send.close, token=token)
