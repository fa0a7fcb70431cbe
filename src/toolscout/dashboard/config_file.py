"""The config file the dashboard reads its settings from and saves them to.

Saving rewrites only the `tool_search` keys the page edits: the file's other sections (a
gateway's servers, `${VAR}` references and all) and its other `tool_search` keys are written
back as they were read. A key at its default that the file did not have is not added. The
YAML file keeps its comments and layout outside the `tool_search` block, which is written
anew; a JSON file is rewritten whole.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any

import yaml

from toolscout.config import ToolSearchSettings
from toolscout.errors import DashboardError
from toolscout.safe_loading import parse_json, parse_yaml

EDITED_KEYS = (
    "enabled",
    "engine",
    "mode",
    "max_results",
    "threshold",
    "result_format",
    "always_available",
)
"""The `tool_search` keys the page edits, in the order a new file lists them."""


class ConfigFile:
    """A YAML or JSON config file (which need not exist yet), and its `tool_search` block.

    Args:
        path: The file; `.json` is written as JSON, anything else as YAML.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def text(self) -> str:
        """The file's text now, "" when it does not exist."""
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except OSError as error:
            raise DashboardError(f"{self.path}: cannot read it ({error.strerror})") from None

    def proposed(self, settings: ToolSearchSettings) -> str:
        """The file's text with `settings` written into its `tool_search` block.

        In a YAML file only the block's lines change, so the rest of the file keeps its
        comments and layout; the block itself is written anew.
        """
        current = self.text()
        data = self._data(current)
        block = data.get("tool_search")
        block = dict(block) if isinstance(block, dict) else {}
        edited = edited_settings(settings)
        defaults = edited_settings(type(settings)())
        for key, value in edited.items():
            if key in block or value != defaults[key] or key == "enabled":
                block[key] = value
        data["tool_search"] = {key: block[key] for key in _ordered(block)}
        if self.path.suffix.lower() == ".json":
            return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        patched = _replace_block(
            current, "tool_search", _yaml({"tool_search": data["tool_search"]})
        )
        if patched is not None and _parsed(patched) == data:
            return patched
        return _yaml(data)  # a layout the line patch cannot follow: the whole file anew

    def diff(self, proposed: str) -> str:
        """A unified diff from the file's text to `proposed`; "" when they are the same."""
        current = self.text()
        lines = difflib.unified_diff(
            current.splitlines(keepends=True),
            proposed.splitlines(keepends=True),
            fromfile=f"{self.path} (now)",
            tofile=f"{self.path} (after saving)",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def write(self, text: str) -> None:
        """Replace the file with `text` at once: a reader sees the old file or the new one,
        never half of it.

        A symbolic link stays one: the file it points to is replaced. The file keeps its
        permissions; a new one gets those the umask gives.
        """
        target = Path(os.path.realpath(self.path))
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                mode: int | None = stat.S_IMODE(target.stat().st_mode)
            except FileNotFoundError:
                mode = None
            # A new file gets 0o666 less the umask, as any file the user creates.
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
                if mode is not None:
                    os.fchmod(file.fileno(), mode)
            os.replace(temporary, target)
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise DashboardError(f"{self.path}: cannot write it ({error.strerror})") from None

    def _data(self, text: str) -> dict[str, Any]:
        if not text.strip():
            return {}
        try:
            data = parse_json(text) if self.path.suffix.lower() == ".json" else parse_yaml(text)
        except (yaml.YAMLError, json.JSONDecodeError):
            raise DashboardError(
                f"{self.path}: no longer valid YAML or JSON; fix it or remove it before saving"
            ) from None
        if not isinstance(data, dict):
            raise DashboardError(f"{self.path}: not a mapping of sections; cannot save into it")
        return data


def _yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _parsed(text: str) -> Any:
    try:
        return parse_yaml(text)
    except yaml.YAMLError:
        return None


def _replace_block(text: str, key: str, replacement: str) -> str | None:
    """`text` with the top-level `key:` block replaced by `replacement` (or it appended when
    there is none); None when the key appears in a form a line scan cannot delimit."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if re.match(rf"{re.escape(key)}\s*:", line)]
    if not starts:
        separator = "" if not text or text.endswith("\n") else "\n"
        return text + separator + replacement
    if len(starts) > 1:
        return None
    start = end = starts[0]
    end += 1
    # The block runs on while lines are indented, blank or comments.
    while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t#"):
        end += 1
    # Blank lines and comments at its end belong to what follows.
    while end > start + 1 and (
        not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
    ):
        end -= 1
    return "".join(lines[:start]) + replacement + "".join(lines[end:])


def edited_settings(settings: ToolSearchSettings) -> dict[str, Any]:
    """The values of the keys the page edits, as the file writes them."""
    data = settings.model_dump(mode="json", by_alias=True)
    return {key: data[key] for key in EDITED_KEYS}


def _ordered(block: dict[str, Any]) -> list[str]:
    """`enabled` first, as `ToolScoutConfig.to_yaml` writes it; the rest as they were."""
    return sorted(block, key=lambda key: key != "enabled")
