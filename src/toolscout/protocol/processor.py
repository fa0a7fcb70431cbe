"""`ToolSearch`: what to send the model at each step, and how to answer each call it makes.

The core is async (`aprepare`, `aexecute`), because filters and tool handlers may be
coroutines. `prepare` and `execute` run the same code to completion for sync callers, on a
fresh event loop; from inside a running loop, await the async ones. Sync handlers run in a
worker thread under `aexecute` and in the caller's thread under `execute`.
"""

from __future__ import annotations

import asyncio
import contextvars
import difflib
import functools
import hashlib
import inspect
import logging
import re
import threading
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.errors import StateStoreError, StoreUnavailableError, ToolSearchConfigError
from toolscout.protocol import meta_tools, results
from toolscout.protocol.arguments import ArgumentChecker
from toolscout.protocol.config import WIRE_NAME, ToolSearchConfig, build_config
from toolscout.protocol.context_store import ContextStore
from toolscout.protocol.definitions import (
    DefinitionKind,
    ToolCall,
    ToolDefinition,
    ToolResult,
    result_text,
)
from toolscout.protocol.policy import Phase, PolicyCheck, ToolPolicy
from toolscout.protocol.stats import StatsRecorder, ToolSearchStats
from toolscout.search import MAX_K, ToolIndex
from toolscout.state.base import StateStore
from toolscout.state.memory import InMemoryStore
from toolscout.state.offloop import OffLoopStore

REQUEST_CONTEXT: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "toolscout_request_context", default=None
)
"""The request context of the call a handler is running for; `REQUEST_CONTEXT.get()` reads it.
A handler with a `request_context` parameter that its input schema does not declare also
receives it as that argument."""

logger = logging.getLogger("toolscout.protocol")

STORE_FAILED = (
    "Tool search cannot reach the record of the tools this conversation discovered, so no "
    "tool can be found, loaded or called through it right now. Try again in a moment."
)
NOTHING_FOUND = (
    "No tool is relevant enough to this query. Do not retry the same words: describe the task "
    "differently, or go on without a tool."
)
_ResultT = TypeVar("_ResultT")


@dataclass(frozen=True)
class _CatalogView:
    """The catalog as tool search sees it, rebuilt when the catalog's version changes."""

    version: int
    always: list[Tool]
    """Sent at every step: pinned tools and tools that are not deferred, in catalog order."""
    deferred: list[Tool]
    """Hidden until discovered, in catalog order."""
    by_name: dict[str, Tool]
    """Tools by wire name and by id."""
    wire_names: dict[str, str]
    """Wire name by id."""
    deferred_ids: frozenset[str] = field(default_factory=frozenset)

    def resolve(self, name: str) -> Tool | None:
        return self.by_name.get(name)


