"""What the gateway says on the terminal while its upstreams start: a live line per server on
an interactive terminal, one line per server as it settles otherwise. Everything goes to
stderr: over stdio, stdout is the MCP connection."""

from __future__ import annotations

import time
from collections.abc import Iterable
from types import TracebackType
from typing import Self

from rich.console import Console, Group
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from toolscout.gateway.upstream import UpstreamStatus


class StartupProgress:
    """Shows the upstreams starting; `on_status` is the gateway's status callback.

    Used as a context manager around the start: on exit, the live display is replaced by
    its final state.
    """

    def __init__(self, names: Iterable[str], console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._statuses: dict[str, UpstreamStatus | None] = dict.fromkeys(names)
        self._started = time.monotonic()
        self._live: Live | None = None
        self._starting = True

    def __enter__(self) -> Self:
        if self.console.is_terminal and self._statuses:
            self._live = Live(
                self._render(), console=self.console, refresh_per_second=12, transient=True
            )
            self._live.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.__exit__(exc_type, exc, traceback)
            self._live = None
            for name, status in self._statuses.items():
                self.console.print(_line(name, status), soft_wrap=True)
        self._starting = False

    def on_status(self, status: UpstreamStatus) -> None:
        previous = self._statuses.get(status.name)
        self._statuses[status.name] = status
        if self._live is not None:
            self._live.update(self._render())
        elif _worth_a_line(previous, status, starting=self._starting):
            self.console.print(_line(status.name, status), soft_wrap=True)

    def summary(self) -> str:
        """`3 of 4 servers connected, 212 tools`."""
        statuses = [status for status in self._statuses.values() if status is not None]
        connected = sum(status.state == "connected" for status in statuses)
        tools = sum(status.tools for status in statuses)
        return (
            f"{connected} of {len(self._statuses)} server{'' if len(self._statuses) == 1 else 's'}"
            f" connected, {tools:,} tool{'' if tools == 1 else 's'}"
        )

    def _render(self) -> Group:
        table = Table.grid(padding=(0, 1))
        for name, status in self._statuses.items():
            if status is None or status.state == "starting":
                table.add_row(Spinner("dots", style="cyan"), Text(name, style="bold"), "starting")
            else:
                table.add_row(_line(name, status))
        elapsed = Text(f"starting MCP servers… {time.monotonic() - self._started:.1f} s", "dim")
        return Group(elapsed, table)


def _worth_a_line(
    previous: UpstreamStatus | None, status: UpstreamStatus, *, starting: bool
) -> bool:
    """Without a live display: a line when a server settles at start. Later changes are the
    log's to tell."""
    if not starting or status.state == "starting":
        return False
    return previous is None or previous.state == "starting"


def _line(name: str, status: UpstreamStatus | None) -> Text:
    if status is None or status.state == "starting":
        return Text.assemble(("… ", "cyan"), (name, "bold"), " still starting")
    if status.state == "connected":
        took = f" in {status.connected_in:.1f} s" if status.connected_in is not None else ""
        return Text.assemble(("✓ ", "green"), (name, "bold"), f" {status.tools} tools{took}")
    if status.state == "skipped":
        return Text.assemble(("– ", "yellow"), (name, "bold"), f" skipped: {status.error}")
    wait = max(0.0, (status.retry_at or time.monotonic()) - time.monotonic())
    return Text.assemble(
        ("✗ ", "red"), (name, "bold"), f" {status.error}; retrying in {wait:.1f} s"
    )
