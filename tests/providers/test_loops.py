"""Whole multi-turn conversations with scripted fake models, for each provider, mode and
store: search, load, call, restart, TTL expiry, history trimming, filters, several threads."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.protocol.builders import make_catalog
from tests.providers.conftest import StoreMaker
from tests.providers.fakes import FakeModel, Intent
from toolscout.catalog import Tool
from toolscout.protocol import ContextStore, ToolSearch
from toolscout.providers import LoopResult, anthropic, openai_chat, openai_responses

PROVIDERS = {
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
}
MODES = ("load", "auto_load", "proxy", "lazy")
FORECAST = "Sunny in Paris for 2 day(s)"
#: These conversations go through discovery: with nothing preloaded, the model must search
#: (preloading has its own tests, tests/protocol/test_preload.py).
NO_PRELOAD = {"enabled": False}


def discover(mode: str, name: str, query: str) -> list[Intent]:
    """The intents that make `name` callable in `mode`."""
    return {
        "load": [("search", [query]), ("load", [name])],
        "auto_load": [("search", [query])],
        "proxy": [("search", [query])],
        "lazy": [("lazy", [name])],
    }[mode]


def start(provider: str) -> list[dict[str, Any]]:
    if provider == "openai_responses":
        return [{"role": "user", "content": "Weather in Paris for two days?"}]
    return [{"role": "user", "content": "Weather in Paris for two days?"}]


def run(
    provider: str,
    model: FakeModel,
    search: ToolSearch,
    thread_id: str | None,
    messages: list[Any],
    **options: Any,
) -> LoopResult:
    params = {"model": "fake", "max_tokens": 100} if provider == "anthropic" else {"model": "fake"}
    return PROVIDERS[provider].run_loop(
        model, search, thread_id, messages, params=params, **options
    )


def tool_outputs(result: LoopResult) -> str:
    return json.dumps(result.messages)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("mode", MODES)
class TestProviderLoops:
    def test_search_load_call_answer(
        self, provider: str, mode: str, make_store: StoreMaker
    ) -> None:
        search = ToolSearch(make_catalog(), mode=mode, store=make_store(), preload=NO_PRELOAD)
        script = [
            *discover(mode, "get_forecast", "weather forecast"),
            ("call", "get_forecast", {"city": "Paris", "days": 2}),
            ("say", "Sunny, both days."),
        ]
        model = FakeModel(provider, script, mode=mode)
        result = run(provider, model, search, "thread-1", start(provider))
        assert result.finished and result.steps == len(script)
        assert FORECAST in tool_outputs(result)
        first, last = model.requests[0]["tools"], model.requests[-1]["tools"]
        assert last[: len(first)] == first  # the cached prefix never changes
        assert search.stats().requests == len(script)
        assert search.stats().saving > 0

    def test_restart_keeps_discoveries(
        self, provider: str, mode: str, make_persistent_store: StoreMaker
    ) -> None:
        first = ToolSearch(
            make_catalog(), mode=mode, store=make_persistent_store(), preload=NO_PRELOAD
        )
        script = [*discover(mode, "get_forecast", "weather forecast"), ("say", "Found it.")]
        before = run(provider, FakeModel(provider, script, mode=mode), first, "t", start(provider))
        restarted = ToolSearch(
            make_catalog(), mode=mode, store=make_persistent_store(), preload=NO_PRELOAD
        )
        again = [("call", "get_forecast", {"city": "Paris", "days": 2}), ("say", "Sunny.")]
        messages = [*before.messages, *start(provider)]
        after = run(provider, FakeModel(provider, again, mode=mode), restarted, "t", messages)
        assert FORECAST in tool_outputs(after)


@pytest.mark.parametrize("provider", ["anthropic", "openai_responses"])
class TestNativeDeferredLoading:
    def test_native_search_then_call(self, provider: str, make_store: StoreMaker) -> None:
        search = ToolSearch(make_catalog(), store=make_store())
        script = [
            ("native_search", ["weather forecast"]),
            ("call", "get_forecast", {"city": "Paris", "days": 2}),
            ("say", "Sunny."),
        ]
        model = FakeModel(provider, script)
        result = run(provider, model, search, "t", start(provider), native=True)
        assert FORECAST in tool_outputs(result)
        assert model.requests[0]["tools"] == model.requests[-1]["tools"]  # byte-identical
        sent = model.requests[0]["tools"]
        if provider == "anthropic":
            deferred = [tool["name"] for tool in sent if tool.get("defer_loading")]
            assert "get_forecast" in deferred and "search_tools" not in deferred
        else:
            assert {"type": "tool_search", "execution": "client"}.items() <= sent[-1].items()
            assert "get_forecast" not in json.dumps(sent)

    def test_a_denied_tool_is_neither_declared_nor_referenced(self, provider: str) -> None:
        def no_admin(tool: Tool, context: Any, phase: str) -> bool:
            return "admin" not in tool.tags

        search = ToolSearch(make_catalog(), filter=no_admin)
        script = [
            ("native_search", ["delete every file in a folder"]),
            ("blind_call", "delete_all_files", {"folder": "/"}),
            ("say", "I cannot."),
        ]
        model = FakeModel(provider, script)
        result = run(provider, model, search, None, start(provider), native=True)
        assert "delete_all_files" not in json.dumps(model.requests[0]["tools"])
        assert "deleted everything" not in tool_outputs(result)


class TestConversationState:
    def test_ttl_expiry_de_loads_and_the_model_loads_again(self, tmp_path: Any) -> None:
        from tests.state.conftest import FakeClock
        from toolscout.state import InMemoryStore

        clock = FakeClock()
        search = ToolSearch(
            make_catalog(),
            store=InMemoryStore(ttl=60, clock=clock),
            require_discovery=True,
            preload=NO_PRELOAD,
        )
        script = [("load", ["get_forecast"]), ("say", "Loaded.")]
        first = run(
            "openai_chat", FakeModel("openai_chat", script), search, "t", start("openai_chat")
        )
        clock.advance(120)
        again = [
            ("blind_call", "get_forecast", {"city": "Paris", "days": 2}),
            ("load", ["get_forecast"]),
            ("call", "get_forecast", {"city": "Paris", "days": 2}),
            ("say", "Sunny."),
        ]
        model = FakeModel("openai_chat", again)
        result = run("openai_chat", model, search, "t", first.messages)
        assert "get_forecast" not in json.dumps(model.requests[0]["tools"])
        assert 'call load_tool with {\\"names\\": [\\"get_forecast\\"]}' in tool_outputs(result)
        assert FORECAST in tool_outputs(result)

    @pytest.mark.parametrize("provider", PROVIDERS)
    def test_trimmed_history_de_loads_with_context_store(self, provider: str) -> None:
        search = ToolSearch(
            make_catalog(), mode="auto_load", require_discovery=True, preload=NO_PRELOAD
        )
        script = [("search", ["weather forecast"]), ("say", "Found it.")]
        first = run(provider, FakeModel(provider, script), search, None, start(provider))
        trimmed = [first.messages[0], *first.messages[-1:]]
        again = [("blind_call", "get_forecast", {"city": "Paris"}), ("say", "Let me search.")]
        model = FakeModel(provider, again)
        result = run(provider, model, search, None, trimmed)
        assert "get_forecast" not in json.dumps(model.requests[0]["tools"])
        assert "is not loaded yet" in tool_outputs(result)

    @pytest.mark.parametrize("provider", PROVIDERS)
    @pytest.mark.parametrize("mode", MODES)
    def test_filters_hold_in_a_whole_conversation(self, provider: str, mode: str) -> None:
        def no_admin(tool: Tool, context: Any, phase: str) -> bool:
            return context == "admin" or "admin" not in tool.tags

        search = ToolSearch(make_catalog(), mode=mode, filter=no_admin)
        script = [
            *discover(mode, "delete_all_files", "delete every file in a folder"),
            ("blind_call", "delete_all_files", {"folder": "/"}),
            ("say", "Not allowed."),
        ]
        model = FakeModel(provider, script, mode=mode)
        result = run(provider, model, search, None, start(provider), request_context="user")
        assert "deleted everything" not in tool_outputs(result)
        assert all("delete_all_files" not in json.dumps(r.get("tools")) for r in model.requests)

    def test_several_threads_at_once(self, make_store: StoreMaker) -> None:
        search = ToolSearch(
            make_catalog(), mode="auto_load", store=make_store(), preload=NO_PRELOAD
        )

        async def conversation(
            thread: str, query: str, name: str, arguments: dict[str, Any]
        ) -> LoopResult:
            script = [("search", [query]), ("call", name, arguments), ("say", "Done.")]
            return await openai_chat.arun_loop(
                FakeModel("openai_chat", script),
                search,
                thread,
                start("openai_chat"),
                params={"model": "x"},
            )

        async def both() -> list[LoopResult]:
            return list(
                await asyncio.gather(
                    conversation(
                        "a", "weather forecast", "get_forecast", {"city": "Paris", "days": 2}
                    ),
                    conversation(
                        "b", "translate text", "translate_text", {"text": "hi", "language": "fr"}
                    ),
                )
            )

        first, second = asyncio.run(both())
        assert FORECAST in tool_outputs(first) and "[fr] hi" in tool_outputs(second)
        if search.store is not None and not isinstance(search.store, ContextStore):
            tools_a = [d.name for d in search.prepare("a", first.messages)]
            tools_b = [d.name for d in search.prepare("b", second.messages)]
            assert "translate_text" not in tools_a and "get_forecast" not in tools_b


class TestPassThrough:
    def test_tools_outside_the_catalog_run_through_handlers(self) -> None:
        search = ToolSearch(make_catalog())
        outside = {
            "type": "function",
            "function": {"name": "now", "parameters": {"type": "object"}},
        }
        script = [("call", "now", {}), ("say", "It is noon.")]
        model = FakeModel("openai_chat", script)
        result = run(
            "openai_chat",
            model,
            search,
            None,
            start("openai_chat"),
            tools=[outside],
            handlers={"now": lambda: "12:00"},
        )
        assert model.requests[0]["tools"][2] == outside
        assert "12:00" in tool_outputs(result)

    def test_max_steps_stops_a_loop_that_never_ends(self) -> None:
        search = ToolSearch(make_catalog())
        model = FakeModel("openai_chat", [("search", ["weather"])] * 3)
        result = run("openai_chat", model, search, None, start("openai_chat"), max_steps=3)
        assert not result.finished and result.steps == 3
