"""`ToolSearch`: what to send the model at each step, and how to answer each call it makes.

The core is async (`aprepare`, `aexecute`), because filters and tool handlers may be
coroutines. `prepare` and `execute` run the same code to completion for sync callers, on a
fresh event loop; from inside a running loop, await the async ones. Sync handlers run in a
worker thread under `aexecute` and in the caller's thread under `execute`.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import threading
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.errors import StateStoreError, StoreUnavailableError, ToolSearchConfigError
from toolscout.protocol import meta_tools, results
from toolscout.protocol.config import ToolSearchConfig, build_config
from toolscout.protocol.definitions import (
    DefinitionKind,
    ToolCall,
    ToolDefinition,
    ToolResult,
    result_text,
)
from toolscout.protocol.discoveries import Discoveries, deferred_tools
from toolscout.protocol.find import NOTHING_FOUND as NOTHING_FOUND
from toolscout.protocol.find import FoundTool, LeftOutTool, QueryAnswer, SearchAnswer, SearchScope
from toolscout.protocol.handlers import REQUEST_CONTEXT as REQUEST_CONTEXT
from toolscout.protocol.handlers import run_handler
from toolscout.protocol.modes import Listing, ModeStrategy, mode_strategy
from toolscout.protocol.policy import Phase, PolicyCheck, ToolPolicy
from toolscout.protocol.preload import latest_turn, preloaded_tools
from toolscout.protocol.stats import StatsRecorder, ToolSearchStats
from toolscout.protocol.view import CatalogView, catalog_view, check_clashes, is_pinned
from toolscout.search import ToolIndex
from toolscout.state.base import StateStore

if TYPE_CHECKING:
    from toolscout.protocol.arguments import ArgumentChecker

logger = logging.getLogger("toolscout.protocol")

STORE_FAILED = (
    "Tool search cannot reach the record of the tools this conversation discovered, so no "
    "tool can be found, loaded or called through it right now. Try again in a moment."
)
_ResultT = TypeVar("_ResultT")


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
        # The index ranks every tool of the catalog; each search hands it the view's
        # deferred tools as the ones it may return (`SearchScope`), so that `find` can still
        # say a pinned tool matched.
        self.index = index or ToolIndex(self.catalog, engine=self.config.engine)
        self.filter = filter
        self._discoveries = Discoveries(store, self.config.store_timeout)
        self._lock = threading.Lock()
        self._view_cache: CatalogView | None = None
        self._arguments: ArgumentChecker | None = None
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
        pinned tools, the caller's `tools`, meta-tools, then discovered tools in discovery
        order. So the list's prefix stays byte-identical between steps (prompt caching).
        With no deferred tool in the catalog, nothing is added.

        Args:
            thread_id: The conversation; None or "" for an anonymous one.
            messages: The conversation so far, in any supported provider shape.
            request_context: Anything the filter and handlers need (user, tenant...).
            tools: Tool definitions outside the catalog, in a provider's format; sent as
                they are, after the pinned tools.
            native: Use the provider's deferred loading (Anthropic `defer_loading`, OpenAI
                Responses client `tool_search`): every deferred tool the filter allows is
                listed as deferred, and search makes its hits callable at once.

        Raises:
            StoreUnavailableError: the store did not answer within `store_timeout` (in a
                mode whose list holds discovered tools: not `proxy`, nor `native`).
            StateStoreError: the store cannot be used (a damaged file...).
        """
        thread = _thread(thread_id)
        view = self._view()
        passthrough = self._passthrough(tools)
        policy = self._policy(request_context)
        definitions = [
            view.definition(tool, "pinned") for tool in await policy.allowed(view.pinned, "active")
        ]
        definitions += passthrough
        if view.deferred:
            strategy = mode_strategy(self.config.mode, native=native)

            async def discovered() -> list[ToolDefinition]:
                tools = await self._discoveries.allowed(view, policy, thread, messages)
                return await self._with_preloaded(tools, messages, strategy, view, policy)

            listing = Listing(self.config, view, policy, discovered)
            definitions += await strategy.list_deferred(listing)
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
        step = self._step(call, thread_id, request_context, messages, native, inline_sync=False)
        return await self._execute(call, step)

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
        step = self._step(call, thread_id, request_context, messages, native, inline_sync=True)
        return _run_sync(self._execute(call, step))

    async def _with_preloaded(
        self,
        discovered: list[Tool],
        messages: Sequence[Any],
        strategy: ModeStrategy,
        view: CatalogView,
        policy: PolicyCheck,
    ) -> list[ToolDefinition]:
        """The discovered tools as listed, with the tools preloaded for the latest user
        message after those discovered before it (`toolscout.protocol.preload`)."""
        before, preloaded = await self._preloaded(discovered, messages, strategy, view, policy)
        listed = {tool.id for tool in [*before, *preloaded]}
        return [
            *(view.definition(tool, "discovered") for tool in before),
            *(view.definition(tool, "preloaded") for tool in preloaded),
            *(view.definition(tool, "discovered") for tool in discovered if tool.id not in listed),
        ]

    async def _preloaded(
        self,
        discovered: list[Tool],
        messages: Sequence[Any],
        strategy: ModeStrategy,
        view: CatalogView,
        policy: PolicyCheck,
    ) -> tuple[list[Tool], list[Tool]]:
        """The tools discovered before the latest turn, and the tools preloaded for it."""
        turn = latest_turn(messages) if self.config.preload.enabled else None
        if turn is None:
            return discovered, []
        during = turn.discovered_during()
        before = [
            tool
            for tool in discovered
            if tool.id not in during and view.wire_name(tool) not in during
        ]
        scope = self._scope(strategy, view, policy, before)
        return before, await preloaded_tools(scope, view, turn.text, self.config.preload)

    # -- asking without a step -------------------------------------------------------------

    async def afind(
        self,
        queries: str | Sequence[str],
        *,
        discovered: Iterable[str] = (),
        request_context: Any = None,
        max_results: int | None = None,
        explain: bool = True,
    ) -> SearchAnswer:
        """What a `search_tools` call with `queries` would return in a conversation that has
        discovered `discovered`, and, for each query, the tools the ranking has that it
        leaves out and why. Nothing is remembered, no statistics are kept: it only asks.

        The answer follows the configured mode's search (`lazy` mode has no `search_tools`;
        there it ranks the tools its discovery tool lists): the filter's `search` phase, and
        `load` in the modes where a search makes its results callable (`auto_load`,
        `proxy`). Several queries share one call's results, as in `search_tools`: a tool
        an earlier query returned is not returned again.

        Args:
            queries: One query, or several.
            discovered: Names or ids of the tools the conversation has already discovered:
                they come after new tools.
            request_context: What the filter is asked with.
            max_results: Results per query, capped at `config.max_results` (its default),
                as the model's own `max_results` is.
            explain: Rank each query a second time, with no threshold and no filter, to
                say what is left out and why; False leaves `left_out` empty and costs one
                search per query, as `search_tools` does.

        Raises:
            ToolSearchConfigError: no query, or a query that is not text.
        """
        query_list = [queries] if isinstance(queries, str) else queries
        if (
            not isinstance(query_list, Sequence)
            or not query_list
            or not all(isinstance(query, str) for query in query_list)
        ):
            raise ToolSearchConfigError("find needs one or more queries, as strings")
        view = self._view()
        policy = self._policy(request_context)
        known = await policy.allowed(deferred_tools(view, discovered), "load", "active")
        scope = self._scope(mode_strategy(self.config.mode), view, policy, known)
        k = self._results_per_query(max_results)
        shown: set[str] = set()
        answers = []
        for query in query_list:
            earlier = set(shown)
            found, notice = await scope.found(query, k, shown)
            left_out: list[LeftOutTool] = []
            if explain:
                found, left_out = await scope.left_out(query, k, found, earlier)
            answers.append(QueryAnswer(query, tuple(found), tuple(left_out), notice))
        return SearchAnswer(tuple(answers), k, self.threshold)

    def find(
        self,
        queries: str | Sequence[str],
        *,
        discovered: Iterable[str] = (),
        request_context: Any = None,
        max_results: int | None = None,
        explain: bool = True,
    ) -> SearchAnswer:
        """`afind` for sync code."""
        return _run_sync(
            self.afind(
                queries,
                discovered=discovered,
                request_context=request_context,
                max_results=max_results,
                explain=explain,
            )
        )

    @property
    def store(self) -> StateStore | None:
        """Where each thread's discoveries are kept; None reads them from the messages."""
        return self._discoveries.store

    @store.setter
    def store(self, store: StateStore | None) -> None:
        self._discoveries.store = store

    @property
    def threshold(self) -> float:
        """The threshold searches run with: `config.threshold`, or the engine's default."""
        return self.index.threshold if self.config.threshold is None else self.config.threshold

    def is_pinned(self, tool: Tool) -> bool:
        """Whether `tool` is sent at every step and never found by search
        (`toolscout.protocol.view.is_pinned`, with `config.pinned`)."""
        return is_pinned(tool, self.config.pinned)

    def stats(self) -> ToolSearchStats:
        """Tokens of the tools sent so far, against sending every tool at every request."""
        view = self._view()
        return self._stats.snapshot(self.config, view.pinned + view.deferred)

    def handles(self, name: str) -> bool:
        """Whether a call to `name` is tool search's to answer (a meta-tool or a catalog
        tool); a framework routes other calls to their own handlers."""
        return name in self.config.meta_tool_names.model_dump().values() or (
            self._view().resolve(name) is not None
        )

    # -- execute ---------------------------------------------------------------------------

    def _step(
        self,
        call: ToolCall,
        thread_id: str | None,
        request_context: Any,
        messages: Sequence[Any],
        native: bool,
        *,
        inline_sync: bool,
    ) -> _Step:
        return _Step(
            _thread(thread_id),
            request_context,
            messages,
            self._policy(request_context),
            self._view(),
            mode_strategy(self.config.mode, native=native or call.native_search),
            inline_sync,
        )

    async def _execute(self, call: ToolCall, step: _Step) -> ToolResult:
        arguments, problem = call.parsed_arguments()
        if arguments is None:
            return self._error(call, f"Invalid call to {call.name}: {problem}.")
        action = "search" if call.native_search else step.mode.actions(self.config).get(call.name)
        try:
            if action == "search":
                result = await self._search(call, arguments, step)
            elif action == "load":
                result = await self._load(call, arguments, step)
            elif action == "reveal":
                result = await self._reveal(call, arguments, step)
            elif action == "call":
                result = await self._call_through(call, arguments, step)
            else:
                return await self._call(call, call.name, arguments, step)
        except (StoreUnavailableError, StateStoreError) as error:
            # Fail closed; the model reads why, the log says where.
            logger.warning("tool search refused %r: the store failed: %s", call.name, error)
            return self._error(call, STORE_FAILED)
        self._stats.record_result(result.content)
        return result

    async def _search(self, call: ToolCall, arguments: dict[str, Any], step: _Step) -> ToolResult:
        read, problem = meta_tools.read_arguments(
            meta_tools.SearchArguments,
            arguments,
            tool=call.name,
            example=f'{call.name}({{"queries": ["send email"]}})',
        )
        if read is None:
            return self._error(call, problem or "")
        mode = step.mode
        known = await self._discoveries.allowed(step.view, step.policy, *step.state)
        scope = self._scope(mode, step.view, step.policy, known)
        k = self._results_per_query(read.max_results)
        shown: set[str] = set()
        query_results = []
        for query in read.queries:
            found, notice = await scope.found(query, k, shown)
            entries = [self._result_entry(entry, step.view) for entry in found]
            query_results.append(results.QueryResult(query, entries, notice))
        found_tools = [entry for result in query_results for entry in result.found]
        if mode.activates:
            await self._discoveries.remember(
                step.thread_id,
                [step.view.by_name[e.definition.name] for e in found_tools if not e.available],
            )
        content = mode.search_text(self.config, query_results)
        loaded = tuple(entry.definition for entry in found_tools) if mode.loads_natively else ()
        return ToolResult(
            call.id, call.name, content, loaded_tools=loaded, native_search=call.native_search
        )

    def _scope(
        self, mode: ModeStrategy, view: CatalogView, policy: PolicyCheck, known: Iterable[Tool]
    ) -> SearchScope:
        """What a search in `mode` searches over, `known` being the conversation's tools."""
        return SearchScope(
            self.index,
            view,
            policy,
            mode.search_phases,
            frozenset(tool.id for tool in known),
            self.config.threshold,
            self.config.min_score,
        )

    def _results_per_query(self, asked: int | None) -> int:
        return min(asked or self.config.max_results, self.config.max_results)

    @staticmethod
    def _result_entry(entry: FoundTool, view: CatalogView) -> results.Found:
        definition = view.definition(entry.tool, "discovered")
        needer = entry.hit.prerequisite_of if entry.hit is not None else None
        needed_by = view.resolve(needer) if needer is not None else None
        return results.Found(
            definition,
            entry.normalized_score,
            available=entry.already_discovered,
            needed_by=view.wire_name(needed_by) if needed_by is not None else None,
        )

    async def _load(self, call: ToolCall, arguments: dict[str, Any], step: _Step) -> ToolResult:
        chosen, problems = await self._chosen(call, arguments, step, "names")
        if chosen is None:
            return self._error(call, problems[0])
        await self._discoveries.remember(step.thread_id, chosen)
        names = [step.view.wire_name(tool) for tool in chosen]
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
        await self._discoveries.remember(step.thread_id, chosen)
        definitions = [step.view.definition(tool, "discovered") for tool in chosen]
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
        self, call: ToolCall, arguments: dict[str, Any], step: _Step
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
        return await self._call(call, read.name, read.arguments, step)

    async def _call(
        self,
        call: ToolCall,
        name: str,
        arguments: dict[str, Any],
        step: _Step,
    ) -> ToolResult:
        """Run a catalog tool, if this conversation may call it now: a deferred tool it has
        not discovered only when `require_discovery` is off, and then only if the filter
        would let it be found (`search`) as well as loaded and called."""
        view, policy = step.view, step.policy
        tool = view.resolve(name)
        if tool is not None and tool.id in view.deferred_ids:
            known = {t.id for t in await self._discoveries.tools(view, *step.state)}
            if tool.id not in known:
                if not await policy.allows(tool, "search"):
                    tool = None  # a tool the filter hides is unknown, not "not loaded"
                elif (
                    self.config.require_discovery
                    and await policy.allows(tool, "load")
                    and not await self._is_preloaded(tool, step)
                ):
                    how = step.mode.how_to_discover(self.config, name)
                    return self._error(call, f"Tool {name!r} is not loaded yet: {how}.")
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
        outcome = await run_handler(
            tool,
            step.view.wire_name(tool),
            arguments,
            step.request_context,
            inline_sync=step.inline_sync,
        )
        if outcome.error is not None:
            return self._error(call, outcome.error)
        return ToolResult(call.id, call.name, result_text(outcome.value), value=outcome.value)

    async def _is_preloaded(self, tool: Tool, step: _Step) -> bool:
        """Whether `tool` is in the step's list as a tool preloaded for this turn (so it
        may be called even when `require_discovery` asks for a discovery first)."""
        if not step.mode.lists_discovered:
            return False
        discovered = await self._discoveries.allowed(step.view, step.policy, *step.state)
        _, preloaded = await self._preloaded(
            discovered, step.messages, step.mode, step.view, step.policy
        )
        return any(entry.id == tool.id for entry in preloaded)

    async def _did_you_mean(self, name: str, step: _Step) -> str:
        view, policy = step.view, step.policy
        candidates = [*view.wire_names.values(), *step.mode.actions(self.config)]
        close = difflib.get_close_matches(name, candidates, n=6, cutoff=0.6)
        allowed = []
        for candidate in close:
            tool = view.resolve(candidate)
            if tool is None or await policy.allows(
                tool, "search" if tool.id in view.deferred_ids else "active"
            ):
                allowed.append(candidate)
        return f" Did you mean: {', '.join(allowed[:3])}?" if allowed else ""

    async def _invalid_arguments(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        """What is wrong with the arguments, checked off the event loop in bounded time
        (`toolscout.protocol.arguments`)."""
        problems = await self._argument_checker().aproblems(tool, arguments)
        if not problems:
            return None
        view = self._view()
        expected = "\n".join(results.compact_definition(view.definition(tool, "discovered")))
        name = view.wire_name(tool)
        return f"Invalid arguments for {name}: {'; '.join(problems)}. Expected:\n{expected}"

    def _argument_checker(self) -> ArgumentChecker:
        # Built by the first call to a tool: jsonschema takes a tenth of a second to import,
        # which a `ToolSearch` that only prepares and searches (`find`, the CLI) never needs.
        with self._lock:
            if self._arguments is None:
                from toolscout.protocol.arguments import ArgumentChecker

                self._arguments = ArgumentChecker()
            return self._arguments

    def _error(self, call: ToolCall, message: str) -> ToolResult:
        return ToolResult(
            call.id, call.name, message, is_error=True, native_search=call.native_search
        )

    # -- the catalog as seen by tool search ------------------------------------------------

    def _view(self) -> CatalogView:
        view = self._view_cache
        if view is not None and view.version == self.catalog.version:
            return view
        with self._lock:
            view = self._view_cache = catalog_view(self.catalog, self.config)
            return view

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
        check_clashes(self.config, (definition.name for definition in definitions))
        return definitions

    def _definition(self, tool: Tool, kind: DefinitionKind) -> ToolDefinition:
        return self._view().definition(tool, kind)

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
    view: CatalogView
    mode: ModeStrategy
    """The strategy of the step's mode (`native` when the step uses the provider's own
    deferred loading)."""
    inline_sync: bool
    """Run a sync handler in the calling thread (`execute`) rather than a worker thread."""

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


def _run_sync(coroutine: Coroutine[Any, Any, _ResultT]) -> _ResultT:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise RuntimeError(
        "prepare(), execute() and find() are for sync code; inside an event loop, await "
        "aprepare(), aexecute() and afind()"
    )
