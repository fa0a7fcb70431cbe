"""Errors toolscout raises on purpose; each message says what was wrong and how to fix it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError
    from pydantic_core import ErrorDetails


class ToolScoutError(Exception):
    """Base class of every error toolscout raises on purpose."""


class ToolDefinitionError(ToolScoutError, ValueError):
    """A tool definition is malformed (wrong types, a schema that is not an object...)."""


class CatalogFormatError(ToolScoutError, ValueError):
    """A payload or file does not have any tool-definition shape toolscout knows."""


class DuplicateToolError(ToolScoutError, ValueError):
    """Two tools share an id: the same name twice in one namespace."""


class UnknownToolError(ToolScoutError, KeyError):
    """No tool with that id is in the catalog."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


class SearchConfigError(ToolScoutError, ValueError):
    """A search engine or index was configured with an impossible value."""


class MissingExtraError(ToolScoutError, ImportError):
    """A feature needs an optional dependency that is not installed; the message names the
    extra to install (`pip install 'toolscout[redis]'`)."""


class require_extra:  # lower case: used like a function, as contextlib.suppress is
    """Raise `MissingExtraError` when an optional dependency is missing, in one line that
    names the extra: `semantic search needs the toolscout[semantic] extra (tokenizers not
    installed): pip install 'toolscout[semantic]'`.

    Two ways to use it. Called with module names, it checks them at once without importing
    any (so the check costs nothing when they are there):

        require_extra("semantic", "tokenizers", feature="semantic search")

    As a context manager, it turns an `ImportError` raised inside into that error:

        with require_extra("mcp", feature="toolscout.fastmcp"):
            from fastmcp import FastMCP

    Args:
        extra: The extra that brings the dependency, as in `pip install 'toolscout[extra]'`.
        modules: Top-level modules to check now.
        feature: What needs the extra, as the message starts: a module, a class, a command.
    """

    def __init__(self, extra: str, *modules: str, feature: str) -> None:
        self.extra = extra
        self.feature = feature
        missing = [module for module in modules if not _importable(module)]
        if missing:
            raise self.error(", ".join(missing))

    def error(self, missing: str | None) -> MissingExtraError:
        """The error saying that `missing` (module names, if known) is not installed."""
        which = f" ({missing} not installed)" if missing else ""
        return MissingExtraError(
            f"{self.feature} needs the toolscout[{self.extra}] extra{which}: "
            f"pip install 'toolscout[{self.extra}]'"
        )

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        # A MissingExtraError raised inside already names its extra (a sub-package's own).
        if isinstance(error, ImportError) and not isinstance(error, MissingExtraError):
            raise self.error(error.name.split(".")[0] if error.name else None) from error


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it; a half-imported module
        return False


class StateStoreError(ToolScoutError, ValueError):
    """A discovered-tool store was given an impossible value: a thread or tool id that is not
    text, a negative TTL, a file that is not a toolscout store."""


class StoreUnavailableError(ToolScoutError, RuntimeError):
    """A discovered-tool store did not answer: Redis unreachable or silent past its timeout,
    a SQLite file locked by another connection past its timeout, or any store slower than
    `ToolSearch`'s `store_timeout`. Tool search fails closed: nothing the store holds is
    revealed to that request."""


class MissingThreadError(StateStoreError):
    """A store that keeps state per conversation was asked about a request with no thread id.

    Sharing one bucket between every anonymous request would show one user's discovered tools
    to another, so stores refuse by default (see `anonymous="isolate"`)."""


class ToolSearchConfigError(ToolScoutError, ValueError):
    """`ToolSearch` was configured with an impossible value: an unknown mode, `max_results`
    out of range, or a user tool whose name clashes with a meta-tool."""


class EmbeddingError(ToolScoutError, RuntimeError):
    """An embedder failed: an endpoint answered with an error, a function returned vectors of
    the wrong shape, a model directory is not one toolscout can run."""


class ConfigError(ToolScoutError, ValueError):
    """A configuration file is unreadable or invalid. The one-line message names the file,
    the line and column of the offending key, the field and the fix:
    `gateway.yaml:12:3: tool_search.max_results: must be at most 20 (got 50)`; with several
    problems, they are joined by `; ` and `problems` lists them one by one."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or (message,)


class DashboardError(ToolScoutError, ValueError):
    """The dashboard was asked for something impossible: a setting out of range, a tool not
    in the catalog, labelled queries it cannot read. The page shows the message as it is."""


def describe_validation_error(
    error: ValidationError,
    *,
    field_names: Mapping[str, str] | None = None,
    options: Iterable[str] | None = None,
    most: int | None = None,
) -> str:
    """Pydantic's validation error as one line: `field: what is wrong`, problems joined by `; `.

    A missing field `is missing`; an unknown one is named; a validator's message worded to
    follow the field's name (`must be ...`) follows it, any other comes after a colon.

    Args:
        field_names: What the user calls a field, where the model names it otherwise
            (`input_schema` is `parameters` in OpenAI's format).
        options: The fields the model takes, listed when one is unknown.
        most: Say at most this many problems and how many more there are, for input that
            comes from elsewhere and may hold thousands.
    """
    details = error.errors(include_url=False)
    shown = details if most is None else details[:most]
    known = list(options) if options is not None else None
    line = "; ".join(_describe(detail, field_names or {}, known) for detail in shown)
    if len(details) > len(shown):
        more = len(details) - len(shown)
        line += f" (and {more} more problem{'s' if more > 1 else ''})"
    return line


def _describe(detail: ErrorDetails, field_names: Mapping[str, str], known: list[str] | None) -> str:
    field = ".".join(str(part) for part in detail["loc"])
    field = field_names.get(field, field)
    kind = detail["type"]
    if kind == "missing":
        return f"{field} is missing"
    if kind == "extra_forbidden":
        if known is None:
            return f"unknown field {field!r}"
        return f"unknown option {field!r}; the options are {', '.join(known)}"
    message = str(detail["msg"])
    if kind in ("value_error", "assertion_error"):
        message = str((detail.get("ctx") or {}).get("error", message))
        message = message.removeprefix("Value error, ").removeprefix("Assertion error, ")
        if field and message.startswith("must "):
            return f"{field} {message}"
    return f"{field}: {message}" if field else message
