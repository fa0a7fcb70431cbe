"""PydanticAI: a real `Agent` driven by a scripted `FunctionModel`, through toolscout."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, ModelRetry, RunContext, Tool, ToolDefinition
from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.integrations import parity
from toolscout import Catalog
from toolscout.config import StoreSettings, ToolSearchSettings
from toolscout.integrations.pydantic_ai import (
    ToolScout,
    ToolScoutStrategy,
    ToolScoutToolset,
    tool_search_capability,
)

Step = list[tuple[str, dict[str, Any]]] | str
"""One model turn: the tool calls to make, or the final text."""


class Script:
    """A `FunctionModel` that plays `steps` and records what each request offered and what
    each tool returned."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps: Iterator[Step] = iter(steps)
        self.tools: list[list[str]] = []
        self.returns: list[tuple[str, Any]] = []
        self.model = FunctionModel(self._respond)

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.tools.append([tool.name for tool in info.function_tools])
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart):
                self.returns.append((part.tool_name, part.content))
            elif isinstance(part, RetryPromptPart):
                self.returns.append((part.tool_name or "", part.model_response()))
        step = next(self.steps)
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(
            parts=[
                ToolCallPart(name, arguments, tool_call_id=f"call_{index}")
                for index, (name, arguments) in enumerate(step)
            ]
        )

    def returned(self, name: str) -> list[Any]:
        return [content for tool, content in self.returns if tool == name]


def pydantic_ai_catalog() -> Catalog:
    """The scenario's tools as pydantic-ai defines them."""
    definitions = [Tool(fn).tool_def for fn in parity.FUNCTIONS]
    return Catalog(
        [
            {"name": d.name, "description": d.description, "parameters": d.parameters_json_schema}
            for d in definitions
        ]
    )


def agent_with(
    script: Script, settings: ToolSearchSettings | None = None, **options: Any
) -> Agent[None, str]:
    return Agent(
        script.model,
        tools=list(parity.FUNCTIONS),
        capabilities=[ToolScout(settings or ToolSearchSettings(enabled=True), **options)],
    )


