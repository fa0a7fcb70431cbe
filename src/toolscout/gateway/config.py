"""`GatewayConfig`: the gateway's file, with its upstream servers, how it serves, and tool search.

```yaml
servers:                    # or `mcpServers`, as Claude Desktop, Cursor and Claude Code write it
  github:
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    env: {GITHUB_TOKEN: "${GITHUB_TOKEN}"}
    pinned: [create_issue]
  docs:
    url: https://docs.example.com/mcp
    headers: {Authorization: "Bearer ${DOCS_TOKEN}"}
    exclude: ["delete_*"]
gateway:
  transport: http
  port: 8765
  auth: {tokens_env: TOOLSCOUT_TOKENS}
tool_search:
  max_results: 5
  store: {kind: redis, url: "redis://localhost:6379/0"}
```

A file that holds `mcpServers` is read as the host application's own file: its other
top-level keys (Claude Desktop's `globalShortcut`, `preferences`...) are left to it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from toolscout.config.models import (
    CONFIG_DIR,
    StoreKind,
    StoreSettings,
    ToolScoutConfig,
    ToolSearchSettings,
)
from toolscout.config.variables import (
    check_variables,
    expand_path,
    expand_variables,
    path_in_config,
)
from toolscout.protocol.activation import Enabled
from toolscout.protocol.config import Mode

#: 16 MiB: a few large images, far more text than a model reads.
DEFAULT_MAX_RESULT_SIZE = 16 * 1024 * 1024

Transport: TypeAlias = Literal["stdio", "http"]
"""How the gateway serves its one client (`stdio`) or many (`http`, streamable HTTP)."""

UpstreamType: TypeAlias = Literal["stdio", "http", "sse"]
"""How the gateway reaches an upstream: a command it runs (`stdio`), streamable HTTP
(`http`), or the deprecated HTTP+SSE transport of the 2024-11-05 revision (`sse`)."""

#: `type` values that the hosts' files use for an upstream, by the transport they mean.
_UPSTREAM_TYPES: dict[str, UpstreamType] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamableHttp": "http",
    "sse": "sse",
}
#: Keys of other hosts' server entries that say nothing the gateway uses.
_HOST_ONLY_KEYS = ("autoApprove", "alwaysAllow", "description")
_NAMESPACE = re.compile(r"^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$")


class OAuthSettings(BaseModel):
    """Signing in to an HTTP upstream that asks for it, as MCP's authorization specification
    describes: on a `401`, the gateway discovers the server's authorization server, registers
    itself there, opens the sign-in page in a browser and waits for the redirect on a
    loopback port; tokens are kept (`gateway.oauth_dir`) and refreshed, so signing in is
    needed once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    """Off, a `401` is an error like any other (`oauth: false`)."""
    scope: str | None = None
    """Scopes to ask for, separated by spaces; by default those the server asks for."""
    callback_port: int = Field(default=0, ge=0, le=65535)
    """The loopback port the sign-in page redirects to; 0 picks a free one at the first
    sign-in, and the same one afterwards (it is part of the registration)."""
    sign_in_timeout: float = Field(default=300.0, gt=0)
    """Seconds to wait for the person to sign in before the attempt fails (and is retried
    with backoff)."""

    @model_validator(mode="before")
    @classmethod
    def _on_or_off(cls, data: Any) -> Any:
        return {"enabled": data} if isinstance(data, bool) else data


