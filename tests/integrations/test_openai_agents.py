"""OpenAI Agents SDK: a real `Agent` and `Runner`, with the SDK's own `ScriptedModel`."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from tests.integrations import parity
from toolscout import Catalog
from toolscout.config import ToolSearchSettings
from toolscout.integrations.openai_agents import ToolScout

NO_TRACING = RunConfig(tracing_disabled=True)
TOOLS = [function_tool(fn) for fn in parity.FUNCTIONS]


def calls(*steps: list[tuple[str, dict[str, Any]]] | str) -> ScriptedModel:
    """A scripted model: each step is tool calls `(name, arguments)`, or the final text."""
    script: list[Any] = []
    for turn, step in enumerate(steps):
        if isinstance(step, str):
            script.append([assistant_message(step)])
        else:
            script.append(
                [
                    function_call(name, arguments, call_id=f"call_{turn}_{index}")
                    for index, (name, arguments) in enumerate(step)
                ]
            )
    return ScriptedModel(script)


def run(
    model: ScriptedModel,
    settings: ToolSearchSettings | None = None,
    *,
    context: Any = None,
    **options: Any,
) -> tuple[ToolScout, dict[str, list[str]]]:
    scout = ToolScout(TOOLS, settings, **options)
    agent = Agent(name="assistant", model=scout.model(model), tools=scout.tools)
    result = Runner.run_sync(agent, "Go", context=context, run_config=NO_TRACING)
    return scout, outputs(result.to_input_list())


def outputs(items: list[Any]) -> dict[str, list[str]]:
    """Each tool's outputs, by the name of the tool called."""
    names = {item["call_id"]: item["name"] for item in items if item.get("type") == "function_call"}
    found: dict[str, list[str]] = {}
    for item in items:
        if item.get("type") == "function_call_output":
            found.setdefault(names[item["call_id"]], []).append(str(item["output"]))
    return found


def tools_sent(model: ScriptedModel) -> list[list[str]]:
    return [[tool.name for tool in call.tools] for call in model.calls]


class TestToolScout:
    def test_search_load_then_call_over_several_turns(self) -> None:
        model = calls(
            [("search_tools", {"queries": ["weather forecast"]})],
            [("get_forecast", {"city": "Paris", "days": 1})],
            [("load_tool", {"names": ["get_forecast"]})],
            [("get_forecast", {"city": "Paris", "days": 2})],
            "Sunny.",
        )
        _, output = run(model, ToolSearchSettings(enabled=True, require_discovery=True))
        found = json.loads(output["search_tools"][0])["results"][0]["tools"]
        assert found[0]["name"] == "get_forecast" and "score" in found[0]
        assert tools_sent(model)[0] == ["search_tools", "load_tool"]
        assert tools_sent(model)[-1] == ["search_tools", "load_tool", "get_forecast"]
        assert output["get_forecast"][0].startswith("Tool 'get_forecast' is not loaded yet")
        assert output["get_forecast"][1] == "Sunny in Paris for 2 day(s)"

    def test_streamed_runs_too(self) -> None:
        model = calls(
            [("load_tool", {"names": ["translate_text"]})],
            [("translate_text", {"text": "hi", "language": "fr"})],
            "Done.",
        )
        scout = ToolScout(TOOLS)
        agent = Agent(name="assistant", model=scout.model(model), tools=scout.tools)

        async def stream() -> list[Any]:
            result = Runner.run_streamed(agent, "Go", run_config=NO_TRACING)
            async for _ in result.stream_events():
                pass
            return result.to_input_list()

        assert outputs(asyncio.run(stream()))["translate_text"] == ["[fr] hi"]

    def test_proxy_mode_runs_tools_through_call_tool(self) -> None:
        model = calls(
            [("search_tools", {"queries": ["translate text"]})],
            [
                (
                    "call_tool",
                    {"name": "translate_text", "arguments": {"text": "hi", "language": "fr"}},
                )
            ],
            "Done.",
        )
        _, output = run(model, ToolSearchSettings(enabled=True, mode="proxy"))
        assert tools_sent(model) == [["search_tools", "call_tool"]] * 3
        assert output["call_tool"] == ["[fr] hi"]

    def test_lazy_mode_lists_the_tools_in_its_description(self) -> None:
        model = calls(
            [("__lazy__tool__discovery__", {"tool_names": ["translate_text"]})],
            [("translate_text", {"text": "hi", "language": "fr"})],
            "Done.",
        )
        _, output = run(model, ToolSearchSettings(enabled=True, mode="lazy"))
        lazy = model.calls[0].tools[0]
        assert "- translate_text: Translate text into another language." in lazy.description
        assert tools_sent(model)[1][-1] == "translate_text"
        assert output["translate_text"] == ["[fr] hi"]

    def test_a_session_carries_discoveries_into_the_next_run(self, tmp_path: Any) -> None:
        session = SQLiteSession("user-1", str(tmp_path / "session.db"))
        scout = ToolScout(TOOLS)
        model = calls([("load_tool", {"names": ["translate_text"]})], "Loaded.", "Hello again.")
        agent = Agent(name="assistant", model=scout.model(model), tools=scout.tools)
        Runner.run_sync(agent, "Load it", session=session, run_config=NO_TRACING)
        Runner.run_sync(agent, "And now?", session=session, run_config=NO_TRACING)
        assert tools_sent(model)[-1] == ["search_tools", "load_tool", "translate_text"]

    def test_the_filter_gets_the_run_context(self) -> None:
        @dataclass
        class User:
            role: str

        seen = []

        def only_for_admins(tool: Any, context: User, phase: str) -> bool:
            seen.append(context)
            return tool.name != parity.DENIED or context.role == "admin"

        model = calls([("search_tools", {"queries": ["delete files"]})], "No.")
        _, output = run(model, context=User("guest"), filter=only_for_admins)
        assert parity.DENIED not in output["search_tools"][0]
        assert seen and all(context == User("guest") for context in seen)

    def test_off_sends_every_tool(self) -> None:
        model = calls("Hi.")
        run(model, ToolSearchSettings(enabled=False))
        assert tools_sent(model)[0] == [fn.__name__ for fn in parity.FUNCTIONS]

    def test_parity_with_the_core(self) -> None:
        model = calls(*[[call] for call in parity.CALLS], "Done.")
        _, output = run(model, parity.SETTINGS, filter=parity.deny_deletion)
        searches = output["search_tools"]
        parity.assert_same_as_core(
            parity.Observed(
                tools_sent(model)[0],
                parity.found_names(searches[0]),
                parity.found_names(searches[1]),
                output[parity.DENIED][0],
                parity.found_names(searches[2]),
            ),
            Catalog(
                [
                    {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.params_json_schema,
                    }
                    for t in TOOLS
                ]
            ),
        )
