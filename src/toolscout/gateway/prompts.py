"""Every upstream's prompts, named like its tools: the prompt `summarize` of the server
`github` is `github__summarize`.

Namespaces hold no `__` (the config refuses it), so the name before the first `__` is the
server and the rest is the server's own name, whatever it holds; two servers' prompts never
collide. Each server's prompts are listed when it connects and again when it sends
`notifications/prompts/list_changed`, and kept while it restarts, as its tools are.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import anyio
import mcp_types as types
from mcp import ClientSession

from toolscout.catalog.tool import NAMESPACE_SEPARATOR, Tool, make_tool_id
from toolscout.gateway.listing import list_all, stand_in
from toolscout.gateway.tools import shown
from toolscout.gateway.upstream import Upstream
from toolscout.protocol.policy import Phase, PolicyCheck

logger = logging.getLogger("toolscout.gateway")


@dataclass(frozen=True)
class ListedPrompt:
    """One upstream prompt as the gateway offers it."""

    upstream: Upstream
    name: str
    """The server's own name."""
    exposed: types.Prompt
    """The server's definition, named `namespace__name`."""
    stand_in: Tool | None
    """What the filter is asked about (`toolscout.gateway.listing`)."""

    async def allowed(self, policy: PolicyCheck, phase: Phase) -> bool:
        return self.stand_in is not None and await policy.allows(self.stand_in, phase)


class Prompts:
    """The prompts of every upstream, as last listed."""

    def __init__(self) -> None:
        self._listed: dict[str, dict[str, ListedPrompt]] = {}
        self._locks: dict[str, anyio.Lock] = {}

    async def refresh(self, upstream: Upstream, session: ClientSession) -> bool:
        """List the server's prompts again; whether what clients are shown changed. A server
        that fails to list them keeps those listed before."""
        async with self._locks.setdefault(upstream.name, anyio.Lock()):
            capabilities = session.server_capabilities
            prompts: list[types.Prompt] | None = []
            if capabilities is not None and capabilities.prompts is not None:

                async def page(cursor: str | None) -> tuple[list[types.Prompt], str | None]:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    result = await session.list_prompts(params=params)
                    return result.prompts, result.next_cursor

                prompts = await list_all(upstream, "prompts", page, lambda prompt: prompt.name)
            if prompts is None:
                return False
            listed: dict[str, ListedPrompt] = {}
            for prompt in prompts:
                if prompt.name in listed:
                    logger.warning(
                        "upstream %r: prompt %s is listed twice; the first is kept",
                        upstream.name,
                        shown(prompt.name),
                    )
                    continue
                listed[prompt.name] = _listed(upstream, prompt)
            before = self._listed.get(upstream.namespace, {})
            self._listed[upstream.namespace] = listed
            return [p.exposed for p in before.values()] != [p.exposed for p in listed.values()]

    def forget(self, upstream: Upstream) -> bool:
        """Drop a server's prompts (it was stopped); whether clients were shown any."""
        self._locks.pop(upstream.name, None)
        return bool(self._listed.pop(upstream.namespace, None))

    async def listed(self, policy: PolicyCheck, namespaces: Iterable[str]) -> list[types.Prompt]:
        """The prompts of these servers the filter lets this request see, server by server."""
        return [
            prompt.exposed
            for namespace in sorted(set(namespaces) & self._listed.keys())
            for prompt in self._listed[namespace].values()
            if await prompt.allowed(policy, "active")
        ]

    def find(self, name: str, upstreams: Mapping[str, Upstream]) -> ListedPrompt | None:
        """The prompt a client names (`namespace__name`), if its server lists it.

        Args:
            upstreams: The upstreams by namespace.
        """
        namespace, separator, original = name.partition(NAMESPACE_SEPARATOR)
        if not separator or namespace not in upstreams:
            return None
        return self._listed.get(namespace, {}).get(original)


def _listed(upstream: Upstream, prompt: types.Prompt) -> ListedPrompt:
    exposed_name = make_tool_id(prompt.name, upstream.namespace)
    metadata = prompt.model_dump(by_alias=True, mode="json", exclude_none=True)
    for key in ("name", "description"):
        metadata.pop(key, None)
    return ListedPrompt(
        upstream=upstream,
        name=prompt.name,
        exposed=prompt.model_copy(update={"name": exposed_name}),
        stand_in=stand_in(
            "prompt",
            exposed=exposed_name,
            name=prompt.name,
            upstream=upstream,
            description=prompt.description or prompt.title,
            metadata=metadata,
        ),
    )
