"""Shared builders for the CLI tests: the sample catalog and a runner of `toolscout`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from toolscout.cli import app

RunToolscout = Callable[..., Result]
WriteCatalog = Callable[[list[dict[str, Any]]], Path]


@pytest.fixture
def sample_catalog() -> Path:
    """Twelve tools in five namespaces (weather, email, calendar, files, slack), with one
    name used twice, one short description and two undocumented parameters."""
    return Path(__file__).parent / "tools.json"


@pytest.fixture
def run() -> RunToolscout:
    """Run `toolscout` with these arguments, as a user would, on a wide plain terminal."""

    def run_toolscout(*args: str | Path, env: dict[str, str | None] | None = None) -> Result:
        return CliRunner().invoke(
            app, [str(arg) for arg in args], env={"COLUMNS": "160", **(env or {})}
        )

    return run_toolscout


@pytest.fixture
def write_catalog(tmp_path: Path) -> WriteCatalog:
    """Write these tool definitions to a catalog file and return its path."""

    def write(tools: list[dict[str, Any]]) -> Path:
        path = tmp_path / "catalog.json"
        path.write_text(json.dumps({"tools": tools}), encoding="utf-8")
        return path

    return write
