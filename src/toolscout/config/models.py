"""The configuration models: `ToolScoutConfig`, its `tool_search` block and the store.

One model is read the same way by the CLI, the gateway and every integration, from a YAML or
JSON file (`load_config`) or built in Python. Hosts with more to configure (the gateway's
servers) subclass `ToolScoutConfig`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from toolscout.config.variables import (
    check_variables,
    expand_path,
    expand_variables,
    path_in_config,
)
from toolscout.errors import ToolSearchConfigError
from toolscout.protocol.activation import (
    DEFAULT_AUTO_SHARE,
    AutoActivation,
    Enabled,
    context_window_of,
    unknown_window_message,
)
from toolscout.protocol.config import ToolSearchConfig, build_config
from toolscout.state.base import DEFAULT_TTL, AnonymousPolicy, StateStore

# Imported where a store or a `ToolSearch` is built: reading the settings (the CLI's
# defaults) needs neither.
if TYPE_CHECKING:
    from toolscout.catalog.catalog import Catalog
    from toolscout.protocol.policy import ToolPolicy
    from toolscout.protocol.processor import ToolSearch
    from toolscout.search.index import ToolIndex

StoreKind: TypeAlias = Literal["context", "memory", "sqlite", "redis"]
"""Where discovered tools are kept: read from the conversation (`context`), in this process
(`memory`), in a SQLite file (`sqlite`) or in Redis (`redis`)."""

DEFAULT_REDIS_URL = "redis://localhost:6379/0"

CONFIG_DIR = "config_dir"
"""The validation-context key under which `load_config` passes the config file's folder;
relative paths in the file are read from there, not from the working directory."""


class StoreSettings(BaseModel):
    """Where each conversation's discovered tools are kept (`toolscout.state`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: StoreKind = "context"
    """`context` (the default) keeps nothing: state is read from the conversation's messages."""
    ttl: float = Field(default=DEFAULT_TTL, ge=0)
    """Seconds a thread's state lives after its last access; 0 keeps it forever."""
    path: Path | None = Field(default=None, validate_default=True)
    """The SQLite file (`kind: sqlite`, required); relative to the config file's folder.
    `${VAR}` in it is read when the store is built, as in `url`."""
    url: str | None = Field(default=None, validate_default=True)
    """The Redis server (`kind: redis`); `redis://localhost:6379/0` if not given. `${VAR}`
    and `${VAR:-default}` in it are read from the environment when the store is built, and
    kept as written in the settings, so a password never reaches a file written from them."""
    anonymous: AnonymousPolicy = "refuse"
    """What the store does with a request without a thread id: `refuse` or `isolate`."""

    @field_validator("path")
    @classmethod
    def _path_for_sqlite(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        kind = info.data.get("kind")
        if kind == "sqlite" and value is None:
            raise ValueError("required when kind is sqlite: the SQLite file to keep state in")
        if kind not in (None, "sqlite") and value is not None:
            raise ValueError(f"only used when kind is sqlite (kind is {kind})")
        if value is None:
            return None
        return path_in_config(str(value), (info.context or {}).get(CONFIG_DIR))

    @field_validator("url")
    @classmethod
    def _url_for_redis(cls, value: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if kind not in (None, "redis") and value is not None:
            raise ValueError(f"only used when kind is redis (kind is {kind})")
        return check_variables(value)

    def build(self) -> StateStore | None:
        """The store, or None for `context` (`ToolSearch` reads the messages by default).

        Raises:
            ToolSearchConfigError: the path or URL uses a `${VAR}` that is not set (any more).
        """
        from toolscout.state import InMemoryStore, RedisStore, SQLiteStore

        if self.kind == "memory":
            return InMemoryStore(self.ttl, anonymous=self.anonymous)
        if self.kind == "sqlite":
            assert self.path is not None  # checked by validation
            try:
                path = expand_path(self.path)
            except ValueError as error:
                raise ToolSearchConfigError(f"tool_search.store.path {error}") from None
            return SQLiteStore(path, ttl=self.ttl, anonymous=self.anonymous)
        if self.kind == "redis":
            try:
                url = expand_variables(self.url or DEFAULT_REDIS_URL)
            except ValueError as error:
                raise ToolSearchConfigError(f"tool_search.store.url {error}") from None
            return RedisStore(url, ttl=self.ttl, anonymous=self.anonymous)
        return None


class ToolSearchSettings(ToolSearchConfig):
    """The `tool_search:` block: every `ToolSearchConfig` option, whether tool search is on,
    and where discoveries are kept.

    `always_available` is the file's name for `ToolSearchConfig.pinned`: the tools sent with
    every request. It is the only name the block accepts; in Python it is read as
    `settings.always_available` (or `settings.pinned`, as on `ToolSearchConfig`). Entries are
    tool ids or, when only one tool has it, tool names.
    """

    enabled: Enabled = False
    """Whether hosts (the gateway, an integration) put tool search in the loop; off, they
    send every tool. `auto` turns it on only when the tools' tokens exceed `auto_share` of
    the model's context window (`activation`). `build()` builds the processor either way."""
    auto_share: float = Field(default=DEFAULT_AUTO_SHARE, gt=0, le=1)
    """With `enabled: auto`: search is on when every tool's definition together takes more
    than this share of the model's context window (0.1: a tenth)."""
    model: str | None = None
    """The model the tools are sent to, for its context window (`enabled: auto`); a host
    that knows the model of each request may pass it instead."""
    context_window: int | None = Field(default=None, gt=0)
    """The model's context window in tokens, for a model toolscout does not know; it wins
    over the known size of `model`."""
    pinned: tuple[str, ...] = Field(default=(), alias="always_available")
    """Ids or names of catalog tools always sent, besides the tools marked `pinned`."""
    store: StoreSettings = StoreSettings()
    """Where each conversation's discovered tools are kept."""

    @model_serializer(mode="wrap")
    def _enabled_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A file reads best when it says first whether tool search is on at all.
        data: dict[str, Any] = handler(self)
        return {key: data[key] for key in sorted(data, key=lambda key: key != "enabled")}

    @model_validator(mode="after")
    def _known_model(self) -> ToolSearchSettings:
        model = self.model
        if model is not None and not model.strip():
            raise ValueError("model is empty: name the model, or leave model out")
        if model is not None and self.context_window is None and context_window_of(model) is None:
            raise ValueError(f"model: {unknown_window_message(model)}")
        return self

    def auto_activation(self, model: str | None = None) -> AutoActivation:
        """The `enabled: auto` rule of these settings: `auto_share` of the context window
        of `model` (the model a request goes to, when the host knows it) or of the
        configured `model`; `context_window` wins over both.

        Raises:
            ToolSearchConfigError: no context window: neither `context_window` nor a model
                whose window is known.
        """
        return AutoActivation(
            share=self.auto_share, model=model or self.model, context_window=self.context_window
        )

    def refuse_auto(self, host: str) -> None:
        """For a host that does not decide `enabled: auto` (it needs the model and the
        catalog at hand): raise rather than read `auto` as on.

        Raises:
            ToolSearchConfigError: `enabled` is `auto`.
        """
        if self.enabled == "auto":
            raise ToolSearchConfigError(
                f"tool_search.enabled: auto is decided by the gateway, `toolscout tokens` and "
                f"the dashboard; {host} does not decide it yet: set enabled to true or false"
            )

    @property
    def always_available(self) -> tuple[str, ...]:
        """The tools always sent, as the file names them (ids or names): the config file's
        spelling of `pinned`, toolscout's one name for "always sent" in Python. Kept because
        every config file uses it; `pinned` reads the same value."""
        return self.pinned

    def processor_config(self, catalog: Catalog | None = None, **options: Any) -> ToolSearchConfig:
        """The `ToolSearchConfig` part, for `ToolSearch`; with `catalog`, `always_available`
        names are resolved to ids. `options` override fields, validated like the settings.

        Raises:
            ToolSearchConfigError: an `always_available` entry no tool of `catalog` has, a
                name several tools share, or an invalid option.
        """
        data: dict[str, Any] = {name: getattr(self, name) for name in ToolSearchConfig.model_fields}
        if catalog is not None and "pinned" not in options:
            data["pinned"] = _pinned_ids(self.pinned, catalog)
        data.update(options)
        return build_config(None, data)

    def build(
        self,
        catalog: Catalog | Iterable[Any],
        *,
        filter: ToolPolicy | None = None,
        store: StateStore | None = None,
        index: ToolIndex | None = None,
        **options: Any,
    ) -> ToolSearch:
        """The `ToolSearch` these settings describe, over `catalog`: the one way hosts build
        it, so that every option is validated the same way.

        Args:
            catalog: The tools, as a `Catalog` or anything a `Catalog` accepts.
            filter: The policy (`toolscout.protocol.policy`), which a file cannot hold.
            store: The store to use instead of the one `store` describes (the gateway
                keeps its own across reloads).
            index: A `ToolIndex` over `catalog` to search with, to keep one across changes
                of settings; one for `engine` is built if not given.
            options: `ToolSearchConfig` fields that override the settings, such as
                `pinned=()` for a host that marks its pinned tools in the catalog itself.

        Raises:
            ToolSearchConfigError: an `always_available` tool that is not in the catalog, or
                an invalid option.
        """
        from toolscout.catalog.catalog import Catalog
        from toolscout.protocol.processor import ToolSearch

        tools = catalog if isinstance(catalog, Catalog) else Catalog(catalog)
        config = self.processor_config(tools, **options)
        return ToolSearch(
            tools,
            config,
            store=store if store is not None else self.store.build(),
            filter=filter,
            index=index,
        )


class ToolScoutConfig(BaseModel):
    """A toolscout configuration file. Subclass it to add sections of your own; unknown keys
    are errors that name the key."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    tool_search: ToolSearchSettings = ToolSearchSettings()
    """Tool search: on or off, its mode, engine, limits, pinned tools and store."""

    def to_yaml(self) -> str:
        """The configuration as YAML that `load_config` reads back to an equal model."""
        import yaml  # only a config being saved needs it

        data = self.model_dump(mode="json", by_alias=True)
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _pinned_ids(entries: Iterable[str], catalog: Catalog) -> tuple[str, ...]:
    tools = list(catalog)
    ids = {tool.id for tool in tools}
    by_name: dict[str, list[str]] = {}
    for tool in tools:
        by_name.setdefault(tool.name, []).append(tool.id)
    resolved = []
    for entry in entries:
        if entry in ids:
            resolved.append(entry)
            continue
        owners = by_name.get(entry, [])
        if len(owners) == 1:
            resolved.append(owners[0])
            continue
        if owners:
            problem = f"several tools are named {entry!r} ({', '.join(owners)}); give the id"
        else:
            close = difflib.get_close_matches(entry, [*ids, *by_name], n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            problem = f"no tool of the catalog has the id or name {entry!r}{hint}"
        raise ToolSearchConfigError(f"tool_search.always_available: {problem}")
    return tuple(dict.fromkeys(resolved))
