"""Errors toolscout raises on purpose; each message says what was wrong and how to fix it."""

from __future__ import annotations


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


def missing_extra(module: str, dependency: str, extra: str) -> MissingExtraError:
    """The error for `module` used without `dependency`, naming the extra to install."""
    return MissingExtraError(
        f"{module} needs {dependency}, which is not installed: pip install 'toolscout[{extra}]'"
    )


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
