"""OpenAI Agents SDK: function tools behind toolscout, and a model wrapper that sends only
the tools the conversation has discovered.

```python
scout = ToolScout([get_weather, send_email, ...], settings)
agent = Agent(name="assistant", model=scout.model("gpt-5.4"), tools=scout.tools)
```

`scout.tools` holds toolscout's meta-tools and every tool, each run through toolscout when
called (discovery, the argument check, the filter). `scout.model(model)` wraps the agent's
`Model`: before each request it keeps, of those tools, the `always_available` ones, the
meta-tools and the ones discovered so far, in discovery order, read from the request's own
input items (so Sessions and trimmed histories behave), or kept in a store per server-side
`conversation_id`.

The SDK's own deferred loading (`function_tool(defer_loading=True)` with the hosted
`ToolSearchTool()`) is searched by OpenAI's servers; its client-executed form is not run by
the SDK's runner (0.24 raises on a client `tool_search_call`), so toolscout cannot be its
executor there and takes the meta-tool route instead.

A filter receives the run's context object (`Runner.run(..., context=...)`). The SDK hands a
model request no context, so the filter is asked when tools are called (every phase: a
denied tool answers "Unknown tool", as in the core) and, for pinned tools, through their
`is_enabled` (`active`). A tool discovered earlier and denied `active` since is still listed
for the model, but a call to it is refused.
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.config.models import ToolSearchSettings
from toolscout.errors import require_extra
from toolscout.protocol.definitions import ToolCall, ToolDefinition
from toolscout.protocol.modes import mode_strategy
from toolscout.protocol.policy import Phase, PolicyCheck, ToolPolicy

with require_extra("openai-agents", feature="toolscout.integrations.openai_agents"):
    from agents import FunctionTool, RunContextWrapper, function_tool
    from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
    from agents.models.interface import Model
    from agents.models.multi_provider import MultiProvider
    from agents.tool_context import ToolContext

__all__ = ["ToolScout", "ToolScoutModel"]

logger = logging.getLogger("toolscout.integrations")

#: Tool calls whose conversation is remembered until they run.
_REMEMBERED_CALLS = 1_000


@dataclass(frozen=True)
class _Listed:
    """The request context of a model request: the tools the SDK enabled for this turn."""

    names: frozenset[str]


@dataclass(frozen=True)
class _Conversation:
    """What a tool call was made in: the items so far, and the server-side conversation."""

    items: list[Any]
    thread_id: str | None


@dataclass
class _Call:
    """The tool call being executed, for the handler that runs the original tool."""

    context: ToolContext[Any]
    output: list[Any] = field(default_factory=list)
    raised: list[BaseException] = field(default_factory=list)


_CURRENT_CALL: contextvars.ContextVar[_Call] = contextvars.ContextVar("toolscout_openai_agents")


class ToolScout:
    """toolscout tool search for an OpenAI Agents SDK `Agent`.

    Args:
        tools: The tools, as `FunctionTool`s (`@function_tool`) or plain functions.
        settings: Mode, engine, limits, `always_available` and store. With `enabled: false`,
            `tools` are the tools as given and `model()` returns the model unchanged.
        filter: `filter(tool, context, phase)`, sync or async, with the run's context.
    """

    def __init__(
        self,
        tools: Iterable[FunctionTool | Callable[..., Any]],
        settings: ToolSearchSettings | None = None,
        *,
        filter: ToolPolicy | None = None,
    ) -> None:
        self.settings = settings or ToolSearchSettings(enabled=True)
        self.settings.refuse_auto("the OpenAI Agents SDK integration")
        self.filter = filter
        self._originals = {tool.name: tool for tool in map(_function_tool, tools)}
        catalog = Catalog([_as_tool(tool) for tool in self._originals.values()])
        self.search = self.settings.build(catalog, filter=self._policy)
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self._lock = threading.Lock()
        self._tools = self._wrapped_tools()
        if not self.settings.enabled:
            logger.warning("tool search is off (tool_search.enabled is false): every tool is sent")

    @property
    def tools(self) -> list[FunctionTool]:
        """The tools to give the `Agent`: meta-tools first, then every catalog tool."""
        if not self.settings.enabled:
            return list(self._originals.values())
        return list(self._tools.values())

    def model(self, model: Model | str) -> Model:
        """The agent's model, sending each request only the tools toolscout lists."""
        return ToolScoutModel(model, self) if self.settings.enabled else _resolved(model)

    # -- one model request -----------------------------------------------------------------

    async def listed(
        self, tools: Sequence[Any], items: str | list[TResponseInputItem], thread_id: str | None
    ) -> list[Any]:
        """Of the SDK's tools for this request, the ones toolscout sends, in its order; tools
        it does not manage (hosted tools, other function tools) come after the pinned ones."""
        enabled = {tool.name for tool in tools if _ours(tool, self._tools)}
        definitions = await self.search.aprepare(
            thread_id, _items(items), _Listed(frozenset(enabled))
        )
        others = [tool for tool in tools if not _ours(tool, self._tools)]
        pinned = [self._sent(d) for d in definitions if d.kind == "pinned"]
        rest = [self._sent(d) for d in definitions if d.kind != "pinned"]
        return [*pinned, *others, *rest]

    def remember(
        self, items: str | list[TResponseInputItem], output: Sequence[Any], thread_id: str | None
    ) -> None:
        """Keep the conversation of each tool call in `output` until the call runs."""
        conversation = _Conversation([*_items(items), *output], thread_id)
        with self._lock:
            for item in output:
                call_id = getattr(item, "call_id", None)
                if getattr(item, "type", None) == "function_call" and call_id:
                    self._conversations[call_id] = conversation
            while len(self._conversations) > _REMEMBERED_CALLS:
                self._conversations.popitem(last=False)

    # -- one tool call ---------------------------------------------------------------------

    async def _invoke(self, context: ToolContext[Any], arguments: str) -> Any:
        with self._lock:
            conversation = self._conversations.pop(context.tool_call_id, None)
        call = _Call(context)
        token = _CURRENT_CALL.set(call)
        try:
            result = await self.search.aexecute(
                ToolCall(context.tool_name, arguments, id=context.tool_call_id),
                conversation.thread_id if conversation else None,
                context.context,
                messages=conversation.items if conversation else (),
            )
        finally:
            _CURRENT_CALL.reset(token)
        if call.raised:
            raise call.raised[0]
        if call.output and not result.is_error:
            return call.output[0]  # the tool's own output, as the SDK would have it
        return result.content

    def _policy(self, tool: Tool, request_context: Any, phase: Phase) -> Any:
        if isinstance(request_context, _Listed):
            return tool.name in request_context.names
        if self.filter is None:
            return True
        return self.filter(tool, request_context, phase)

    # -- the tools -------------------------------------------------------------------------

    def _wrapped_tools(self) -> dict[str, FunctionTool]:
        config = self.search.config
        meta = mode_strategy(config.mode).meta_tools(config)
        tools = {definition.name: self._meta_tool(definition) for definition in meta}
        for tool in self.search.catalog:
            wrapped = replace(self._originals[tool.name], on_invoke_tool=self._invoke)
            if self.search.is_pinned(tool):
                wrapped = replace(wrapped, is_enabled=self._active(tool))
            tools[tool.name] = wrapped
        return tools

    def _meta_tool(self, definition: ToolDefinition) -> FunctionTool:
        return FunctionTool(
            name=definition.name,
            description=definition.description,
            params_json_schema=definition.input_schema,
            on_invoke_tool=self._invoke,
            strict_json_schema=False,
        )

    def _active(self, tool: Tool) -> Callable[..., Any]:
        """A pinned tool's `is_enabled`: the filter's `active` phase, with the run's context."""

        async def enabled(context: RunContextWrapper[Any], agent: Any) -> bool:
            policy = PolicyCheck(self.filter, context.context, timeout=self.settings.filter_timeout)
            return await policy.allows(tool, "active")

        return enabled

    def _sent(self, definition: ToolDefinition) -> FunctionTool:
        tool = self._tools[definition.tool_id or definition.name]
        if definition.kind == "meta":  # its description follows the mode and the step
            return replace(
                tool, description=definition.description, params_json_schema=definition.input_schema
            )
        return tool


