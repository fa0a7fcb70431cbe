"""What each conversation has discovered: read from its store, or from its messages when it
has no thread id or tool search has no store, and recorded after a discovery."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toolscout.catalog.tool import Tool
from toolscout.protocol.context_store import ContextStore
from toolscout.protocol.policy import PolicyCheck
from toolscout.protocol.view import CatalogView
from toolscout.state.base import StateStore
from toolscout.state.memory import InMemoryStore
from toolscout.state.offloop import OffLoopStore


class Discoveries:
    """A `ToolSearch`'s record of discovered tools.

    Args:
        store: The store (`ToolSearch.store`); None reads every conversation's messages.
        store_timeout: Seconds a store other than `InMemoryStore` may take per call, in a
            worker thread (`toolscout.state.offloop`).
    """

    def __init__(self, store: StateStore | None, store_timeout: float) -> None:
        self.store = store
        self._store_timeout = store_timeout
        self._context = ContextStore()
        self._offloop: OffLoopStore | None = None

    async def allowed(
        self,
        view: CatalogView,
        policy: PolicyCheck,
        thread_id: str | None,
        messages: Sequence[Any],
    ) -> list[Tool]:
        """The thread's discovered tools that this request may see.

        The load phase is asked again: a discovery read from client-sent messages proves
        nothing, and the policy may have changed since.
        """
        tools = await self.tools(view, thread_id, messages)
        return await policy.allowed(tools, "load", "active")

    async def tools(
        self, view: CatalogView, thread_id: str | None, messages: Sequence[Any]
    ) -> list[Tool]:
        """The thread's discovered tools still in the catalog and deferred, in order."""
        store = self.store
        if thread_id is None or store is None:
            names = self._context.load(thread_id, messages)
        elif isinstance(store, InMemoryStore):  # answers at once: no thread needed
            names = store.load(thread_id, messages)
        else:
            names = await self._calls(store).load(thread_id, messages)
        return deferred_tools(view, names)

    async def remember(self, thread_id: str | None, tools: Sequence[Tool]) -> None:
        """Record that the thread discovered `tools`."""
        store = self.store
        if not tools or thread_id is None or store is None:
            return  # an anonymous conversation's discoveries are in its messages
        ids = [tool.id for tool in tools]
        if isinstance(store, InMemoryStore):
            store.save(thread_id, ids)
        else:
            await self._calls(store).save(thread_id, ids)

    def _calls(self, store: StateStore) -> OffLoopStore:
        calls = self._offloop
        if calls is None or calls.store is not store:  # the store may have been replaced
            calls = self._offloop = OffLoopStore(store, self._store_timeout)
        return calls


def deferred_tools(view: CatalogView, names: Iterable[str]) -> list[Tool]:
    """The deferred tools `names` (wire names or ids) name, each once, in order."""
    tools: dict[str, Tool] = {}
    for name in names:
        tool = view.resolve(name)
        if tool is not None and view.is_deferred(tool):
            tools.setdefault(tool.id, tool)
    return list(tools.values())
