"""What the gateway prints while its upstreams start, when stderr is not a terminal."""

from __future__ import annotations

import io
import time

from rich.console import Console

from toolscout.gateway.progress import StartupProgress
from toolscout.gateway.upstream import UpstreamStatus


def printed(steps: list[UpstreamStatus]) -> tuple[str, str]:
    output = io.StringIO()
    progress = StartupProgress(["github", "docs"], Console(file=output, width=120))
    with progress:
        for status in steps:
            progress.on_status(status)
    return output.getvalue(), progress.summary()


class TestStartupProgress:
    def test_a_line_per_server_as_it_settles_then_a_summary(self) -> None:
        output, summary = printed(
            [
                UpstreamStatus("github", "github", "starting"),
                UpstreamStatus("github", "github", "connected", tools=26, connected_in=0.82),
                UpstreamStatus(
                    "docs",
                    "docs",
                    "restarting",
                    error="cannot reach https://docs.example/mcp (ConnectError)",
                    failures=1,
                    retry_at=time.monotonic() + 0.5,
                ),
            ]
        )
        lines = output.splitlines()
        assert lines[0] == "✓ github 26 tools in 0.8 s"
        assert lines[1].startswith(
            "✗ docs cannot reach https://docs.example/mcp (ConnectError); retrying in 0."
        )
        assert summary == "1 of 2 servers connected, 26 tools"

    def test_retries_of_a_server_that_stays_down_print_nothing_more(self) -> None:
        down = UpstreamStatus("docs", "docs", "restarting", error="down", failures=1)
        output, _ = printed([down, down, down])
        assert len(output.splitlines()) == 1

    def test_after_the_start_changes_are_left_to_the_log(self) -> None:
        output = io.StringIO()
        progress = StartupProgress(["docs"], Console(file=output, width=120))
        with progress:
            progress.on_status(UpstreamStatus("docs", "docs", "connected", tools=3))
        progress.on_status(UpstreamStatus("docs", "docs", "restarting", error="down"))
        assert output.getvalue() == "✓ docs 3 tools\n"
