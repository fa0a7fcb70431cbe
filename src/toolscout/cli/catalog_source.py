"""The CATALOG argument every command takes: a tool-definition file, or the demo catalog."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from toolscout.data import demo_catalog_path
from toolscout.errors import ToolScoutError

if TYPE_CHECKING:
    from toolscout.catalog import Catalog

CATALOG_HELP = (
    "A JSON, JSON Lines or YAML file of tool definitions (OpenAI, Anthropic or MCP shape), "
    "or `demo` for the bundled demo catalog."
)


def load_catalog(source: str) -> Catalog:
    """The catalog named on the command line. The word `demo` always means the bundled
    demo catalog; a file called `demo` can be given as `./demo`."""
    from toolscout.catalog import Catalog  # not needed for `--help`

    if source == "demo":
        return Catalog.from_file(demo_catalog_path())
    path = Path(source)
    if not path.exists():
        # Checked here, not left to the loader, to point at `demo`, which only the CLI knows.
        raise ToolScoutError(
            f"{source}: no such file; give the path of a tool catalog (.json, .jsonl, .yaml), "
            "or `demo` to try the bundled one"
        )
    return Catalog.from_file(path)
