"""`ToolSearchConfig`: every option of the per-step processor, in one validated model."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from toolscout.errors import ToolSearchConfigError, describe_validation_error

# Re-exported: the models' modules have always imported them from here.
from toolscout.protocol.choices import MAX_RESULTS_LIMIT as MAX_RESULTS_LIMIT
from toolscout.protocol.choices import Mode as Mode
from toolscout.protocol.choices import ResultFormat as ResultFormat
from toolscout.search import EngineName

#: The names OpenAI and Anthropic accept for a tool.
WIRE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class MetaToolNames(BaseModel):
    """The names of the tools tool search adds. Change them if a tool of yours is already
    called `search_tools`; a clash is an error rather than a silent shadowing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    search: str = "search_tools"
    """Searches the deferred tools (modes `load`, `auto_load`, `proxy`)."""
    load: str = "load_tool"
    """Makes found tools callable (mode `load`)."""
    call: str = "call_tool"
    """Runs a found tool by name (mode `proxy`)."""
    lazy: str = "__lazy__tool__discovery__"
    """Returns deferred tools' definitions by name (mode `lazy`); TanStack AI's name, so
    prompts written for it keep working."""

    @field_validator("search", "load", "call", "lazy")
    @classmethod
    def _valid_tool_name(cls, value: str) -> str:
        if not WIRE_NAME.match(value):
            raise ValueError(
                f"{value!r} is not a valid tool name: use 1 to 64 letters, digits, _ or -"
            )
        return value

    @model_validator(mode="after")
    def _distinct(self) -> MetaToolNames:
        names = [self.search, self.load, self.call, self.lazy]
        if len(set(names)) != len(names):
            raise ValueError(f"meta-tool names must differ from each other, got {names}")
        return self


class PreloadConfig(BaseModel):
    """Preloading: before each model call, the deferred tools that best serve the latest user
    message are sent with it, so the model can call them without a search first. The model can
    still search. See `toolscout.protocol.preload`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    """Whether tools are preloaded (modes `load`, `auto_load` and `lazy`; never `proxy`,
    whose list never changes, nor native deferred loading)."""
    max_tools: int = Field(default=3, ge=1, le=MAX_RESULTS_LIMIT)
    """The most tools preloaded per turn (1–20)."""
    max_tokens: int = Field(default=1500, ge=1, le=100_000)
    """The most tokens the preloaded tools' definitions may add to a request, counted as
    `ToolSearch.stats()` counts them; a tool that does not fit is skipped."""
    threshold: float | None = Field(default=None, ge=0, le=1)
    """Lowest normalized score (0–1) the message's best tool must reach for anything to be
    preloaded; None: the engine's `DEFAULT_PRELOAD_THRESHOLDS` entry (hybrid 0.12), or the
    search threshold if that is higher. Tools sent unasked must be surer than search results."""


class ToolSearchConfig(BaseModel):
    """Everything `ToolSearch` can be told; the CLI, the gateway and the integrations read
    this same model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode = "load"
    """How deferred tools reach the model; see `Mode`."""
    engine: EngineName = "auto"
    """The search engine of the index built over the catalog."""
    max_results: int = Field(default=5, ge=1, le=MAX_RESULTS_LIMIT)
    """Tools per search query (1–20); a larger `max_results` asked by the model is capped."""
    threshold: float | None = Field(default=None, ge=0, le=1)
    """Lowest normalized score (0–1) of a hit; None keeps the index default."""
    min_score: float | None = Field(default=None, allow_inf_nan=False)
    """Lowest raw score of a hit; None for no floor."""
    result_format: ResultFormat = "json"
    """How meta-tool results are written; `compact` costs fewer tokens."""
    pinned: tuple[str, ...] = ()
    """Ids of catalog tools always sent, in addition to the tools marked `pinned`."""
    meta_tool_names: MetaToolNames = MetaToolNames()
    """The names of the tools tool search adds."""
    filter_timeout: float = Field(default=1.0, gt=0, le=60)
    """Seconds a policy filter may take for one tool; slower counts as a denial."""
    store_timeout: float = Field(default=5.0, gt=0, le=300)
    """Seconds the store may take to load or save a thread's discoveries; slower counts as
    a failure, and reveals nothing."""
    preload: PreloadConfig = PreloadConfig()
    """Preloading the best tools for the latest user message; `{"enabled": False}` turns it
    off."""
    require_discovery: bool = False
    """Refuse a call to a deferred tool that this conversation has not discovered yet (found
    by search, loaded, revealed), answering how to discover it. Off by default: a tool may
    be called by its exact id without a search, after the same filter (every phase) and
    argument checks, so a reconnected client does not pay a search for a name it knows."""

    @field_validator("pinned", mode="before")
    @classmethod
    def _pinned_as_tuple(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value


def build_config(config: ToolSearchConfig | None, options: dict[str, Any]) -> ToolSearchConfig:
    """`config` with `options` applied, validated; each problem named in one line.

    Raises:
        ToolSearchConfigError: an unknown option or an impossible value.
    """
    data = config.model_dump() if config is not None else {}
    data.update(options)
    try:
        return ToolSearchConfig.model_validate(data)
    except ValidationError as error:
        problems = describe_validation_error(
            error,
            options=ToolSearchConfig.model_fields,
            nested_options={
                "preload": PreloadConfig.model_fields,
                "meta_tool_names": MetaToolNames.model_fields,
            },
        )
        raise ToolSearchConfigError(f"invalid tool search configuration: {problems}") from None
