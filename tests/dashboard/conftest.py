"""Shared builders for the dashboard tests: a small catalog of real-shaped tools, a
`Dashboard` over it, and the dashboard served by the real `toolscout dashboard` command."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolscout.catalog import Catalog
from toolscout.config import ToolSearchSettings
from toolscout.dashboard import ConfigFile, Dashboard

TOOLSCOUT = Path(sys.executable).with_name("toolscout")
CATALOG_FILE = Path(__file__).parents[1] / "cli" / "tools.json"


def make_catalog(*extra: dict[str, Any]) -> Catalog:
    """The CLI tests' catalog (weather, mail, calendar, files...), plus `extra` tools."""
    catalog = Catalog.from_file(CATALOG_FILE)
    if extra:
        catalog.add(list(extra))
    return catalog


def make_dashboard(
    folder: Path,
    *,
    catalog: Catalog | None = None,
    config: dict[str, Any] | None = None,
    **settings: Any,
) -> Dashboard:
    """A dashboard saving to `folder/toolscout.yaml` (written first from `config` if given)."""
    path = folder / "toolscout.yaml"
    if config is not None:
        path.write_text(yaml.safe_dump(config, sort_keys=False))
    return Dashboard(
        catalog or make_catalog(),
        ToolSearchSettings(**settings),
        ConfigFile(path),
        source="tools.json",
    )


class DashboardProcess:
    """`toolscout dashboard ...` as a subprocess; `url` is the page's address once it serves."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
        self.process = subprocess.Popen(
            [str(TOOLSCOUT), "dashboard", "--port", "0", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self._wait_for(r"toolscout dashboard: (http://\S+)")

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            self._queue.put(line)

    def _wait_for(self, pattern: str, limit: float = 30.0) -> str:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.1)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            found = re.search(pattern, line)
            if found:
                return found[1]
        raise RuntimeError(f"`toolscout dashboard` did not start:\n{''.join(self.lines)}")

    def wait_for(self, pattern: str, limit: float = 30.0) -> str:
        """The first group of the first stderr line from now on matching `pattern`."""
        return self._wait_for(pattern, limit)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DashboardProcess]:
    """The dashboard over the test catalog, saving to `tmp_path/toolscout.yaml`."""
    process = DashboardProcess(str(CATALOG_FILE), "--config", str(tmp_path / "toolscout.yaml"))
    try:
        yield process
    finally:
        process.stop()
