"""`${VAR}` and `${VAR:-default}` in settings: checked when a file is read, and read from the
environment only when the setting is used, so that the settings, and any file written from
them, keep the reference and never the secret."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TypeVar

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_T = TypeVar("_T")


def check_variables(value: _T) -> _T:
    """`value` as it is, once every `${VAR}` in it (when it is text) is known to be set or
    to have a default: settings keep the references, and read them when they are used.

    Raises:
        ValueError: a variable without default is not set.
    """
    if isinstance(value, str):
        expand_variables(value)
    return value


def path_in_config(value: str, folder: str | Path | None) -> Path:
    """A path as a config file writes it: `~` expanded, and relative to the file's `folder`
    unless it is absolute or starts with a variable (`${HOME}/work`, read when used).

    Raises:
        ValueError: a variable without default is not set.
    """
    check_variables(value)
    path = Path(value).expanduser()
    if folder is None or path.is_absolute() or value.startswith("${"):
        return path
    return Path(folder) / path


def expand_path(path: Path) -> Path:
    """`path` with its `${VAR}` read from the environment."""
    return Path(expand_variables(str(path))).expanduser()


def expand_variables(text: str) -> str:
    """`text` with each `${VAR}` replaced by the environment variable's value, or by the
    default of `${VAR:-default}` when it is unset or empty.

    Raises:
        ValueError: a variable without default is not set.
    """

    def value(match: re.Match[str]) -> str:
        found = os.environ.get(match[1])
        if found:
            return found
        if match[2] is not None:
            return match[2]
        raise ValueError(
            f"uses ${{{match[1]}}}, which is not set in the environment; set it, or write "
            f"${{{match[1]}:-default}}"
        )

    return _VARIABLE.sub(value, text)
