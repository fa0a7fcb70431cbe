"""The config file followed while the gateway runs: when it changes on disk (or on `SIGHUP`),
it is read again and the gateway brought to it (`Gateway.reconfigure`) without dropping a
client session.

The folder of the file is watched rather than the file, since editors and the dashboard
replace a file by renaming a new one over it. A file that no longer reads is reported with
its mistakes, and the gateway goes on with the config it has.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
from watchfiles import awatch

from toolscout.errors import ToolScoutError
from toolscout.gateway.config import GatewayConfig
from toolscout.gateway.gateway import Gateway

logger = logging.getLogger("toolscout.gateway")

#: Milliseconds of quiet before a burst of changes is read: an editor writes in steps.
_DEBOUNCE_MS = 300


class ConfigReloader:
    """Reads the config again and applies it.

    Args:
        gateway: The running gateway.
        files: The files the config is read from (a host's file, and the toolscout file
            beside it).
        load: Reads them into a `GatewayConfig`.
    """

    def __init__(
        self, gateway: Gateway, files: Sequence[Path], load: Callable[[], GatewayConfig]
    ) -> None:
        self.gateway = gateway
        self.files = [Path(file).absolute() for file in files]
        self._load = load
        self._lock = anyio.Lock()

    async def reload(self) -> list[str]:
        """Read the config and apply what changed; one sentence per change (none when the
        file could not be read, which is logged)."""
        async with self._lock:
            try:
                config = self._load()
                changes = await self.gateway.reconfigure(config)
            except ToolScoutError as error:
                logger.warning("the config was not reloaded: %s", error)
                return []
            if changes:
                logger.warning("config reloaded: %s", "; ".join(changes))
            else:
                logger.info("config read again: nothing changed")
            return changes

    async def watch(self) -> None:
        """Reload each time one of the files is written, renamed or removed, until cancelled."""
        folders = sorted({str(file.parent) for file in self.files if file.parent.is_dir()})
        if not folders:
            return
        names = {str(file) for file in self.files}

        def ours(change: object, path: str) -> bool:
            return str(Path(path).absolute()) in names

        # awatch waits for changes in a thread that a cancellation cannot interrupt: only its
        # stop event ends the wait at once (else the gateway's exit waits up to five seconds).
        stopped = anyio.Event()

        async def follow() -> None:
            async for _ in awatch(
                *folders,
                watch_filter=ours,
                debounce=_DEBOUNCE_MS,
                recursive=False,
                stop_event=stopped,
            ):
                await self.reload()

        async with anyio.create_task_group() as group:
            group.start_soon(follow)
            try:
                await anyio.sleep_forever()
            finally:
                stopped.set()
