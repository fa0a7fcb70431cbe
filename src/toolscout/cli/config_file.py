"""The `--config FILE` option: defaults read from the `tool_search:` block of a config file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from toolscout.config import ToolSearchSettings

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="A toolscout config file (YAML or JSON, such as a gateway's); its tool_search "
        "block gives the defaults of the options not given here.",
        show_default=False,
        dir_okay=False,
    ),
]


def tool_search_settings(path: Path | None) -> ToolSearchSettings:
    """The `tool_search` block of the file (other sections are the gateway's and are not
    read), or the defaults when no file is given."""
    from toolscout.config import ToolSearchSettings  # not needed for `--help`

    if path is None:
        return ToolSearchSettings()
    from toolscout.config import load_config

    return load_config(path, ToolSearchSettings, section="tool_search")
