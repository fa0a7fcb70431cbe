"""PydanticAI: toolscout as the `strategy` of pydantic-ai's own tool search, or every tool of
an agent behind toolscout's meta-tools.

Two ways in, for two needs:

- `tool_search_capability(settings)` is pydantic-ai's `ToolSearch` capability with toolscout
  as its `strategy`. pydantic-ai keeps what it does well: tools marked `defer_loading=True`
  are the corpus, the discovered set is read from the history and reset at compaction, and
  Anthropic and OpenAI Responses use their provider-native deferred loading. toolscout ranks:
  BM25 with synonyms, a threshold (a query no tool serves finds nothing), `max_results` per
  query, an exact name first, tools not yet discovered before the others, and the filter's
  `search` and `load` phases.
- `ToolScout(settings)` (a capability) or `ToolScoutToolset(toolset, settings)` puts every
  tool of the agent (or of one toolset) behind toolscout's own modes: `load`, `auto_load`,
  `proxy` and `lazy`, scores in results, the filter at all four phases, and a store keyed by
  the run's `conversation_id`. `always_available` tools are always sent.

A filter receives the `RunContext` as its request context (`ctx.deps` is the application's).
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from toolscout.catalog.tool import Tool
from toolscout.config.models import ToolSearchSettings
from toolscout.errors import require_extra
from toolscout.integrations._mirror import CatalogMirror
from toolscout.protocol import meta_tools
from toolscout.protocol.context_store import ContextStore
from toolscout.protocol.definitions import ToolCall, ToolDefinition
from toolscout.protocol.modes import NATIVE
from toolscout.protocol.policy import ToolPolicy
from toolscout.protocol.processor import ToolSearch

with require_extra("pydantic-ai", feature="toolscout.integrations.pydantic_ai"):
    from pydantic import ValidationError
    from pydantic_ai import RunContext
    from pydantic_ai import ToolDefinition as PydanticToolDefinition
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.capabilities import ToolSearch as PydanticToolSearch
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.messages import (
        ModelRequest,
        ToolReturnPart,
        UserPromptPart,
        post_compaction_window,
    )
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset
    from pydantic_core import SchemaValidator, core_schema

__all__ = ["ToolScout", "ToolScoutStrategy", "ToolScoutToolset", "tool_search_capability"]

logger = logging.getLogger("toolscout.integrations")

ThreadId = Callable[[RunContext[Any]], str | None]
"""Which conversation a run belongs to, for stores that keep state per thread."""

# Arguments reach toolscout as they came from the model; it checks them against the JSON
# schema, and the wrapped tool's own validator runs just before the tool.
_ANY_ARGUMENTS = SchemaValidator(
    core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())
)


def conversation_id(ctx: RunContext[Any]) -> str | None:
    """The default thread id: the run's `conversation_id`, which pydantic-ai carries over in
    `message_history`."""
    return ctx.conversation_id


# -- toolscout as the strategy of pydantic-ai's ToolSearch ----------------------------------


class ToolScoutStrategy:
    """A `ToolSearch(strategy=...)` callable: `(ctx, queries, tools) -> names`, ranked by
    toolscout over the deferred tools pydantic-ai passes in.

    The index follows the tools it is given (a changed tool is re-analysed, the rest are
    not). With several queries, each finds up to `max_results` tools (at most 5 queries).

    Args:
        settings: engine, threshold, `max_results`, `min_score`; the mode is pydantic-ai's.
        filter: asked for the `search` and `load` phases with the `RunContext`; a tool it
            denies is never returned.
    """

    def __init__(
        self, settings: ToolSearchSettings | None = None, *, filter: ToolPolicy | None = None
    ) -> None:
        self.settings = settings or ToolSearchSettings(enabled=True)
        self._mirror = CatalogMirror(_as_tool, _definition_key)
        # pydantic-ai keeps the discovered set: toolscout reads it from each call, and
        # makes the tools it finds callable at once, as `auto_load` does.
        self.search = self.settings.build(
            self._mirror.catalog, filter=filter, store=ContextStore(), mode="auto_load", pinned=()
        )

    async def __call__(
        self,
        ctx: RunContext[Any],
        queries: Sequence[str],
        tools: Sequence[PydanticToolDefinition],
    ) -> list[str]:
        self._mirror.update(tools)
        asked = [query for query in queries if query.strip()][: meta_tools.MAX_QUERIES]
        if not asked:
            return []
        answer = await self.search.afind(
            asked, discovered=ctx.discovered_tool_names, request_context=ctx, explain=False
        )
        return [entry.tool.id for entry in answer.found]


def tool_search_capability(
    settings: ToolSearchSettings | None = None, *, filter: ToolPolicy | None = None
) -> PydanticToolSearch[Any]:
    """pydantic-ai's `ToolSearch` capability with toolscout ranking its deferred tools.

    Pass it in `Agent(capabilities=[...])`; mark the tools to hide with `defer_loading=True`
    (`Tool(fn, defer_loading=True)`, or `toolset.defer_loading()`). The mode, pinned tools,
    store and `enabled` of `settings` are not read: deferral and state are pydantic-ai's.
    """
    strategy = ToolScoutStrategy(settings, filter=filter)
    config = strategy.search.config
    return PydanticToolSearch(
        strategy=strategy,
        # toolscout caps each query; pydantic-ai's cap is for the whole call.
        max_results=config.max_results * meta_tools.MAX_QUERIES,
        tool_description=NATIVE.search_tool(config).description,
    )


# -- every tool behind toolscout's own meta-tools -----------------------------------------


@dataclass
class _Shared:
    """What the runs of one toolset share: the mirrored catalog and the processor."""

    mirror: CatalogMirror[PydanticToolDefinition] = field(
        default_factory=lambda: CatalogMirror(_with_handler, _definition_key)
    )
    lock: threading.Lock = field(default_factory=threading.Lock)
    search: ToolSearch | None = None
    warned_off: bool = False

    def processor(
        self,
        tools: Mapping[str, ToolsetTool[Any]],
        settings: ToolSearchSettings,
        filter: ToolPolicy | None,
    ) -> ToolSearch:
        self.mirror.update([tool.tool_def for tool in tools.values()])
        with self.lock:
            if self.search is None:
                self.search = settings.build(self.mirror.catalog, filter=filter)
            return self.search

    def warn_off(self) -> None:
        if not self.warned_off:
            self.warned_off = True
            logger.warning("tool search is off (tool_search.enabled is false): every tool is sent")


@dataclass(kw_only=True)
class _ScoutTool(ToolsetTool[Any]):
    """A tool as this toolset lists it, with the wrapped toolset's tools of the same step."""

    sources: Mapping[str, ToolsetTool[Any]]


