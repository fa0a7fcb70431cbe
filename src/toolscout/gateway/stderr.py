"""What a stdio upstream writes on stderr, passed on to the gateway's stderr: as it comes while
the server works, but once per failure while it fails to start.

A server that cannot start (a missing database, a bad argument) usually prints a traceback
and exits, and the gateway tries again and again with backoff: printed at every attempt, the
same traceback would bury everything else. While a server keeps failing, each attempt's
output is held until the attempt ends, and printed only when it differs from the last
failure's; the first attempt, and every attempt once the server has connected, pass their
output on at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, TextIO

import anyio

logger = logging.getLogger("toolscout.gateway")

#: Lines of one failed attempt kept to compare with the next.
_MAX_HELD_LINES = 2_000


class StderrRelay:
    """One upstream's stderr across its attempts.

    Args:
        name: The upstream's name, for the line that says output was held back.
        errlog: Where the output goes.
    """

    def __init__(self, name: str, errlog: TextIO) -> None:
        self.name = name
        self._errlog = errlog
        self._lock = threading.Lock()
        self._holding = False
        self._lines: list[str] = []
        """What the attempt under way wrote (its first lines)."""
        self._last_failure: list[str] | None = None

    @asynccontextmanager
    async def attempt(self, *, retrying: bool) -> AsyncIterator[IO[str]]:
        """A file to give one attempt's process as its stderr; `retrying` when the attempts
        before it failed, so that its output is held until `failed()` or `connected()`."""
        read_fd, write_fd = os.pipe()
        with self._lock:
            self._holding = retrying
            self._lines = []
        reader = threading.Thread(
            target=self._read, args=(read_fd,), name=f"stderr of {self.name}", daemon=True
        )
        reader.start()
        writer = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        try:
            yield writer
        finally:
            writer.close()
            # The process has been stopped by now: the rest of its output follows at once
            # (unless a child of its own still holds the pipe, which is then left to it).
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(reader.join, 2.0)

    def connected(self) -> None:
        """The attempt connected: what it held is printed, and the rest passes at once."""
        with self._lock:
            held = self._lines if self._holding else []
            self._holding = False
            self._last_failure = None
        self._emit(held)

    def failed(self) -> None:
        """The attempt failed: what it held is printed unless the last failure said the
        same (what it printed as it came is remembered to compare with the next)."""
        with self._lock:
            lines, holding = self._lines, self._holding
            repeated = lines == self._last_failure
            self._last_failure = lines
            self._holding = False
        if not holding:
            return
        if repeated:
            logger.debug(
                "upstream %r: same stderr output as its last failure, not repeated", self.name
            )
        else:
            self._emit(lines)

    def _read(self, fd: int) -> None:
        with open(fd, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                with self._lock:
                    if len(self._lines) < _MAX_HELD_LINES:
                        self._lines.append(line)
                    if self._holding:
                        continue
                self._emit([line])

    def _emit(self, lines: list[str]) -> None:
        if not lines:
            return
        with contextlib.suppress(OSError, ValueError):  # a closed stderr must not stop anything
            self._errlog.write("".join(lines))
            self._errlog.flush()