class TestToolScoutCapability:
    def test_search_load_then_call_over_several_turns(self) -> None:
        script = Script(
            [
                [("search_tools", {"queries": ["weather forecast"]})],
                [("load_tool", {"names": ["get_forecast"]})],
                [("get_forecast", {"city": "Paris", "days": 2})],
                "Sunny.",
            ]
        )
        no_preload = ToolSearchSettings(enabled=True, preload={"enabled": False})
        result = agent_with(script, no_preload).run_sync("Weather in Paris?")
        assert result.output == "Sunny."
        found = json.loads(script.returned("search_tools")[0])["results"][0]["tools"]
        assert found[0]["name"] == "get_forecast" and "score" in found[0]
        assert script.tools[0] == ["search_tools", "load_tool"]
        assert script.tools[2] == ["search_tools", "load_tool", "get_forecast"]
        assert script.returned("get_forecast") == ["Sunny in Paris for 2 day(s)"]

    def test_the_tool_for_the_question_is_preloaded(self) -> None:
        script = Script([[("get_forecast", {"city": "Paris", "days": 2})], "Sunny."])
        result = agent_with(script).run_sync("Weather forecast in Paris?")
        assert result.output == "Sunny."
        assert script.tools[0][:2] == ["search_tools", "load_tool"]
        assert "get_forecast" in script.tools[0]
        assert script.returned("get_forecast") == ["Sunny in Paris for 2 day(s)"]

    def test_proxy_mode_runs_tools_through_call_tool(self) -> None:
        script = Script(
            [
                [("search_tools", {"queries": ["send an email"]})],
                [
                    (
                        "call_tool",
                        {"name": "send_email", "arguments": {"to": "a@b.c", "subject": "x"}},
                    )
                ],
                "Sent.",
            ]
        )
        settings = ToolSearchSettings(enabled=True, mode="proxy")
        agent_with(script, settings).run_sync("Email a@b.c")
        assert script.tools == [["search_tools", "call_tool"]] * 3
        assert script.returned("call_tool") == ["sent to a@b.c"]

    def test_discoveries_follow_the_history_into_the_next_run(self) -> None:
        first = Script([[("load_tool", {"names": ["translate_text"]})], "Loaded."])
        agent = agent_with(first)
        history = agent.run_sync("Load the translator").all_messages()
        second = Script([[("translate_text", {"text": "hi", "language": "fr"})], "Done."])
        agent_with(second).run_sync("Translate hi", message_history=history)
        assert second.tools[0][-1] == "translate_text"
        assert second.returned("translate_text") == ["[fr] hi"]

    def test_a_compaction_forgets_what_was_discovered_before_it(self) -> None:
        first = Script([[("load_tool", {"names": ["translate_text"]})], "Loaded."])
        history = agent_with(first).run_sync("Load the translator").all_messages()
        summary = ModelRequest(parts=[CompactionPart("The user loaded a translator.")])
        later = Script(["Hello."])
        agent_with(later).run_sync("Hi", message_history=[*history, summary])
        assert later.tools[0] == ["search_tools", "load_tool"]

    def test_a_store_keeps_discoveries_per_conversation(self) -> None:
        settings = ToolSearchSettings(enabled=True, store=StoreSettings(kind="memory"))
        capability = ToolScout(settings)
        first = Script([[("load_tool", {"names": ["translate_text"]})], "Loaded."])
        Agent(first.model, tools=list(parity.FUNCTIONS), capabilities=[capability]).run_sync(
            "Load it", conversation_id="c1"
        )
        for conversation, expected in (("c1", True), ("c2", False)):
            later = Script(["Hello."])
            agent = Agent(later.model, tools=list(parity.FUNCTIONS), capabilities=[capability])
            agent.run_sync("Hi", conversation_id=conversation)
            assert ("translate_text" in later.tools[0]) is expected

    def test_model_retry_from_a_tool_reaches_pydantic_ai(self) -> None:
        def flaky(city: str) -> str:
            """Get the air quality of a city."""
            raise ModelRetry("Try a capital city.")

        script = Script(
            [
                [("load_tool", {"names": ["flaky"]})],
                [("flaky", {"city": "Lyon"})],
                "Gave up.",
            ]
        )
        Agent(script.model, tools=[flaky], capabilities=[ToolScout()]).run_sync("Air?")
        assert "Try a capital city." in script.returned("flaky")[0]

    def test_arguments_are_checked_against_the_schema(self) -> None:
        script = Script(
            [
                [("load_tool", {"names": ["get_forecast"]})],
                [("get_forecast", {"city": "Paris", "days": "two"})],
                "Oops.",
            ]
        )
        agent_with(script).run_sync("Weather?")
        assert "days: 'two' is not of type 'integer'" in script.returned("get_forecast")[0]

    def test_the_filter_gets_the_run_context(self) -> None:
        seen: list[Any] = []

        def only_for_admins(tool: Any, ctx: RunContext[str], phase: str) -> bool:
            seen.append(ctx.deps)
            return tool.name != "delete_all_files" or ctx.deps == "admin"

        script = Script([[("search_tools", {"queries": ["delete every file"]})], "No."])
        agent: Agent[str, str] = Agent(
            script.model,
            deps_type=str,
            tools=list(parity.FUNCTIONS),
            capabilities=[ToolScout(filter=only_for_admins)],
        )
        agent.run_sync("Clean up", deps="guest")
        assert "delete_all_files" not in script.returned("search_tools")[0]
        assert set(seen) == {"guest"}

    def test_off_sends_every_tool(self) -> None:
        script = Script(["Hi."])
        agent_with(script, ToolSearchSettings(enabled=False)).run_sync("Hi")
        assert script.tools[0] == [fn.__name__ for fn in parity.FUNCTIONS]

    def test_a_toolset_can_be_wrapped_alone(self) -> None:
        from pydantic_ai.toolsets import FunctionToolset

        script = Script([[("search_tools", {"queries": ["translate"]})], "Ok."])
        toolset = ToolScoutToolset(FunctionToolset([parity.translate_text]))

        def now() -> str:
            """The time."""
            return "noon"

        Agent(script.model, tools=[now], toolsets=[toolset]).run_sync("Hi")
        assert script.tools[0] == ["now", "search_tools", "load_tool"]

    def test_parity_with_the_core(self) -> None:
        script = Script([[call] for call in parity.CALLS] + ["Done."])
        agent_with(script, parity.SETTINGS, filter=parity.deny_deletion).run_sync("Go")
        searches = script.returned("search_tools")
        parity.assert_same_as_core(
            parity.Observed(
                script.tools[0],
                parity.found_names(searches[0]),
                parity.found_names(searches[1]),
                script.returned(parity.DENIED)[0],
                parity.found_names(searches[2]),
            ),
            pydantic_ai_catalog(),
        )


