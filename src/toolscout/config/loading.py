"""`load_config`: a YAML or JSON file, validated into a config model, every mistake reported
on one line with the file, line and column of the key.

A host application's file (Claude Desktop's `claude_desktop_config.json`, Cursor's
`mcp.json`: JSON with `mcpServers`) is that application's: toolscout's own sections can live
in a file beside it, `<name>.toolscout.yaml` (`settings_beside`), which the dashboard writes
and every reader of the host file reads too. Its keys win over the same keys of the host
file's sections.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel, ValidationError

from toolscout.config.messages import error_loc, file_path, problem
from toolscout.config.models import CONFIG_DIR, ToolScoutConfig
from toolscout.config.source import ConfigSource, SourceFormat, dotted, read_source
from toolscout.errors import ConfigError

ModelT = TypeVar("ModelT", bound=BaseModel)

SETTINGS_BESIDE_SUFFIX = ".toolscout.yaml"
"""What names the file of toolscout's sections beside a host application's file."""
#: A host's file keeps its servers: the file beside it holds only toolscout's sections.
_HOST_ONLY_SECTIONS = ("servers", "mcpServers")


def settings_beside(path: str | os.PathLike[str]) -> Path | None:
    """Where toolscout keeps its sections for a host application's JSON file, which it
    leaves alone: `claude_desktop_config.json` → `claude_desktop_config.toolscout.yaml`
    beside it. None for a YAML file, which is toolscout's own."""
    file = Path(path)
    if file.suffix.lower() != ".json":
        return None
    return file.with_name(file.stem + SETTINGS_BESIDE_SUFFIX)


def is_host_file(data: Any) -> bool:
    """Whether a config file's data is a host application's (it holds `mcpServers`)."""
    return isinstance(data, dict) and "mcpServers" in data


@overload
def load_config(path: str | os.PathLike[str]) -> ToolScoutConfig: ...


@overload
def load_config(
    path: str | os.PathLike[str], model: type[ModelT], *, section: str | None = None
) -> ModelT: ...


def load_config(
    path: str | os.PathLike[str],
    model: type[BaseModel] = ToolScoutConfig,
    *,
    section: str | None = None,
) -> BaseModel:
    """Read a config file into `model` (a `ToolScoutConfig` or a subclass of it).

    `.json` files are read as JSON, anything else as YAML. Relative paths in the file (a
    SQLite store's `path`) are relative to the file's folder.

    Args:
        path: The file.
        model: The model to validate into; a host with more sections subclasses
            `ToolScoutConfig` and passes its class.
        section: Read only this top-level key into `model` and ignore the others, as the
            CLI reads `tool_search` from a gateway's file:
            `load_config("gateway.yaml", ToolSearchSettings, section="tool_search")`.

    Raises:
        ConfigError: the file is missing, unreadable, not YAML or JSON, or invalid; the
            message names the file, the line and column of the key, the field and the fix.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (expected UTF-8 YAML or JSON)") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read it ({error.strerror or error})") from None
    format: SourceFormat = "json" if file.suffix.lower() == ".json" else "yaml"
    beside = settings_beside(file)
    if beside is not None and beside.is_file():
        source = read_source(text, str(path), format)
        if is_host_file(source.data):
            return _with_settings_beside(source, beside, model, section, file.parent)
    return parse_config(
        text, model, name=str(path), format=format, section=section, folder=file.parent
    )


def _with_settings_beside(
    host: ConfigSource,
    beside: Path,
    model: type[ModelT],
    section: str | None,
    folder: Path,
) -> ModelT:
    """A host's file read with toolscout's file beside it: each section of the file beside
    updates the host file's section of the same name, key by key. The file beside is
    checked alone first, so that its mistakes are reported with its own lines."""
    try:
        text = beside.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{beside}: cannot read it ({error})") from None
    extra = read_source(text, str(beside), "yaml")
    data: Any = {} if extra.data is None else extra.data
    if not isinstance(data, dict):
        raise ConfigError(f"{beside}: the file must be a mapping of sections such as tool_search")
    for key in _HOST_ONLY_SECTIONS:
        if key in data:
            raise ConfigError(
                f"{extra.location((key,))}: {key}: the servers stay in {host.name}; this file "
                "holds toolscout's own sections (tool_search, gateway)"
            )
    parse_config(text, model, name=str(beside), section=section, folder=folder)
    merged = dict(host.data)
    for key, value in data.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = {**current, **value}
        else:
            merged[key] = value
    return _validated(ConfigSource(host.name, merged, host.positions), model, section, folder)


def parse_config(
    text: str,
    model: type[ModelT],
    *,
    name: str = "<config>",
    format: SourceFormat = "yaml",
    section: str | None = None,
    folder: str | os.PathLike[str] | None = None,
) -> ModelT:
    """`load_config` for text already read: `name` is what messages call it, `folder` where
    relative paths start (the working directory if None).

    Raises:
        ConfigError: as `load_config`.
    """
    source = read_source(text, name, format)
    return _validated(source, model, section, folder)


def _validated(
    source: ConfigSource,
    model: type[ModelT],
    section: str | None,
    folder: str | os.PathLike[str] | None,
) -> ModelT:
    data: Any = {} if source.data is None else source.data
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source.location(())}: the file must be a mapping of keys such as `tool_search:`"
            f", not {type(data).__name__}"
        )
    prefix: tuple[str, ...] = ()
    if section is not None:
        prefix = (section,)
        data = data.get(section, {})
    context = {CONFIG_DIR: Path(folder)} if folder is not None else {}
    try:
        return model.model_validate(data, context=context)
    except ValidationError as error:
        problems = _describe(error, source, model, prefix)
        raise ConfigError("; ".join(problems), problems) from None


def _describe(
    error: ValidationError, source: ConfigSource, model: type[BaseModel], prefix: tuple[str, ...]
) -> tuple[str, ...]:
    """Each problem as `file:line:column: key.path: what is wrong`, in line order."""
    problems = []
    for detail in error.errors(include_url=False):
        path = file_path((*prefix, *error_loc(detail)), source.data)
        where = source.position(path)
        order = (where.line, where.column) if where else (0, 0)
        message = f"{source.location(path)}: {dotted(path)}: {problem(detail, model)}"
        problems.append((order, message))
    return tuple(message for _, message in sorted(problems))