@dataclass
class _Call:
    """The call being executed, for the handler that runs the wrapped tool."""

    ctx: RunContext[Any]
    wrapped: AbstractToolset[Any]
    sources: Mapping[str, ToolsetTool[Any]]
    raised: list[BaseException] = field(default_factory=list)


_CURRENT_CALL: contextvars.ContextVar[_Call] = contextvars.ContextVar("toolscout_pydantic_ai")


@dataclass
class ToolScoutToolset(WrapperToolset[Any]):
    """The wrapped toolset's tools behind toolscout's meta-tools, in any of its modes.

    Each step lists the `always_available` tools, the meta-tools and the tools discovered in
    this conversation; a call goes through toolscout (argument check against the schema,
    the filter's `active` and `call` phases) to the wrapped toolset. What the tool raises
    (`ModelRetry`, `ApprovalRequired`...) reaches pydantic-ai as if it were called directly.

    Args:
        wrapped: The toolset to search, such as `FunctionToolset([...])` or an MCP server.
        settings: Mode, engine, limits, `always_available` and store. With `enabled: false`
            every tool is sent as it is.
        filter: `filter(tool, ctx, phase)`, sync or async, with the `RunContext`.
        thread_id: The conversation of a run, for a store; the `conversation_id` by default.
    """

    settings: ToolSearchSettings = field(default_factory=lambda: ToolSearchSettings(enabled=True))
    filter: ToolPolicy | None = None
    thread_id: ThreadId = conversation_id
    shared: _Shared = field(default_factory=_Shared, repr=False, compare=False)
    """State kept across runs (pydantic-ai copies a toolset for each run)."""

    def __post_init__(self) -> None:
        self.settings.refuse_auto("the pydantic-ai toolset")

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        sources = await self.wrapped.get_tools(ctx)
        if not self.settings.enabled:
            self.shared.warn_off()
            return sources
        search = self.shared.processor(sources, self.settings, self.filter)
        definitions = await search.aprepare(self.thread_id(ctx), _history(ctx), ctx)
        tools: dict[str, ToolsetTool[Any]] = {}
        for definition in definitions:
            source = sources.get(definition.tool_id or "")
            tools[definition.name] = _ScoutTool(
                toolset=self,
                tool_def=_listed(definition, source),
                max_retries=source.max_retries if source else ctx.max_retries,
                args_validator=_ANY_ARGUMENTS,
                sources=sources,
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        if not isinstance(tool, _ScoutTool):
            return await self.wrapped.call_tool(name, tool_args, ctx, tool)
        search = self.shared.search
        assert search is not None  # get_tools ran first
        call = _Call(ctx, self.wrapped, tool.sources)
        token = _CURRENT_CALL.set(call)
        try:
            result = await search.aexecute(
                ToolCall(name, tool_args, id=ctx.tool_call_id),
                self.thread_id(ctx),
                ctx,
                messages=_history(ctx),
            )
        finally:
            _CURRENT_CALL.reset(token)
        if call.raised:
            raise call.raised[0]
        ran_a_tool = name in tool.sources or name == search.config.meta_tool_names.call
        if result.is_error or not ran_a_tool:
            return result.content  # a meta-tool's result, or a refusal the model can act on
        return result.value


@dataclass
class ToolScout(AbstractCapability[Any]):
    """The capability form of `ToolScoutToolset`: every tool of the agent behind toolscout.

    `Agent(model, tools=[...], capabilities=[ToolScout(settings)])`.
    """

    settings: ToolSearchSettings = field(default_factory=lambda: ToolSearchSettings(enabled=True))
    filter: ToolPolicy | None = None
    thread_id: ThreadId = conversation_id
    shared: _Shared = field(default_factory=_Shared, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.settings.refuse_auto("the pydantic-ai capability")

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        return ToolScoutToolset(toolset, self.settings, self.filter, self.thread_id, self.shared)


# -- conversions ---------------------------------------------------------------------------


async def _run_wrapped(tool_name: str, arguments: dict[str, Any]) -> Any:
    """Run a wrapped tool the way pydantic-ai would: its own validator, then its toolset."""
    call = _CURRENT_CALL.get()
    source = call.sources[tool_name]
    try:
        try:
            validated = source.args_validator.validate_python(arguments)
        except ValidationError as error:
            raise ModelRetry(f"Invalid arguments for {tool_name}: {error}") from None
        return await call.wrapped.call_tool(tool_name, validated, call.ctx, source)
    except BaseException as error:
        call.raised.append(error)
        raise


def _as_tool(definition: PydanticToolDefinition, handler: Callable[..., Any] | None = None) -> Tool:
    return Tool(
        name=definition.name,
        description=definition.description or "",
        input_schema=definition.parameters_json_schema,
        handler=handler,
    )


def _with_handler(definition: PydanticToolDefinition) -> Tool:
    """A wrapped toolset's tool, run through `_run_wrapped` when called."""
    name = definition.name

    async def handler(**arguments: Any) -> Any:
        return await _run_wrapped(name, arguments)

    return _as_tool(definition, handler)


def _definition_key(definition: PydanticToolDefinition) -> Hashable:
    schema = json.dumps(definition.parameters_json_schema, sort_keys=True, default=str)
    return definition.name, definition.description, schema


def _listed(definition: ToolDefinition, source: ToolsetTool[Any] | None) -> PydanticToolDefinition:
    """A tool toolscout sends: a wrapped tool keeps its own definition (strict, metadata...)."""
    if source is not None:
        return replace(source.tool_def, name=definition.name)
    return PydanticToolDefinition(
        name=definition.name,
        description=definition.description,
        parameters_json_schema=definition.input_schema,
    )


def _history(ctx: RunContext[Any]) -> list[dict[str, Any]]:
    """The user prompts (what preloading ranks) and tool results (what meta-tools made
    available is in their text) of the history since the last compaction, in the shape
    `ContextStore` reads."""
    history: list[dict[str, Any]] = []
    for message in post_compaction_window(ctx.messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and isinstance(part.content, str):
                    history.append({"role": "tool", "content": part.content})
                elif isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    history.append({"role": "user", "content": part.content})
    return history
