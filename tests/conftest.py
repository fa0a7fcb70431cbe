"""What the whole suite shares: how many pytest-xdist workers `pytest -n auto` starts."""

from __future__ import annotations

import os

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Two workers per core: most tests wait for the processes they start (gateways, MCP
    servers, redis-server, Chromium) more than they compute, so one worker per core leaves
    the cores idle half the time. `PYTEST_XDIST_AUTO_NUM_WORKERS` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return 2 * (os.cpu_count() or 1)
