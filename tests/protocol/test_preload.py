"""Preloading: the tools that best serve the latest user message are sent with it, stable
within a turn, appended after what was sent before, never a tool the filter hides."""

from __future__ import annotations

from typing import Any

import pytest

from tests.protocol.builders import make_catalog, names
from toolscout.errors import ToolSearchConfigError
from toolscout.protocol import Phase, ToolCall, ToolDefinition, ToolSearch
from toolscout.state import InMemoryStore

WEATHER = "What is the weather forecast in Paris for the next two days?"
EMAIL = "Send an email to ann@example.com to say I am late"
OFF_TOPIC = "Tell me a joke about penguins"
THANKS = "thanks, that's all"


def make_search(**options: Any) -> ToolSearch:
    # BM25: exact rankings; these tests are about the protocol.
    options.setdefault("engine", "bm25")
    return ToolSearch(make_catalog(), **options)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def preloaded(definitions: list[ToolDefinition]) -> list[str]:
    return [definition.name for definition in definitions if definition.kind == "preloaded"]


def exchange(search: ToolSearch, messages: list[Any], name: str, **arguments: Any) -> list[Any]:
    """`messages` with the model's call to `name` and its result (OpenAI chat shape)."""
    result = search.execute(ToolCall(name, arguments, id=f"call_{name}"), messages=messages)
    return [
        *messages,
        {
            "role": "assistant",
            "tool_calls": [{"id": f"call_{name}", "function": {"name": name, "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": f"call_{name}", "content": result.content},
    ]


class TestPreloadedTools:
    @pytest.mark.parametrize("mode", ["load", "auto_load", "lazy"])
    def test_the_tool_for_the_user_message_is_sent_with_it(self, mode: str) -> None:
        search = make_search(mode=mode)
        sent = search.prepare(None, [user(WEATHER)])
        assert preloaded(sent) == ["get_forecast"]
        assert sent[-1].name == "get_forecast"  # after everything sent without it
        assert names(search.prepare(None, [])) == names(sent)[:-1]

    def test_the_model_calls_it_without_a_search(self) -> None:
        search = make_search(require_discovery=True)
        messages = [user(WEATHER)]
        result = search.execute(
            ToolCall("get_forecast", {"city": "Paris", "days": 2}), messages=messages
        )
        assert not result.is_error and result.content == "Sunny in Paris for 2 day(s)"

    def test_an_off_topic_request_preloads_nothing(self) -> None:
        search = make_search()
        assert preloaded(search.prepare(None, [user(OFF_TOPIC)])) == []

    def test_without_a_user_message_nothing_is_preloaded(self) -> None:
        search = make_search()
        assert preloaded(search.prepare(None, [])) == []

    @pytest.mark.parametrize("mode", ["proxy", "native"])
    def test_lists_that_never_change_preload_nothing(self, mode: str) -> None:
        native = mode == "native"
        search = make_search(mode="load" if native else mode)
        with_message = search.prepare(None, [user(WEATHER)], native=native)
        assert with_message == search.prepare(None, [], native=native)

    def test_off_sends_nothing_more(self) -> None:
        search = make_search(preload={"enabled": False})
        assert preloaded(search.prepare(None, [user(WEATHER)])) == []

    @pytest.mark.parametrize(
        "message",
        [
            {"role": "user", "content": [{"type": "text", "text": WEATHER}]},  # chat, Anthropic
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": WEATHER}],
            },
        ],
        ids=["content-parts", "responses"],
    )
    def test_every_provider_shape_is_read(self, message: dict[str, Any]) -> None:
        search = make_search()
        assert preloaded(search.prepare(None, [message])) == ["get_forecast"]

    def test_tool_results_in_a_user_message_do_not_start_a_turn(self) -> None:
        search = make_search()
        results = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "x", "content": "done"}],
        }
        assert preloaded(search.prepare(None, [user(WEATHER), results])) == ["get_forecast"]


class TestWithinATurn:
    @pytest.mark.parametrize("mode", ["load", "auto_load"])
    def test_stable_and_appended_when_the_model_discovers_more(self, mode: str) -> None:
        search = make_search(mode=mode)
        messages = [user(WEATHER)]
        first = search.prepare(None, messages)
        # One tool serves "translate"; "translate text" also finds `send_email`, whose body is
        # text, at a third of the best score: the floor's edge.
        messages = exchange(search, messages, "search_tools", queries=["translate"])
        if mode == "load":
            messages = exchange(search, messages, "load_tool", names=["translate_text"])
        later = search.prepare(None, messages)
        assert later[: len(first)] == first  # never reordered
        assert names(later)[len(first) :] == ["translate_text"]

    def test_loading_a_preloaded_tool_keeps_its_place(self) -> None:
        search = make_search()
        messages = [user(WEATHER)]
        first = search.prepare(None, messages)
        messages = exchange(search, messages, "load_tool", names=["get_forecast"])
        assert names(search.prepare(None, messages)) == names(first)

    def test_with_a_store_the_order_holds(self) -> None:
        search = make_search(mode="auto_load", store=InMemoryStore())
        messages = [user(WEATHER)]
        first = search.prepare("t", messages)
        result = search.execute(ToolCall("search_tools", {"queries": ["translate"]}), "t")
        messages = [*messages, {"role": "tool", "content": result.content}]
        later = search.prepare("t", messages)
        assert later[: len(first)] == first
        assert names(later)[len(first) :] == ["translate_text"]


