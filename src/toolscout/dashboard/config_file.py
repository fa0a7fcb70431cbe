"""The config file the dashboard reads its settings from, and where saving writes them.

Saving writes only the `tool_search` keys the page edits; a key at its default that the file
did not have is not added. What else changes depends on whose file it is:

- toolscout's own YAML file keeps its comments and layout outside the `tool_search` block,
  which is written anew (the whole file only when its layout defeats a line-by-line patch,
  which the dialog then says);
- toolscout's own JSON file: only the value of its `tool_search` key changes, every other
  byte stays;
- a host application's file (Claude Desktop's, Cursor's: JSON with `mcpServers`) is left
  alone: the settings go to the toolscout file beside it (`settings_beside`,
  `claude_desktop_config.toolscout.yaml`), which the gateway and the CLI read with it. If
  the user asks (`in_place`), the host's file is changed instead, in its `tool_search` key
  alone, byte for byte the same elsewhere.

Every write replaces the file at once, follows a symbolic link to the file it names, and
keeps the file's permissions.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toolscout.config import ToolSearchSettings, is_host_file, settings_beside
from toolscout.errors import DashboardError
from toolscout.safe_loading import parse_json
from toolscout.safe_yaml import parse_yaml

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
_KEY = "tool_search"


@dataclass(frozen=True)
class SavePlan:
    """What saving would do: which file it writes, its text before and after, and a
    sentence that says what changes and what is left alone."""

    path: Path
    """The file written."""
    current: str
    """Its text now, "" when it does not exist yet."""
    proposed: str
    """Its text after saving."""
    note: str
    """What changes, in words, for the save dialog."""
    host_file: Path | None = None
    """A host application's file left alone, the settings going beside it."""

    @property
    def diff(self) -> str:
        """A unified diff from `current` to `proposed`; "" when they are the same."""
        lines = difflib.unified_diff(
            self.current.splitlines(keepends=True),
            self.proposed.splitlines(keepends=True),
            fromfile=f"{self.path} (now)",
            tofile=f"{self.path} (after saving)",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class ConfigFile:
    """A YAML or JSON config file (which need not exist yet), and its `tool_search` block.

    Args:
        path: The file; `.json` is read as JSON, anything else as YAML.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def text(self) -> str:
        """The file's text now, "" when it does not exist."""
        return _text(self.path)

    def host_file(self) -> bool:
        """Whether the file is a host application's (JSON with `mcpServers`)."""
        return self.path.suffix.lower() == ".json" and is_host_file(_data(self.path, self.text()))

    def plan(self, settings: ToolSearchSettings, *, in_place: bool = False) -> SavePlan:
        """What saving `settings` would write: beside a host's file unless `in_place`.

        Raises:
            DashboardError: a file that no longer reads, or a JSON file whose `tool_search`
                key cannot be found to change alone.
        """
        if self.host_file() and not in_place:
            return self._plan_beside(settings)
        current = self.text()
        data = _data(self.path, current)
        block = _merged_block(data.get(_KEY), settings, inherited={})
        name = self.path.name
        if self.path.suffix.lower() == ".json":
            proposed = _with_json_member(current, data, _KEY, block)
            note = f"Only the tool_search key of {name} changes; every other byte stays."
            if self.host_file():
                beside = settings_beside(self.path)
                if beside is not None and beside.exists():
                    note += (
                        f" {beside.name} beside it also sets tool_search keys, and those win "
                        "over this file's."
                    )
        else:
            proposed, whole = _with_yaml_block(current, data, block)
            note = (
                f"{name} is written anew: its layout cannot be kept line by line."
                if whole
                else f"Only the tool_search block of {name} changes; its other lines stay."
            )
        if not current:
            note = f"{name} does not exist yet; saving creates it."
        return SavePlan(self.path, current, proposed, note)

    def write(self, text: str, path: Path | None = None) -> None:
        """Replace the file (or `path`) with `text` at once: a reader sees the old file or
        the new one, never half of it.

        A symbolic link stays one: the file it points to is replaced. The file keeps its
        permissions; a new one gets those the umask gives.
        """
        _replace(path or self.path, text)

    def _plan_beside(self, settings: ToolSearchSettings) -> SavePlan:
        beside = settings_beside(self.path)
        assert beside is not None  # a host's file is JSON
        current = _text(beside)
        data = _data(beside, current)
        host = _data(self.path, self.text()).get(_KEY)
        inherited = host if isinstance(host, dict) else {}
        block = _merged_block(data.get(_KEY), settings, inherited=inherited)
        proposed, _ = _with_yaml_block(current, data, block)
        note = (
            f"{self.path.name} belongs to the application that reads it and is left as it is: "
            f"the settings go to {beside.name} beside it, "
            + ("a new file" if not current else "in its tool_search block")
            + ", which the gateway reads with it."
        )
        return SavePlan(beside, current, proposed, note, host_file=self.path)


def _text(path: Path) -> str:
    """The file's text as it is, line endings included (saving keeps them)."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise DashboardError(f"{path}: not UTF-8 text; cannot save into it") from None
    except FileNotFoundError:
        return ""
    except OSError as error:
        raise DashboardError(f"{path}: cannot read it ({error.strerror})") from None


def _data(path: Path, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = parse_json(text) if path.suffix.lower() == ".json" else parse_yaml(text)
    except (yaml.YAMLError, json.JSONDecodeError):
        raise DashboardError(
            f"{path}: no longer valid YAML or JSON; fix it or remove it before saving"
        ) from None
    if not isinstance(data, dict):
        raise DashboardError(f"{path}: not a mapping of sections; cannot save into it")
    return data


def _merged_block(
    block: Any, settings: ToolSearchSettings, *, inherited: dict[str, Any]
) -> dict[str, Any]:
    """The file's `tool_search` block with the edited keys written into it: a key is written
    when the block has it, when its value is not the default, or when `inherited` (the
    host's block, which this file's keys override) sets it."""
    merged = dict(block) if isinstance(block, dict) else {}
    edited = edited_settings(settings)
    defaults = edited_settings(type(settings)())
    for key, value in edited.items():
        if key in merged or key in inherited or value != defaults[key] or key == "enabled":
            merged[key] = value
    return {key: merged[key] for key in _ordered(merged)}


def _with_yaml_block(current: str, data: dict[str, Any], block: dict[str, Any]) -> tuple[str, bool]:
    """The YAML text with its `tool_search` block replaced, and whether the whole file had to
    be written anew."""
    wanted = {**data, _KEY: block}
    patched = _replace_block(current, _KEY, _yaml({_KEY: block}))
    if patched is not None and _parsed(patched) == wanted:
        return patched, False
    return _yaml(wanted), True


def _with_json_member(current: str, data: dict[str, Any], key: str, value: Any) -> str:
    """The JSON text with the value of its top-level `key` replaced (or the key added last),
    every other byte kept; written in the file's own style (indentation, line endings, a
    value on one line where the old one was)."""
    if not current.strip():
        return json.dumps({key: value}, indent=2, ensure_ascii=False) + "\n"
    members = _top_level_members(current)
    indent = _indentation(current, members)
    newline = "\r\n" if "\r\n" in current else "\n"
    existing = next((member for member in members if member[0] == key), None)
    if existing is not None:
        _, start, end = existing
        one_line = "\n" not in current[start:end]
        line_indent = _line_indent(current, start)
        written = _json_value(value, None if one_line else indent, line_indent, newline)
        text = current[:start] + written + current[end:]
    else:
        anchor = members[-1][2] if members else current.index("{") + 1
        line_indent = _line_indent(current, members[-1][1]) if members else " " * (indent or 0)
        gap = newline if indent is not None else " "
        separator = "," if members else ""
        written = _json_value(value, indent, line_indent, newline)
        member = f"{separator}{gap}{line_indent}{json.dumps(key)}: {written}"
        if not members and indent is not None:
            member += newline
        text = current[:anchor] + member + current[anchor:]
    if json.loads(text) != {**data, key: value}:  # pragma: no cover - a scanner mistake
        raise DashboardError(f"cannot change {key} alone in this JSON file; edit it by hand")
    return text


def _top_level_members(text: str) -> list[tuple[str, int, int]]:
    """Each top-level member of a JSON object text as (key, start, end) of its value."""
    decoder = json.JSONDecoder()
    position = _skip(text, 0)
    if text[position] != "{":
        raise DashboardError("the JSON file is not an object; cannot save into it")
    position = _skip(text, position + 1)
    members: list[tuple[str, int, int]] = []
    while text[position] != "}":
        key, position = decoder.raw_decode(text, position)
        position = _skip(text, position)
        position = _skip(text, position + 1)  # the colon
        start = position
        _, end = decoder.raw_decode(text, position)
        members.append((str(key), start, end))
        position = _skip(text, end)
        if text[position] == ",":
            position = _skip(text, position + 1)
    return members


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _indentation(text: str, members: list[tuple[str, int, int]]) -> int | None:
    """Spaces per level of the file's JSON; None when it is written on one line."""
    if "\n" not in text.strip():
        return None
    for _, start, _ in members:
        spaces = len(_line_indent(text, start))
        if spaces:
            return spaces
    return 2


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _json_value(value: Any, indent: int | None, line_indent: str, newline: str) -> str:
    if indent is None:
        return json.dumps(value, ensure_ascii=False)
    lines = json.dumps(value, indent=indent, ensure_ascii=False).split("\n")
    return newline.join([lines[0], *(line_indent + line for line in lines[1:])])


def _replace(path: Path, text: str) -> None:
    target = Path(os.path.realpath(path))
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode: int | None = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = None
        # A new file gets 0o666 less the umask, as any file the user creates.
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            if mode is not None:
                os.fchmod(file.fileno(), mode)
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise DashboardError(f"{path}: cannot write it ({error.strerror})") from None


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
