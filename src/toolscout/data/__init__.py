"""Data files shipped with toolscout: the demo catalog (see `NOTICE` for its origin)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["demo_catalog_path"]


def demo_catalog_path() -> Path:
    """The bundled demo catalog: 1,600-odd tools from the Berkeley Function Calling
    Leaderboard, one MCP tool definition (`name`, `description`, `inputSchema`) per line.

    Load it with `Catalog.from_file(demo_catalog_path())`.
    """
    # The package is installed as plain files (wheel or editable), never zipped, so the
    # traversable is a real path.
    return Path(str(resources.files(__package__) / "demo_catalog.json"))