class ToolSearch:
    """The per-step processor: tools to send (`prepare`) and calls to answer (`execute`).

    Args:
        catalog: The tools, as a `Catalog` or anything a `Catalog` accepts. Tools added at run
            time are searchable at once.
        config: A `ToolSearchConfig`; keyword `options` override its fields.
        store: Where each thread's discoveries are kept (`toolscout.state`). By default, and
            for every request without a thread id (`None` or `""`), they are read from the
            messages (`ContextStore`), so anonymous conversations never share state. A store
            other than `InMemoryStore` is called in worker threads, each call within
            `config.store_timeout` seconds (`toolscout.state.offloop`); a store that fails or
            stalls reveals nothing (see `aprepare` and `aexecute`).
        filter: `filter(tool, request_context, phase) -> bool`, sync or async; see
            `toolscout.protocol.policy`.
        index: A `ToolIndex` over `catalog` to search with; built from `config.engine` if
            not given.

    Raises:
        ToolSearchConfigError: an invalid option, or a tool named like a meta-tool.
    """

    def __init__(
        self,
        catalog: Catalog | Iterable[Any],
        config: ToolSearchConfig | None = None,
        *,
        store: StateStore | None = None,
        filter: ToolPolicy | None = None,
        index: ToolIndex | None = None,
        **options: Any,
    ) -> None:
        self.config = build_config(config, options)
        self.catalog = catalog if isinstance(catalog, Catalog) else Catalog(catalog)
        if index is not None and index.catalog is not self.catalog:
            raise ToolSearchConfigError("index must search the same Catalog object as catalog")
        self.index = index or ToolIndex(self.catalog, engine=self.config.engine)
        self.store = store
        self.filter = filter
        self._context = ContextStore()
        self._offloop: OffLoopStore | None = None
        self._lock = threading.Lock()
        self._view_cache: _CatalogView | None = None
        self._arguments = ArgumentChecker()
        self._stats = StatsRecorder()
        self._view()  # a clash with a meta-tool name is reported now, not at the first step

    # -- the two steps ---------------------------------------------------------------------

    async def aprepare(
        self,
        thread_id: str | None = None,
        messages: Sequence[Any] = (),
        request_context: Any = None,
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        native: bool = False,
    ) -> list[ToolDefinition]:
        """The tools to send for this step, in an order that only ever grows at the end:
        always-visible tools, the caller's `tools`, meta-tools, then discovered tools in
        discovery order. So the list's prefix stays byte-identical between steps (prompt
        caching). With no deferred tool in the catalog, nothing is added.

        Args:
            thread_id: The conversation; None or "" for an anonymous one.
            messages: The conversation so far, in any supported provider shape.
            request_context: Anything the filter and handlers need (user, tenant...).
            tools: Tool definitions outside the catalog, in a provider's format; sent as
                they are, after the always-visible tools.
            native: Use the provider's deferred loading (Anthropic `defer_loading`, OpenAI
                Responses client `tool_search`): every deferred tool the filter allows is
                listed as deferred, and search makes its hits callable at once.

        Raises:
            StoreUnavailableError: the store did not answer within `store_timeout` (in a
                mode whose list holds discovered tools: not `proxy`, nor `native`).
            StateStoreError: the store cannot be used (a damaged file...).
        """
        thread_id = _thread(thread_id)
        view = self._view()
        passthrough = self._passthrough(tools)
        policy = self._policy(request_context)
        definitions = [
            self._definition(tool, "pinned") for tool in await policy.allowed(view.always, "active")
        ]
        definitions += passthrough
        if view.deferred:
            definitions += await self._deferred_part(view, policy, thread_id, messages, native)
        self._stats.record_request(definitions, passthrough)
        return definitions

    async def aexecute(
        self,
        call: ToolCall,
        thread_id: str | None = None,
        request_context: Any = None,
        *,
        messages: Sequence[Any] = (),
        native: bool = False,
    ) -> ToolResult:
        """Answer one call: run a meta-tool, or route a real call to its tool's handler.

        Every refusal is a result the model can act on (how to discover the tool, the names
        it may have meant, what is wrong with the arguments), never an exception. A store
        that fails or does not answer within `store_timeout` is one too: the call is
        refused, nothing is revealed, and the store's error is logged.

        Args:
            call: The call, as a provider module parsed it.
            thread_id: The conversation; None or "" for an anonymous one.
            request_context: Passed to the filter, and to the handler.
            messages: The conversation so far: the state of anonymous conversations and of
                `ContextStore` is read from it.
            native: The step was prepared with `native=True`.
        """
        return await self._execute(call, thread_id, request_context, messages, native, False)

    def prepare(
        self,
        thread_id: str | None = None,
        messages: Sequence[Any] = (),
        request_context: Any = None,
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        native: bool = False,
    ) -> list[ToolDefinition]:
        """`aprepare` for sync code."""
        return _run_sync(
            self.aprepare(thread_id, messages, request_context, tools=tools, native=native)
        )

    def execute(
        self,
        call: ToolCall,
        thread_id: str | None = None,
        request_context: Any = None,
        *,
        messages: Sequence[Any] = (),
        native: bool = False,
    ) -> ToolResult:
        """`aexecute` for sync code; sync handlers run in the calling thread."""
        return _run_sync(
            self._execute(call, thread_id, request_context, messages, native, inline_sync=True)
        )

    def stats(self) -> ToolSearchStats:
        """Tokens of the tools sent so far, against sending every tool at every request."""
        return self._stats.snapshot(self.config, self._view().always + self._view().deferred)

    def handles(self, name: str) -> bool:
        """Whether a call to `name` is tool search's to answer (a meta-tool or a catalog
        tool); a framework routes other calls to their own handlers."""
        return name in self.config.meta_tool_names.model_dump().values() or (
            self._view().resolve(name) is not None
        )

    # -- prepare ---------------------------------------------------------------------------

    async def _deferred_part(
        self,
        view: _CatalogView,
        policy: PolicyCheck,
        thread_id: str | None,
        messages: Sequence[Any],
        native: bool,
    ) -> list[ToolDefinition]:
        if native:
            hidden = await policy.allowed(view.deferred, "search", "load", "active")
            return [
                meta_tools.search_tool(self.config, native=True),
                *(self._definition(tool, "deferred") for tool in hidden),
            ]
        mode = self.config.mode
        if mode == "proxy":  # the list never holds discovered tools: the store is not asked
            return [meta_tools.search_tool(self.config), meta_tools.call_tool(self.config)]
        discovered = await self._discovered(view, policy, thread_id, messages)
        discovered_definitions = [self._definition(tool, "discovered") for tool in discovered]
        if mode == "load":
            return [
                meta_tools.search_tool(self.config),
                meta_tools.load_tool(self.config),
                *discovered_definitions,
            ]
        if mode == "auto_load":
            return [meta_tools.search_tool(self.config), *discovered_definitions]
        listed = await policy.allowed(view.deferred, "search")
        known = {tool.id for tool in discovered}
        if all(tool.id in known for tool in listed):
            return discovered_definitions  # everything found: the discovery tool retires
        lazy = meta_tools.lazy_tool(
            self.config, [self._definition(tool, "deferred") for tool in listed]
        )
        return [lazy, *discovered_definitions]

    async def _discovered(
        self,
        view: _CatalogView,
        policy: PolicyCheck,
        thread_id: str | None,
        messages: Sequence[Any],
    ) -> list[Tool]:
        """The thread's discovered tools that this request may see.

        The load phase is asked again: a discovery read from client-sent messages proves
        nothing, and the policy may have changed since.
        """
        tools = await self._discovered_tools(view, thread_id, messages)
        return await policy.allowed(tools, "load", "active")

    async def _discovered_tools(
        self, view: _CatalogView, thread_id: str | None, messages: Sequence[Any]
    ) -> list[Tool]:
        """The thread's discovered tools still in the catalog and deferred, in order."""
        if thread_id is None or self.store is None:
            names = self._context.load(thread_id, messages)
        elif isinstance(self.store, InMemoryStore):  # answers at once: no thread needed
            names = self.store.load(thread_id, messages)
        else:
            names = await self._store_calls(self.store).load(thread_id, messages)
        tools: dict[str, Tool] = {}
        for name in names:
            tool = view.resolve(name)
            if tool is not None and tool.id in view.deferred_ids:
                tools.setdefault(tool.id, tool)
        return list(tools.values())

    async def _remember(self, thread_id: str | None, tools: Sequence[Tool]) -> None:
        if not tools or thread_id is None or self.store is None:
            return  # an anonymous conversation's discoveries are in its messages
        ids = [tool.id for tool in tools]
        if isinstance(self.store, InMemoryStore):
            self.store.save(thread_id, ids)
        else:
            await self._store_calls(self.store).save(thread_id, ids)

    def _store_calls(self, store: StateStore) -> OffLoopStore:
        calls = self._offloop
        if calls is None or calls.store is not store:  # `self.store` may have been replaced
            calls = self._offloop = OffLoopStore(store, self.config.store_timeout)
        return calls

    # -- execute ---------------------------------------------------------------------------

    async def _execute(
        self,
        call: ToolCall,
        thread_id: str | None,
        request_context: Any,
        messages: Sequence[Any],
        native: bool,
        inline_sync: bool,
    ) -> ToolResult:
        view = self._view()
        step = _Step(
            _thread(thread_id), request_context, messages, self._policy(request_context), view
        )
        names = self.config.meta_tool_names
        mode = self.config.mode
        native = native or call.native_search
        arguments, problem = call.parsed_arguments()
        if arguments is None:
            return self._error(call, f"Invalid call to {call.name}: {problem}.")
        try:
            if call.native_search or (call.name == names.search and (native or mode != "lazy")):
                result = await self._search(call, arguments, step, native)
            elif call.name == names.load and mode == "load" and not native:
                result = await self._load(call, arguments, step)
            elif call.name == names.lazy and mode == "lazy" and not native:
                result = await self._reveal(call, arguments, step)
            elif call.name == names.call and mode == "proxy" and not native:
                result = await self._call_through(call, arguments, step, inline_sync)
            else:
                return await self._call(call, call.name, arguments, step, native, inline_sync)
        except (StoreUnavailableError, StateStoreError) as error:
            # Fail closed; the model reads why, the log says where.
            logger.warning("tool search refused %r: the store failed: %s", call.name, error)
            return self._error(call, STORE_FAILED)
        self._stats.record_result(result.content)
        return result

    async def _search(
        self, call: ToolCall, arguments: dict[str, Any], step: _Step, native: bool
    ) -> ToolResult:
        read, problem = meta_tools.read_arguments(
            meta_tools.SearchArguments,
            arguments,
            tool=call.name,
            example=f'{call.name}({{"queries": ["send email"]}})',
        )
        if read is None:
            return self._error(call, problem or "")
        mode = self.config.mode
        activates = native or mode in ("auto_load", "proxy")
        phases: tuple[Phase, ...] = ("search", "load") if activates else ("search",)
        k = min(read.max_results or self.config.max_results, self.config.max_results)
        known = {tool.id for tool in await self._discovered(step.view, step.policy, *step.state)}
        shown: set[str] = set()
        query_results = []
        for query in read.queries:
            found, notice = await self._find(query, k, step, phases, known, shown)
            query_results.append(results.QueryResult(query, found, notice))
        found_tools = [entry for result in query_results for entry in result.found]
        if activates:
            await self._remember(
                step.thread_id,
                [step.view.by_name[e.definition.name] for e in found_tools if not e.available],
            )
        content = self._search_text(query_results, native=native)
        return ToolResult(
            call.id,
            call.name,
            content,
            loaded_tools=tuple(entry.definition for entry in found_tools) if native else (),
            native_search=call.native_search,
        )

    def _search_text(self, query_results: Sequence[results.QueryResult], *, native: bool) -> str:
        """The text of a `search_tools` result, as this mode words it."""
        names = self.config.meta_tool_names
        fmt = self.config.result_format
        found = [entry.definition.name for result in query_results for entry in result.found]
        if self.config.mode == "proxy" and not native:
            return results.search_definitions(
                query_results,
                fmt,
                next_step=f"Run one with {names.call}." if found else "",
                available=found,
            )
        if self.config.mode == "load" and not native:
            return results.search_summary(
                query_results,
                fmt,
                next_step=f"Pass the names you need to {names.load}." if found else "",
            )
        return results.search_summary(
            query_results,
            fmt,
            next_step="These tools are callable from your next step." if found else "",
            available=found,
        )

    async def _find(
        self,
        query: str,
        k: int,
        step: _Step,
        phases: tuple[Phase, ...],
        known: set[str],
        shown: set[str],
    ) -> tuple[list[results.Found], str | None]:
        """Up to `k` allowed deferred tools for `query`: new ones first, then ones already
        available if slots are left; an exact tool name comes first."""
        view = step.view
        fresh: list[results.Found] = []
        again: list[results.Found] = []

        async def consider(tool: Tool, score: float) -> None:
            if tool.id in shown or not await step.policy.allows(tool, *phases):
                return
            shown.add(tool.id)
            entry = results.Found(
                self._definition(tool, "discovered"), score, available=tool.id in known
            )
            (again if entry.available else fresh).append(entry)

        exact = view.resolve(query.strip())
        if exact is not None and exact.id in view.deferred_ids:
            await consider(exact, 1.0)
        limit = min(MAX_K, 2 * k)
        while True:
            search = functools.partial(
                self.index.search,
                query,
                k=limit,
                threshold=self.config.threshold,
                min_score=self.config.min_score,
                filter=lambda tool: tool.id in view.deferred_ids,
            )
            # A pattern may cost RE2 its whole time budget, and the compilation before it
            # (`RegexOptions`): off the event loop, other sessions do not wait for it.
            slow = self.index.engine_name == "regex"
            hits = await asyncio.to_thread(search) if slow else search()
            for hit in hits:
                if len(fresh) >= k:
                    break
                await consider(hit.tool, hit.normalized_score)
            if len(fresh) >= k or len(hits) < limit or limit >= MAX_K:
                break
            limit = min(MAX_K, 4 * limit)
        found = (fresh + again)[:k]
        if found:
            return found, None
        return [], (hits.notice if not hits else None) or NOTHING_FOUND

    async def _load(self, call: ToolCall, arguments: dict[str, Any], step: _Step) -> ToolResult:
        chosen, problems = await self._chosen(call, arguments, step, "names")
        if chosen is None:
            return self._error(call, problems[0])
        await self._remember(step.thread_id, chosen)
        names = [self._wire_name(tool) for tool in chosen]
        content = results.loaded(
            names,
            self.config.result_format,
            problems=problems,
            next_step="Call them directly from your next step." if names else "",
        )
        return ToolResult(call.id, call.name, content, is_error=not names)

    async def _reveal(self, call: ToolCall, arguments: dict[str, Any], step: _Step) -> ToolResult:
        chosen, problems = await self._chosen(call, arguments, step, "tool_names")
        if chosen is None:
            return self._error(call, problems[0])
        await self._remember(step.thread_id, chosen)
        definitions = [self._definition(tool, "discovered") for tool in chosen]
        content = results.definitions(
            definitions,
            self.config.result_format,
            problems=problems,
            next_step="Call them directly from your next step." if definitions else "",
            available=[definition.name for definition in definitions],
        )
        return ToolResult(call.id, call.name, content, is_error=not definitions)

    async def _chosen(
        self, call: ToolCall, arguments: dict[str, Any], step: _Step, key: str
    ) -> tuple[list[Tool] | None, list[str]]:
        """The deferred tools named in a `load_tool` or lazy discovery call that may be
        discovered, and a sentence for each name that may not."""
        read, problem = meta_tools.read_arguments(
            meta_tools.NamesArguments,
            arguments,
            tool=call.name,
            example=f'{call.name}({{"{key}": ["tool_name"]}})',
        )
        if read is None:
            return None, [problem or ""]
        chosen: dict[str, Tool] = {}
        problems = []
        for name in read.names:
            tool = step.view.resolve(name)
            if tool is not None and tool.id not in step.view.deferred_ids:
                if await step.policy.allows(tool, "active"):
                    problems.append(f"{name} is always available: call it directly.")
                    continue
                tool = None
            if tool is None or not await step.policy.allows(tool, "search"):
                problems.append(f"Unknown tool {name!r}.{await self._did_you_mean(name, step)}")
            elif not await step.policy.allows(tool, "load"):
                problems.append(f"Tool {name!r} is not available.")
            else:
                chosen.setdefault(tool.id, tool)
        return list(chosen.values()), problems

    async def _call_through(
        self, call: ToolCall, arguments: dict[str, Any], step: _Step, inline_sync: bool
    ) -> ToolResult:
        names = self.config.meta_tool_names
        read, problem = meta_tools.read_arguments(
            meta_tools.CallArguments,
            arguments,
            tool=call.name,
            example=f'{names.call}({{"name": "tool_name", "arguments": {{...}}}})',
        )
        if read is None:
            return self._error(call, problem or "")
        if read.name in names.model_dump().values():
            return self._error(call, f"{read.name} is a meta-tool: call it directly.")
        return await self._call(call, read.name, read.arguments, step, False, inline_sync)

    async def _call(
        self,
        call: ToolCall,
        name: str,
        arguments: dict[str, Any],
        step: _Step,
        native: bool,
        inline_sync: bool,
    ) -> ToolResult:
        """Run a catalog tool, if this conversation may call it now: a deferred tool it has
        not discovered only when `require_discovery` is off, and then only if the filter
        would let it be found (`search`) as well as loaded and called."""
        view, policy = step.view, step.policy
        tool = view.resolve(name)
        if tool is not None and tool.id in view.deferred_ids:
            known = {t.id for t in await self._discovered_tools(view, *step.state)}
            if tool.id not in known:
                if not await policy.allows(tool, "search"):
                    tool = None  # a tool the filter hides is unknown, not "not loaded"
                elif self.config.require_discovery and await policy.allows(tool, "load"):
                    return self._error(call, self._how_to_discover(name, native))
        elif tool is not None and not await policy.allows(tool, "active"):
            tool = None  # a tool the filter leaves out of the list is unknown, as if excluded
        if tool is None:
            return self._error(
                call, f"Unknown tool {name!r}.{await self._did_you_mean(name, step)}"
            )
        phases: tuple[Phase, ...] = ("active", "call")
        if tool.id in view.deferred_ids:
            phases = ("load", "active", "call")
        if not await policy.allows(tool, *phases):
            return self._error(call, f"Tool {name!r} is not available.")
        problem = await self._invalid_arguments(tool, arguments)
        if problem:
            return self._error(call, problem)
        return await self._run(call, tool, arguments, step.request_context, inline_sync)

    def _how_to_discover(self, name: str, native: bool) -> str:
        names = self.config.meta_tool_names
        mode = self.config.mode
        if mode == "load" and not native:
            how = f'call {names.load} with {{"names": ["{name}"]}}, then call it'
        elif mode == "lazy" and not native:
            how = f'call {names.lazy} with {{"tool_names": ["{name}"]}}, then call it'
        elif mode == "proxy" and not native:
            how = (
                f'call {names.search} with {{"queries": ["{name}"]}}, then run it with '
                f'{names.call}({{"name": "{name}", "arguments": {{...}}}})'
            )
        else:
            how = f'call {names.search} with {{"queries": ["{name}"]}}, then call it'
        return f"Tool {name!r} is not loaded yet: {how}."

    async def _did_you_mean(self, name: str, step: _Step) -> str:
        view, policy = step.view, step.policy
        candidates = [*view.wire_names.values(), *self._active_meta_names()]
        close = difflib.get_close_matches(name, candidates, n=6, cutoff=0.6)
        allowed = []
        for candidate in close:
            tool = view.resolve(candidate)
            if tool is None or await policy.allows(
                tool, "search" if tool.id in view.deferred_ids else "active"
            ):
                allowed.append(candidate)
        return f" Did you mean: {', '.join(allowed[:3])}?" if allowed else ""

    def _active_meta_names(self) -> tuple[str, ...]:
        return meta_tools.meta_tool_names(self.config.mode, self.config)

    async def _invalid_arguments(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        """What is wrong with the arguments, checked off the event loop in bounded time
        (`toolscout.protocol.arguments`)."""
        problems = await self._arguments.aproblems(tool, arguments)
        if not problems:
            return None
        expected = "\n".join(results.compact_definition(self._definition(tool, "discovered")))
        name = self._wire_name(tool)
        return f"Invalid arguments for {name}: {'; '.join(problems)}. Expected:\n{expected}"

    async def _run(
        self,
        call: ToolCall,
        tool: Tool,
        arguments: dict[str, Any],
        request_context: Any,
        inline_sync: bool,
    ) -> ToolResult:
        name = self._wire_name(tool)
        handler = tool.handler
        if handler is None:
            return self._error(call, f"Tool {name!r} has no handler in this process.")
        kwargs = dict(arguments)
        if _wants_request_context(handler, tool):
            kwargs["request_context"] = request_context
        token = REQUEST_CONTEXT.set(request_context)
        try:
            if inline_sync or _is_async(handler):
                value = handler(**kwargs)
            else:
                value = await asyncio.to_thread(functools.partial(handler, **kwargs))
            if inspect.isawaitable(value):
                value = await value
        except Exception as error:
            logger.info("tool %r failed", tool.id, exc_info=True)
            return self._error(call, f"Tool {name!r} failed: {type(error).__name__}: {error}")
        finally:
            REQUEST_CONTEXT.reset(token)
        return ToolResult(call.id, call.name, result_text(value), value=value)

    def _error(self, call: ToolCall, message: str) -> ToolResult:
        return ToolResult(
            call.id, call.name, message, is_error=True, native_search=call.native_search
        )

    # -- the catalog as seen by tool search ------------------------------------------------

    def _view(self) -> _CatalogView:
        view = self._view_cache
        if view is not None and view.version == self.catalog.version:
            return view
        with self._lock:
            version, tools = self.catalog.snapshot()
            pinned_ids = set(self.config.pinned)
            missing = pinned_ids - {tool.id for tool in tools}
            if missing:
                raise ToolSearchConfigError(
                    f"pinned tools {sorted(missing)} are not in the catalog; pin tools by id"
                )
            always = [t for t in tools if t.pinned or not t.deferred or t.id in pinned_ids]
            always_ids = {tool.id for tool in always}
            deferred = [tool for tool in tools if tool.id not in always_ids]
            wire_names = {tool.id: _wire_name(tool.id) for tool in tools}
            by_name = {tool.id: tool for tool in tools}
            by_name.update({wire_names[tool.id]: tool for tool in tools})
            self._check_clashes(wire_names.values())
            view = _CatalogView(
                version,
                always,
                deferred,
                by_name,
                wire_names,
                frozenset(tool.id for tool in deferred),
            )
            self._view_cache = view
            return view

    def _check_clashes(self, names: Iterable[str]) -> None:
        meta = self.config.meta_tool_names.model_dump()
        clashes = sorted(set(names) & set(meta.values()))
        if clashes:
            field_name = next(key for key, value in meta.items() if value == clashes[0])
            raise ToolSearchConfigError(
                f"a tool is named {clashes[0]!r}, like tool search's own meta-tool; rename it, "
                f"or choose another name with meta_tool_names={{'{field_name}': ...}}"
            )

    def _passthrough(self, tools: Sequence[Mapping[str, Any]]) -> list[ToolDefinition]:
        definitions = []
        for raw in tools:
            if not isinstance(raw, Mapping):
                raise ToolSearchConfigError(
                    f"tools passed to prepare must be provider tool definitions (dicts), got "
                    f"{type(raw).__name__}; put Python functions and Tool objects in the catalog"
                )
            function = raw.get("function")
            name = raw.get("name") or (
                function.get("name") if isinstance(function, Mapping) else ""
            )
            definitions.append(
                ToolDefinition(
                    str(name or ""),
                    str(raw.get("description") or ""),
                    {},
                    "passthrough",
                    raw=dict(raw),
                )
            )
        self._check_clashes(definition.name for definition in definitions)
        return definitions

    def _definition(self, tool: Tool, kind: DefinitionKind) -> ToolDefinition:
        return ToolDefinition(
            self._wire_name(tool),
            tool.description,
            tool.input_schema,
            kind,
            tool_id=tool.id,
            tool=tool,
        )

    def _wire_name(self, tool: Tool) -> str:
        return self._view().wire_names.get(tool.id) or _wire_name(tool.id)

    def _policy(self, request_context: Any) -> PolicyCheck:
        return PolicyCheck(self.filter, request_context, timeout=self.config.filter_timeout)

    def __repr__(self) -> str:
        return (
            f"ToolSearch({self.catalog!r}, mode={self.config.mode!r}, "
            f"engine={self.config.engine!r}, store={self.store!r})"
        )


@dataclass(frozen=True)
class _Step:
    """What one `execute` call knows about its request."""

    thread_id: str | None
    request_context: Any
    messages: Sequence[Any]
    policy: PolicyCheck
    view: _CatalogView

    @property
    def state(self) -> tuple[str | None, Sequence[Any]]:
        return self.thread_id, self.messages


def _thread(thread_id: str | None) -> str | None:
    """The conversation's thread id, or None for an anonymous one (`None` or `""`, as
    stores read them), whose discoveries are read from its messages.

    Raises:
        StateStoreError: a thread id that is not text.
    """
    if thread_id is None or thread_id == "":
        return None
    if not isinstance(thread_id, str):
        raise StateStoreError(f"thread_id must be a string or None, got {type(thread_id).__name__}")
    return thread_id


def _wire_name(tool_id: str) -> str:
    """The id, or, when the id is not a valid OpenAI / Anthropic tool name, the id with every
    other character replaced by `_`, cut, and a short hash of the id appended (unique)."""
    if WIRE_NAME.match(tool_id):
        return tool_id
    digest = hashlib.blake2b(tool_id.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return re.sub(r"[^A-Za-z0-9_-]", "_", tool_id)[:55] + "_" + digest


def _wants_request_context(handler: Any, tool: Tool) -> bool:
    properties = tool.input_schema.get("properties")
    if isinstance(properties, Mapping) and "request_context" in properties:
        return False
    try:
        return "request_context" in inspect.signature(handler).parameters
    except (TypeError, ValueError):
        return False


def _is_async(handler: Any) -> bool:
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 - an async callable object
    )


def _run_sync(coroutine: Coroutine[Any, Any, _ResultT]) -> _ResultT:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise RuntimeError(
        "prepare() and execute() are for sync code; inside an event loop, await aprepare() and "
        "aexecute()"
    )
