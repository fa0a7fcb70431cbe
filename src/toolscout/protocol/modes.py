"""The modes, each a small strategy: its meta-tools, how a step lists the deferred part, how
its results and hints are worded, and which calls it answers itself.

`ToolSearch` asks the strategy of the step (`mode_strategy`) and never branches on the mode:
a new mode is a subclass here, registered in `MODES` and named in `Mode`. `native` is the
strategy of a step prepared with the provider's own deferred loading, whatever the
configured mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, TypeAlias

from toolscout.protocol import meta_tools, results
from toolscout.protocol.config import Mode, ToolSearchConfig
from toolscout.protocol.definitions import ToolCall, ToolDefinition
from toolscout.protocol.policy import Phase, PolicyCheck
from toolscout.protocol.view import CatalogView

Action: TypeAlias = Literal["search", "load", "reveal", "call"]
"""A meta-tool call's job: search the deferred tools, make named ones callable (`load`),
return named ones' definitions (`reveal`), or run one by name (`call`)."""

CALLABLE_NEXT = "These tools are callable from your next step."


@dataclass(frozen=True)
class Listing:
    """What a mode needs to list the deferred part of one step."""

    config: ToolSearchConfig
    view: CatalogView
    policy: PolicyCheck
    discovered: Callable[[], Awaitable[list[ToolDefinition]]]
    """The conversation's discovered tools that this request may see, with this turn's
    preloaded ones (`toolscout.protocol.preload`), in list order; asks the store."""


class ModeStrategy:
    """One mode. Subclasses set `name`, `activates` and `search_effect`, and override what
    differs from the defaults (the `auto_load` behaviour)."""

    name: Mode | Literal["native"]
    activates: bool = False
    """Whether a search makes its hits callable at once (and so asks the filter's `load`
    phase as well as `search`, and remembers them)."""
    search_effect: str = ""
    """What `search_tools`' description says its results are for."""
    lists_discovered: bool = True
    """Whether a step's list holds the tools discovered so far, so that a discovery changes
    it (not in `proxy`, whose list never changes)."""
    loads_natively: bool = False
    """Whether the provider loads the tools a search finds: the result carries their
    definitions (`ToolResult.loaded_tools`)."""

    @property
    def search_phases(self) -> tuple[Phase, ...]:
        """The filter phases a tool must pass to be a search result."""
        return ("search", "load") if self.activates else ("search",)

    def actions(self, config: ToolSearchConfig) -> Mapping[str, Action]:
        """The meta-tools a call may name in this mode, and their jobs; any other name is
        a call to a catalog tool."""
        return {config.meta_tool_names.search: "search"}

    def search_tool(self, config: ToolSearchConfig) -> ToolDefinition:
        """`search_tools`, worded for this mode."""
        return meta_tools.search_tool(config, self.search_effect)

    def meta_tools(
        self, config: ToolSearchConfig, listed: Sequence[ToolDefinition] = ()
    ) -> list[ToolDefinition]:
        """This mode's meta-tools; `listed` are the deferred tools a listing tool shows."""
        return [self.search_tool(config)]

    async def list_deferred(self, step: Listing) -> list[ToolDefinition]:
        """The part of a step's tool list after the pinned and caller's tools."""
        return [*self.meta_tools(step.config), *await step.discovered()]

    def search_text(
        self, config: ToolSearchConfig, query_results: Sequence[results.QueryResult]
    ) -> str:
        """The text of a `search_tools` result."""
        found = _found_names(query_results)
        return results.search_summary(
            query_results,
            config.result_format,
            next_step=CALLABLE_NEXT if found else "",
            available=found,
        )

    discovers_by_search: bool = True
    """Whether the model finds tools through `search_tools` (else through a listing)."""

    def how_to_discover(self, config: ToolSearchConfig, name: str) -> str:
        """The call that makes the deferred tool `name` callable, as a hint."""
        return f'call {config.meta_tool_names.search} with {{"queries": ["{name}"]}}, then call it'

    def discovery_calls(self, config: ToolSearchConfig, names: list[str]) -> list[ToolCall]:
        """The calls, after any search, that make the tools `names` callable."""
        return []


class LoadMode(ModeStrategy):
    """`search_tools` names tools; `load_tool` makes the chosen ones callable next step."""

    name = "load"

    def actions(self, config: ToolSearchConfig) -> Mapping[str, Action]:
        names = config.meta_tool_names
        return {names.search: "search", names.load: "load"}

    def search_tool(self, config: ToolSearchConfig) -> ToolDefinition:
        effect = (
            "Returns matching tool names with a short description and a score; pass the "
            f"names you need to {config.meta_tool_names.load}, then call them."
        )
        return meta_tools.search_tool(config, effect)

    def meta_tools(
        self, config: ToolSearchConfig, listed: Sequence[ToolDefinition] = ()
    ) -> list[ToolDefinition]:
        return [self.search_tool(config), meta_tools.load_tool(config)]

    def search_text(
        self, config: ToolSearchConfig, query_results: Sequence[results.QueryResult]
    ) -> str:
        found = _found_names(query_results)
        return results.search_summary(
            query_results,
            config.result_format,
            next_step=f"Pass the names you need to {config.meta_tool_names.load}." if found else "",
        )

    def how_to_discover(self, config: ToolSearchConfig, name: str) -> str:
        return f'call {config.meta_tool_names.load} with {{"names": ["{name}"]}}, then call it'

    def discovery_calls(self, config: ToolSearchConfig, names: list[str]) -> list[ToolCall]:
        return [ToolCall(config.meta_tool_names.load, {"names": names}, id="load")]