class UpstreamSettings(BaseModel):
    """One upstream MCP server: a command to run (stdio) or a URL (streamable HTTP), and which
    of its tools the gateway offers.

    `${VAR}` and `${VAR:-default}` in the command, arguments, environment, working directory,
    URL and headers are read from the gateway's environment, as Claude Code does: when the
    server starts (`expanded()`), so that the settings, and a file written from them, keep
    the references and never the secrets they stand for. Loading checks that each variable
    is set (or has a default).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    type: UpstreamType | None = None
    """`stdio`, `http` or `sse`; read from `command` or `url` when not given (a URL is
    streamable HTTP). Hosts' spellings (`streamable-http`, `streamableHttp`) are accepted."""
    command: str | None = None
    """The program that runs the server (stdio)."""
    args: tuple[str, ...] = ()
    """Its arguments."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables for it, on top of a minimal inherited set (PATH, HOME...)."""
    cwd: Path | None = None
    """Its working directory; relative to the config file's folder."""
    url: str | None = None
    """The server's streamable HTTP endpoint (http)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request, such as `Authorization`."""
    oauth: OAuthSettings = OAuthSettings()
    """Signing in when an HTTP server answers `401` (not with an `Authorization` header)."""
    namespace: str | None = None
    """The prefix of this server's tool ids (`namespace__tool`); the server's key by default,
    with characters other than letters, digits, `-` and `_` replaced by `_`."""
    include: tuple[str, ...] = ()
    """Glob patterns of tool names to offer (`create_*`); all tools when empty."""
    exclude: tuple[str, ...] = ()
    """Glob patterns of tool names never offered: not listed, searchable or callable."""
    tags: tuple[str, ...] = ()
    """Labels added to every tool of this server: searchable, and visible to filters."""
    pinned: tuple[str, ...] = ()
    """Names of this server's tools always listed to the model, outside search."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds a call may take before it is cancelled; `gateway.call_timeout` by default."""
    disabled: bool = False
    """Skip this server (Cline's and Roo's key)."""

    @model_validator(mode="before")
    @classmethod
    def _host_spellings(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = {key: value for key, value in data.items() if key not in _HOST_ONLY_KEYS}
        kind = data.get("type")
        if isinstance(kind, str) and kind in _UPSTREAM_TYPES:
            data["type"] = _UPSTREAM_TYPES[kind]
        return data

    @field_validator("command", "url", mode="before")
    @classmethod
    def _check_text(cls, value: object) -> object:
        return check_variables(value)

    @field_validator("args", mode="before")
    @classmethod
    def _check_args(cls, value: object) -> object:
        if isinstance(value, str):
            raise ValueError("must be a list of arguments, such as [-y, server-package]")
        if isinstance(value, list | tuple):
            return [check_variables(item) for item in value]
        return value

    @field_validator("env", "headers", mode="before")
    @classmethod
    def _check_values(cls, value: object) -> object:
        if isinstance(value, dict):
            return {key: check_variables(item) for key, item in value.items()}
        return value

    @field_validator("cwd", mode="before")
    @classmethod
    def _relative_cwd(cls, value: object, info: ValidationInfo) -> object:
        return config_path(value, info)

    @field_validator("namespace")
    @classmethod
    def _valid_namespace(cls, value: str | None) -> str | None:
        if value is not None and not _NAMESPACE.match(value):
            raise ValueError(
                f"{value!r} is not a valid namespace: use letters, digits, - and single _ "
                "(tool ids are namespace__tool)"
            )
        return value

    @field_validator("include", "exclude", "tags", "pinned", mode="before")
    @classmethod
    def _list(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _one_transport(self) -> UpstreamSettings:
        if self.command and self.url:
            raise ValueError(
                "give either command (a stdio server) or url (an HTTP server), not both"
            )
        if not self.command and not self.url:
            raise ValueError(
                "give command (and args) to run a stdio server, or url for a streamable HTTP one"
            )
        kind: UpstreamType = "stdio" if self.command else "http"
        if self.type is not None and (self.type == "stdio") != (kind == "stdio"):
            needed = "command" if self.type == "stdio" else "url"
            raise ValueError(f"type is {self.type} but the entry has no {needed}")
        object.__setattr__(self, "type", self.type or kind)
        if kind == "http" and (self.args or self.env or self.cwd):
            raise ValueError("args, env and cwd are for stdio servers; this one has a url")
        if kind == "stdio" and self.headers:
            raise ValueError("headers are for HTTP servers; this one has a command")
        return self

    def expanded(self) -> UpstreamSettings:
        """These settings with every `${VAR}` read from the environment as it is now: what
        starting the server uses. Never saved.

        Raises:
            ValueError: a variable without default is no longer set.
        """
        return self.model_copy(
            update={
                "command": expand_variables(self.command) if self.command else None,
                "args": tuple(expand_variables(arg) for arg in self.args),
                "env": {key: expand_variables(value) for key, value in self.env.items()},
                "cwd": expand_path(self.cwd) if self.cwd is not None else None,
                "url": expand_variables(self.url) if self.url else None,
                "headers": {key: expand_variables(value) for key, value in self.headers.items()},
            }
        )


class RestartSettings(BaseModel):
    """How a crashed or unreachable upstream is started again: after `initial_delay` seconds,
    doubling at each failure up to `max_delay`, and from `initial_delay` again once a
    connection has lasted `max_delay`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    initial_delay: float = Field(default=0.5, gt=0, le=3600)
    max_delay: float = Field(default=30.0, gt=0, le=3600)

    @model_validator(mode="after")
    def _ordered(self) -> RestartSettings:
        if self.max_delay < self.initial_delay:
            raise ValueError(
                f"max_delay ({self.max_delay:g}) must be at least initial_delay "
                f"({self.initial_delay:g})"
            )
        return self


class InputRequiredSettings(BaseModel):
    """How long the gateway waits on a client of MCP 2026-07-28 that it asks an upstream's
    question in an `input_required` result (`toolscout.gateway.rounds`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer_timeout: float = Field(default=600.0, gt=0, le=86_400)
    """Seconds a question waits for the client to send its request again with the answer;
    then the upstream is answered with an error that says so."""
    result_kept: float = Field(default=60.0, gt=0, le=86_400)
    """Seconds the result of a request answered `input_required` waits for the client to
    come back for it; then it is dropped, and the client's `requestState` is refused."""


class AuthSettings(BaseModel):
    """Bearer tokens an HTTP client must send (`Authorization: Bearer <token>`). Without
    any, the gateway serves HTTP on a loopback address only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens_env: str | None = None
    """An environment variable holding the accepted tokens, separated by commas or spaces."""
    tokens_file: Path | None = None
    """A file of accepted tokens, one per line (`#` starts a comment); relative to the
    config file's folder."""

    @field_validator("tokens_file", mode="before")
    @classmethod
    def _relative_to_config(cls, value: object, info: ValidationInfo) -> object:
        return config_path(value, info)

    @property
    def configured(self) -> bool:
        return self.tokens_env is not None or self.tokens_file is not None


class ServeSettings(BaseModel):
    """The `gateway:` block: how the gateway serves, and how it treats its upstreams."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "toolscout"
    """The server name the gateway gives its clients."""
    transport: Transport = "stdio"
    """`stdio` for one client that starts the gateway (Claude Desktop, Cursor, Claude Code),
    `http` for streamable HTTP."""
    host: str = "127.0.0.1"
    """The address to serve HTTP on. Beyond loopback, `auth` is required."""
    port: int = Field(default=8765, ge=0, le=65535)
    """The HTTP port; 0 picks a free one."""
    path: str = "/mcp"
    """The HTTP endpoint's path."""
    stateless: bool = False
    """Serve every HTTP request on its own, so that several gateway processes behind one
    address can answer the same session (with a shared `tool_search.store`)."""
    auth: AuthSettings = AuthSettings()
    """Bearer tokens for HTTP."""
    call_timeout: float = Field(default=60.0, gt=0)
    """Seconds an upstream call may take before it is cancelled, unless its server sets
    `timeout`."""
    connect_timeout: float = Field(default=30.0, gt=0)
    """Seconds to start an upstream and list its tools; also how long the gateway waits for
    its upstreams before it starts serving."""
    restart: RestartSettings = RestartSettings()
    """Backoff for crashed or unreachable upstreams."""
    max_result_size: int = Field(default=DEFAULT_MAX_RESULT_SIZE, ge=64 * 1024)
    """Bytes of the largest message an HTTP upstream may send (a result, mostly): a larger
    one is answered with an error, and a streamable HTTP connection stays up (an SSE one,
    whose messages share one stream, is reconnected). 16 MiB by default."""
    input_required: InputRequiredSettings = InputRequiredSettings()
    """How long a client of MCP 2026-07-28 is waited for when it is asked an upstream's
    question."""
    oauth_dir: Path | None = None
    """Where the tokens of upstreams the gateway signed in to are kept, one file per server
    URL, readable by you alone; `$XDG_STATE_HOME/toolscout/oauth` by default
    (`~/.local/state/toolscout/oauth`). Relative to the config file's folder."""

    @field_validator("oauth_dir", mode="before")
    @classmethod
    def _relative_oauth_dir(cls, value: object, info: ValidationInfo) -> object:
        return config_path(value, info)

    @field_validator("path")
    @classmethod
    def _absolute_path(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError(f"must start with / (got {value!r}), such as /mcp")
        return value


class GatewayStoreSettings(StoreSettings):
    """Where each session's discovered tools are kept; in this process by default."""

    kind: StoreKind = "memory"
    """`memory`, `sqlite` or `redis` (shared by gateway processes); the gateway never sees
    the conversation, so `context` is not available."""

    @field_validator("kind")
    @classmethod
    def _not_context(cls, value: StoreKind) -> StoreKind:
        if value == "context":
            raise ValueError(
                "the gateway never sees the conversation, so it cannot read discoveries from "
                "it; use memory, sqlite or redis"
            )
        return value


class GatewayToolSearchSettings(ToolSearchSettings):
    """`tool_search:` for the gateway: on, in `proxy` mode, with the in-memory store, unless
    the file says otherwise."""

    enabled: Enabled = True
    """Off, the gateway lists every upstream tool: a plain aggregator. `auto` searches only
    when the upstream tools' tokens exceed `auto_share` of the context window of `model`
    (or `context_window`), decided again whenever the tools change."""
    mode: Mode = "proxy"
    """`proxy` keeps the tool list fixed: `search_tools` and `call_tool` (and pinned tools).
    The other modes change each session's list as tools are discovered, which clients learn
    from `notifications/tools/list_changed`."""
    store: GatewayStoreSettings = GatewayStoreSettings()
    """Where each session's discovered tools are kept."""

    @model_validator(mode="after")
    def _auto_knows_the_window(self) -> GatewayToolSearchSettings:
        # MCP's clientInfo names the client, never the model: the file must say it.
        if self.enabled == "auto" and self.model is None and self.context_window is None:
            raise ValueError(
                "enabled auto needs the model's context window, and MCP clients do not say "
                "which model they use: set tool_search.model (such as gpt-4o or "
                "claude-sonnet-4-5) or tool_search.context_window (in tokens)"
            )
        return self


class GatewayConfig(ToolScoutConfig):
    """The gateway's configuration file."""

    servers: dict[str, UpstreamSettings] = Field(
        default_factory=dict, validation_alias=AliasChoices("servers", "mcpServers")
    )
    """The upstream MCP servers, by name; `mcpServers` is read as the same key."""
    gateway: ServeSettings = ServeSettings()
    """How the gateway serves and treats its upstreams."""
    tool_search: GatewayToolSearchSettings = GatewayToolSearchSettings()
    """Tool search over every upstream's tools."""

    @model_validator(mode="before")
    @classmethod
    def _host_file(cls, data: Any) -> Any:
        if isinstance(data, dict) and "mcpServers" in data:
            if "servers" in data:
                raise ValueError("give servers or mcpServers, not both")
            keys = {*cls.model_fields, "mcpServers"}
            return {key: value for key, value in data.items() if key in keys}
        return data

    @field_validator("servers", mode="before")
    @classmethod
    def _servers_mapping(cls, value: object) -> object:
        if isinstance(value, list):
            raise ValueError(
                "must be a mapping of server names to settings (github: {command: ...}), not a list"
            )
        return value

    @model_validator(mode="after")
    def _distinct_namespaces(self) -> GatewayConfig:
        owners: dict[str, str] = {}
        for name, settings in self.servers.items():
            namespace = namespace_of(name, settings)
            if namespace in owners:
                raise ValueError(
                    f"servers {owners[namespace]!r} and {name!r} both use the namespace "
                    f"{namespace!r}; give one of them another namespace"
                )
            owners[namespace] = name
        return self

    def upstreams(self) -> dict[str, UpstreamSettings]:
        """The servers to connect to, by name: every one not `disabled`."""
        return {name: s for name, s in self.servers.items() if not s.disabled}


def namespace_of(name: str, settings: UpstreamSettings) -> str:
    """The namespace of an upstream: its own, or its key made a valid namespace."""
    if settings.namespace:
        return settings.namespace
    cleaned = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_-]", "_", name)).strip("_")
    return cleaned or "server"


def config_path(value: object, info: ValidationInfo) -> object:
    """A path of the config file: `~` expanded, and relative to the file's folder unless it
    is absolute or starts with a variable (`${HOME}/work`, read when used)."""
    if not isinstance(value, str):
        return value
    return path_in_config(value, (info.context or {}).get(CONFIG_DIR))
