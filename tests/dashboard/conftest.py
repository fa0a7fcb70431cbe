"""Shared builders for the dashboard tests: a small catalog of real-shaped tools, a
`Dashboard` over it, and the dashboard served by the real `toolscout dashboard` command."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.gateway.conftest import LoggedProcess
from tests.limits import HANG
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


class DashboardProcess(LoggedProcess):
    """`toolscout dashboard ...` on a free port; `url` is the page's address once it serves."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
        super().__init__(["dashboard", "--port", "0", *args], env=env, cwd=cwd)
        self.url = self.wait_for(r"toolscout dashboard: (http://\S+)", limit=HANG)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DashboardProcess]:
    """The dashboard over the test catalog, saving to `tmp_path/toolscout.yaml`."""
    process = DashboardProcess(str(CATALOG_FILE), "--config", str(tmp_path / "toolscout.yaml"))
    try:
        yield process
    finally:
        process.stop()