class TestAcrossTurns:
    def test_the_next_user_message_preloads_afresh_after_the_discovered_tools(self) -> None:
        search = make_search(mode="auto_load")
        messages = exchange(search, [user(WEATHER)], "search_tools", queries=["translate"])
        messages = [*messages, user(EMAIL)]
        sent = search.prepare(None, messages)
        assert names(sent)[-2:] == ["translate_text", "send_email"]
        assert preloaded(sent) == ["send_email"]  # get_forecast was this turn's only

    def test_a_discovered_tool_is_not_preloaded_again(self) -> None:
        search = make_search(mode="auto_load")
        messages = exchange(search, [user(OFF_TOPIC)], "search_tools", queries=["forecast"])
        sent = search.prepare(None, [*messages, user(WEATHER)])
        assert names(sent).count("get_forecast") == 1 and preloaded(sent) == []


class TestFilter:
    @pytest.mark.parametrize("phase", ["search", "load", "active"])
    def test_a_tool_the_filter_hides_is_never_preloaded(self, phase: Phase) -> None:
        def no_forecast(tool: Any, context: Any, asked: Phase) -> bool:
            return not (tool.name == "get_forecast" and asked == phase)

        search = make_search(filter=no_forecast)
        assert "get_forecast" not in names(search.prepare(None, [user(WEATHER)]))

    def test_a_filter_that_fails_preloads_nothing(self) -> None:
        def broken(tool: Any, context: Any, phase: Phase) -> bool:
            raise RuntimeError("policy service down")

        search = make_search(filter=broken)
        assert preloaded(search.prepare(None, [user(WEATHER)])) == []

    def test_the_filter_is_asked_with_the_request(self) -> None:
        def admins_only(tool: Any, context: Any, phase: Phase) -> bool:
            return "admin" not in tool.tags or context == "admin"

        search = make_search(filter=admins_only)
        request = [user("Delete every file in the tmp folder")]
        assert preloaded(search.prepare(None, request, "guest")) == []
        assert preloaded(search.prepare(None, request, "admin")) == ["delete_all_files"]


class TestBudget:
    def test_max_tools(self) -> None:
        wide = "Send an email, translate text and get the weather forecast"
        assert len(preloaded(make_search().prepare(None, [user(wide)]))) == 3
        search = make_search(preload={"max_tools": 1})
        assert len(preloaded(search.prepare(None, [user(wide)]))) == 1

    def test_max_tokens_skips_what_does_not_fit(self) -> None:
        search = make_search(preload={"max_tokens": 20})
        assert preloaded(search.prepare(None, [user(WEATHER)])) == []


class TestThreshold:
    def test_a_weak_match_a_search_returns_is_not_sent_unasked(self) -> None:
        # Hybrid's search threshold keeps weak matches for a model that asks; preloading,
        # which sends tools for whatever the user says, holds them to a higher one.
        search = make_search(engine="hybrid")
        assert [entry.tool.name for entry in search.find(THANKS).found][:1] == ["send_email"]
        assert preloaded(search.prepare(None, [user(THANKS)])) == []
        assert preloaded(search.prepare(None, [user(WEATHER)])) == ["get_forecast"]

    def test_a_threshold_of_its_own(self) -> None:
        search = make_search(preload={"threshold": 0.99})
        assert preloaded(search.prepare(None, [user(WEATHER)])) == []
        assert preloaded(make_search(preload={"threshold": 0}).prepare(None, [user(WEATHER)]))

    def test_never_below_the_search_threshold(self) -> None:
        search = make_search(threshold=0.99)
        assert preloaded(search.prepare(None, [user(WEATHER)])) == []


class TestSearchStillWorks:
    def test_search_returns_a_tool_the_turn_did_not_preload(self) -> None:
        search = make_search()
        messages = [user(WEATHER)]
        assert "search_tools" in names(search.prepare(None, messages))
        result = search.execute(
            ToolCall("search_tools", {"queries": ["send an email"]}), messages=messages
        )
        assert '"send_email"' in result.content


class TestBadConfig:
    @pytest.mark.parametrize(
        ("preload", "message"),
        [
            ({"max_tools": 0}, "preload.max_tools: Input should be greater than or equal to 1"),
            ({"max_tools": 21}, "preload.max_tools: Input should be less than or equal to 20"),
            ({"max_tokens": 0}, "preload.max_tokens: Input should be greater than or equal to 1"),
            ({"enabled": "sometimes"}, "preload.enabled: Input should be a valid boolean"),
            ({"threshold": 1.5}, "preload.threshold: Input should be less than or equal to 1"),
            ({"threshold": -0.1}, "preload.threshold: Input should be greater than or equal to 0"),
            (
                {"tools": 3},
                "unknown option 'preload.tools'; the options are enabled, max_tools, max_tokens",
            ),
        ],
    )
    def test_refused_with_the_field_named(self, preload: dict[str, Any], message: str) -> None:
        with pytest.raises(
            ToolSearchConfigError, match="invalid tool search configuration"
        ) as error:
            make_search(preload=preload)
        assert message in str(error.value)
