"""LangChain / LangGraph: `create_agent` with `ToolScoutMiddleware`, driven by a scripted
chat model that issues tool calls."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from tests.integrations import parity
from tests.integrations.langchain_fakes import ScriptedChatModel, Step
from toolscout.config import StoreSettings, ToolSearchSettings
from toolscout.integrations.langchain import ToolScoutMiddleware, catalog_from_tools
from toolscout.protocol import ToolCall, ToolSearch

ASK = {"messages": [{"role": "user", "content": "Go"}]}


TOOLS = [tool(fn) for fn in parity.FUNCTIONS]
"""The scenario's functions as LangChain tools; `create_agent` would make the same."""


def run_agent(
    steps: list[Step],
    settings: ToolSearchSettings | None = None,
    *,
    asynchronous: bool = False,
    **options: Any,
) -> ScriptedChatModel:
    model = ScriptedChatModel(steps=steps)
    agent = create_agent(model, tools=TOOLS, middleware=[ToolScoutMiddleware(settings, **options)])
    if asynchronous:
        asyncio.run(agent.ainvoke(ASK))
    else:
        agent.invoke(ASK)
    return model


class TestMiddleware:
    @pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
    def test_search_load_then_call_over_several_turns(self, asynchronous: bool) -> None:
        model = run_agent(
            [
                [("search_tools", {"queries": ["weather forecast"]})],
                [("get_forecast", {"city": "Paris"})],
                [("load_tool", {"names": ["get_forecast"]})],
                [("get_forecast", {"city": "Paris", "days": 2})],
                "Sunny.",
            ],
            ToolSearchSettings(enabled=True, require_discovery=True),
            asynchronous=asynchronous,
        )
        found = json.loads(model.returned("search_tools")[0])["results"][0]["tools"]
        assert found[0]["name"] == "get_forecast" and "score" in found[0]
        assert model.tools_seen[0] == ["search_tools", "load_tool"]
        assert model.tools_seen[-1] == ["search_tools", "load_tool", "get_forecast"]
        assert model.returned("get_forecast") == [
            "Tool 'get_forecast' is not loaded yet: call load_tool with {\"names\": "
            '["get_forecast"]}, then call it.',
            "Sunny in Paris for 2 day(s)",
        ]

    def test_the_tool_for_the_question_is_preloaded(self) -> None:
        model = ScriptedChatModel(
            steps=[[("get_forecast", {"city": "Paris", "days": 2})], "Sunny."]
        )
        middleware = ToolScoutMiddleware(ToolSearchSettings(enabled=True))
        agent = create_agent(model, tools=TOOLS, middleware=[middleware])
        agent.invoke({"messages": [{"role": "user", "content": "Weather forecast in Paris?"}]})
        assert model.tools_seen[0][:2] == ["search_tools", "load_tool"]
        assert "get_forecast" in model.tools_seen[0]
        assert model.returned("get_forecast") == ["Sunny in Paris for 2 day(s)"]

    def test_proxy_mode_runs_tools_through_call_tool(self) -> None:
        model = run_agent(
            [
                [("search_tools", {"queries": ["translate text"]})],
                [
                    (
                        "call_tool",
                        {"name": "translate_text", "arguments": {"text": "hi", "language": "fr"}},
                    )
                ],
                "Done.",
            ],
            ToolSearchSettings(enabled=True, mode="proxy"),
        )
        assert model.tools_seen == [["search_tools", "call_tool"]] * 3
        assert model.returned("translate_text") == ["[fr] hi"]

    def test_a_store_keeps_discoveries_per_langgraph_thread(self) -> None:
        settings = ToolSearchSettings(enabled=True, store=StoreSettings(kind="memory"))
        middleware = ToolScoutMiddleware(settings)

        def agent(steps: list[Step]) -> tuple[Any, ScriptedChatModel]:
            model = ScriptedChatModel(steps=steps)
            return create_agent(model, tools=TOOLS, middleware=[middleware]), model

        loader, _ = agent([[("load_tool", {"names": ["translate_text"]})], "Loaded."])
        loader.invoke(ASK, {"configurable": {"thread_id": "t1"}})
        for thread, expected in (("t1", True), ("t2", False)):
            later, model = agent(["Hello."])
            later.invoke(ASK, {"configurable": {"thread_id": thread}})
            assert ("translate_text" in model.tools_seen[0]) is expected

    def test_discoveries_are_read_from_a_checkpointed_conversation(self) -> None:
        model = ScriptedChatModel(
            steps=[[("load_tool", {"names": ["translate_text"]})], "Loaded.", "Hello again."]
        )
        agent = create_agent(
            model,
            tools=TOOLS,
            middleware=[ToolScoutMiddleware()],
            checkpointer=InMemorySaver(),
        )
        config = {"configurable": {"thread_id": "t1"}}
        agent.invoke(ASK, config)
        agent.invoke({"messages": [{"role": "user", "content": "And now?"}]}, config)
        assert model.tools_seen[-1] == ["search_tools", "load_tool", "translate_text"]

    def test_the_filter_gets_the_runtime_context(self) -> None:
        @dataclass
        class User:
            role: str

        seen = []

        def only_for_admins(tool: Any, context: User, phase: str) -> bool:
            seen.append(context)
            return tool.name != parity.DENIED or context.role == "admin"

        model = ScriptedChatModel(steps=[[("search_tools", {"queries": ["delete files"]})], "No."])
        agent = create_agent(
            model,
            tools=TOOLS,
            middleware=[ToolScoutMiddleware(filter=only_for_admins)],
            context_schema=User,
        )
        agent.invoke(ASK, context=User("guest"))
        assert parity.DENIED not in model.returned("search_tools")[0]
        assert seen and all(context == User("guest") for context in seen)

    def test_off_sends_every_tool(self) -> None:
        model = run_agent(["Hi."], ToolSearchSettings(enabled=False))
        assert model.tools_seen[0] == [fn.__name__ for fn in parity.FUNCTIONS]

    def test_parity_with_the_core(self) -> None:
        model = run_agent(
            [[call] for call in parity.CALLS] + ["Done."],
            parity.SETTINGS,
            filter=parity.deny_deletion,
        )
        searches = model.returned("search_tools")
        parity.assert_same_as_core(
            parity.Observed(
                model.tools_seen[0],
                parity.found_names(searches[0]),
                parity.found_names(searches[1]),
                model.returned(parity.DENIED)[0],
                parity.found_names(searches[2]),
            ),
            catalog_from_tools(TOOLS),
        )


class TestCatalogFromTools:
    def test_wraps_base_tools_with_their_schema_and_a_handler(self) -> None:
        @tool
        def get_weather(city: str) -> str:
            """Get the current weather in a city."""
            return f"Sunny in {city}"

        catalog = catalog_from_tools([get_weather], namespace="weather")
        assert [t.id for t in catalog] == ["weather__get_weather"]
        assert catalog["weather__get_weather"].input_schema["required"] == ["city"]
        search = ToolSearch(catalog, mode="auto_load", require_discovery=True)
        search.execute(ToolCall("search_tools", {"queries": ["weather"]}))
        result = search.execute(ToolCall("weather__get_weather", {"city": "Oslo"}), messages=[])
        assert "not loaded yet" in result.content