class TestStrategy:
    """toolscout ranking inside pydantic-ai's own `ToolSearch` capability."""

    @staticmethod
    def deferred_agent(script: Script, **options: Any) -> Agent[None, str]:
        tools: list[Tool[None] | Callable[..., Any]] = [parity.ping]
        tools += [Tool(fn, defer_loading=True) for fn in parity.FUNCTIONS[1:]]
        return Agent(script.model, tools=tools, capabilities=[tool_search_capability(**options)])

    def test_search_then_call_over_several_turns(self) -> None:
        script = Script(
            [
                [("search_tools", {"queries": ["weather forecast for Paris"]})],
                [("get_forecast", {"city": "Paris"})],
                "Sunny.",
            ]
        )
        self.deferred_agent(script).run_sync("Weather in Paris?")
        assert script.tools[0] == ["ping", "search_tools"]
        assert script.returned("search_tools")[0]["discovered_tools"] == [{"name": "get_forecast"}]
        assert "get_forecast" in script.tools[1]
        assert script.returned("get_forecast") == ["Sunny in Paris for 1 day(s)"]

    def test_a_query_no_tool_serves_finds_nothing(self) -> None:
        script = Script([[("search_tools", {"queries": ["tell me a joke"]})], "No tool."])
        self.deferred_agent(script).run_sync("Joke?")
        assert script.returned("search_tools")[0]["discovered_tools"] == []

    def test_parity_with_the_core(self) -> None:
        script = Script(
            [
                [("search_tools", {"queries": [parity.BROAD_QUERY]})],
                [("search_tools", {"queries": [parity.DENIED_QUERY]})],
                "Done.",
            ]
        )
        self.deferred_agent(script, settings=parity.SETTINGS, filter=parity.deny_deletion).run_sync(
            "Go"
        )
        expected = parity.core(pydantic_ai_catalog())
        broad, denied = (
            [match["name"] for match in content["discovered_tools"]]
            for content in script.returned("search_tools")
        )
        assert script.tools[0] == [parity.PINNED, "search_tools"]
        assert broad == expected.broad
        assert denied == expected.denied

    def test_ranks_the_tools_it_is_given_as_they_change(self) -> None:
        strategy = ToolScoutStrategy()
        ctx: Any = SimpleNamespace(discovered_tool_names=set(), deps=None)
        weather = ToolDefinition(name="weather", description="Get the weather forecast.")
        mail = ToolDefinition(name="mail", description="Send an email.")
        assert asyncio.run(strategy(ctx, ["send email"], [weather, mail])) == ["mail"]
        assert asyncio.run(strategy(ctx, ["send email"], [weather])) == []
        ctx.discovered_tool_names = {"mail"}
        assert asyncio.run(strategy(ctx, ["send email weather"], [weather, mail])) == [
            "weather",
            "mail",
        ]