class ToolScoutModel(Model):
    """An Agents SDK `Model` that sends each request only the tools `ToolScout` lists, and
    remembers each tool call's conversation for when it runs."""

    def __init__(self, model: Model | str, scout: ToolScout) -> None:
        self._model = model
        self.scout = scout

    @property
    def model(self) -> Model:
        """The wrapped model (a model name is resolved by the SDK's default provider)."""
        if isinstance(self._model, str):
            self._model = _resolved(self._model)
        return self._model

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        **options: Any,
    ) -> ModelResponse:
        thread_id = options.get("conversation_id")
        listed = await self.scout.listed(tools, input, thread_id)
        response = await self.model.get_response(
            system_instructions,
            input,
            model_settings,
            listed,
            output_schema,
            handoffs,
            tracing,
            **options,
        )
        self.scout.remember(input, response.output, thread_id)
        return response

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        **options: Any,
    ) -> AsyncIterator[TResponseStreamEvent]:
        thread_id = options.get("conversation_id")
        listed = await self.scout.listed(tools, input, thread_id)
        events = self.model.stream_response(
            system_instructions,
            input,
            model_settings,
            listed,
            output_schema,
            handoffs,
            tracing,
            **options,
        )
        async for event in events:
            if getattr(event, "type", None) == "response.completed":
                self.scout.remember(input, event.response.output, thread_id)  # type: ignore[union-attr]
            yield event

    def get_retry_advice(self, request: Any) -> Any:
        return self.model.get_retry_advice(request)

    async def close(self) -> None:
        await self.model.close()


async def _run_original(tool: FunctionTool, arguments: dict[str, Any]) -> Any:
    """Run the original tool with the call's context; its output is kept for the SDK."""
    call = _CURRENT_CALL.get()
    try:
        output = await tool.on_invoke_tool(call.context, json.dumps(arguments))
    except BaseException as error:
        call.raised.append(error)
        raise
    call.output.append(output)
    return output


def _function_tool(tool: FunctionTool | Callable[..., Any]) -> FunctionTool:
    return tool if isinstance(tool, FunctionTool) else function_tool(tool)


def _as_tool(tool: FunctionTool) -> Tool:
    async def handler(**arguments: Any) -> Any:
        return await _run_original(tool, arguments)

    name = tool.name

    return Tool(
        name=name,
        description=tool.description,
        input_schema=tool.params_json_schema,
        handler=handler,
    )


def _ours(tool: Any, tools: dict[str, FunctionTool]) -> bool:
    return isinstance(tool, FunctionTool) and tools.get(tool.name) is not None


def _items(items: str | list[TResponseInputItem]) -> list[Any]:
    return [] if isinstance(items, str) else list(items)


def _resolved(model: Model | str) -> Model:
    return MultiProvider().get_model(model) if isinstance(model, str) else model