class AutoLoadMode(ModeStrategy):
    """`search_tools` makes its hits callable from the next step."""

    name = "auto_load"
    activates = True
    search_effect = (
        "Returns matching tool names with a short description; they become callable on your "
        "next step."
    )


class ProxyMode(ModeStrategy):
    """The list never changes: `search_tools` returns definitions, `call_tool` runs them.
    Nothing is preloaded, since that would change the list."""

    name = "proxy"
    activates = True
    lists_discovered = False

    def actions(self, config: ToolSearchConfig) -> Mapping[str, Action]:
        names = config.meta_tool_names
        return {names.search: "search", names.call: "call"}

    def search_tool(self, config: ToolSearchConfig) -> ToolDefinition:
        effect = (
            "Returns each matching tool's name, description and parameters; run one with "
            f"{config.meta_tool_names.call}."
        )
        return meta_tools.search_tool(config, effect)

    def meta_tools(
        self, config: ToolSearchConfig, listed: Sequence[ToolDefinition] = ()
    ) -> list[ToolDefinition]:
        return [self.search_tool(config), meta_tools.call_tool(config)]

    async def list_deferred(self, step: Listing) -> list[ToolDefinition]:
        return self.meta_tools(step.config)  # never discovered tools: the store is not asked

    def search_text(
        self, config: ToolSearchConfig, query_results: Sequence[results.QueryResult]
    ) -> str:
        found = _found_names(query_results)
        return results.search_definitions(
            query_results,
            config.result_format,
            next_step=f"Run one with {config.meta_tool_names.call}." if found else "",
            available=found,
        )

    def how_to_discover(self, config: ToolSearchConfig, name: str) -> str:
        names = config.meta_tool_names
        return (
            f'call {names.search} with {{"queries": ["{name}"]}}, then run it with '
            f'{names.call}({{"name": "{name}", "arguments": {{...}}}})'
        )


class LazyMode(ModeStrategy):
    """One discovery tool lists the deferred tools and returns definitions by name."""

    name = "lazy"
    discovers_by_search = False

    def actions(self, config: ToolSearchConfig) -> Mapping[str, Action]:
        return {config.meta_tool_names.lazy: "reveal"}

    def meta_tools(
        self, config: ToolSearchConfig, listed: Sequence[ToolDefinition] = ()
    ) -> list[ToolDefinition]:
        return [meta_tools.lazy_tool(config, list(listed))]

    async def list_deferred(self, step: Listing) -> list[ToolDefinition]:
        definitions = await step.discovered()
        listed = await step.policy.allowed(step.view.deferred, "search")
        known = {definition.tool_id for definition in definitions}
        if all(tool.id in known for tool in listed):
            return definitions  # everything found: the discovery tool retires
        shown = [step.view.definition(tool, "deferred") for tool in listed]
        return [*self.meta_tools(step.config, shown), *definitions]

    def how_to_discover(self, config: ToolSearchConfig, name: str) -> str:
        lazy = config.meta_tool_names.lazy
        return f'call {lazy} with {{"tool_names": ["{name}"]}}, then call it'

    def discovery_calls(self, config: ToolSearchConfig, names: list[str]) -> list[ToolCall]:
        return [ToolCall(config.meta_tool_names.lazy, {"tool_names": names}, id="lazy")]


class NativeMode(ModeStrategy):
    """The provider's deferred loading (Anthropic `defer_loading`, OpenAI Responses client
    `tool_search`): every deferred tool the filter allows is listed as deferred, and search
    makes its hits callable at once. Nothing is preloaded: the list stays byte-identical,
    and the provider's own search finds a tool within the same model call."""

    name = "native"
    activates = True
    lists_discovered = False
    loads_natively = True
    search_effect = "The tools found become callable at once."

    async def list_deferred(self, step: Listing) -> list[ToolDefinition]:
        hidden = await step.policy.allowed(step.view.deferred, "search", "load", "active")
        return [
            self.search_tool(step.config),
            *(step.view.definition(tool, "deferred") for tool in hidden),
        ]


MODES: Mapping[Mode, ModeStrategy] = MappingProxyType(
    {
        "load": LoadMode(),
        "auto_load": AutoLoadMode(),
        "proxy": ProxyMode(),
        "lazy": LazyMode(),
    }
)
NATIVE = NativeMode()


def mode_strategy(mode: Mode, *, native: bool = False) -> ModeStrategy:
    """The strategy of a step: `NATIVE` for the provider's deferred loading, else `mode`'s."""
    return NATIVE if native else MODES[mode]


def _found_names(query_results: Sequence[results.QueryResult]) -> list[str]:
    return [entry.definition.name for result in query_results for entry in result.found]
