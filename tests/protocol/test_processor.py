"""ToolSearch in each mode: what is sent at each step, and how each call is answered."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest

from tests.protocol.builders import call, make_catalog, names, plain_tool
from toolscout import Catalog, Tool
from toolscout.errors import ToolSearchConfigError
from toolscout.protocol import ToolCall, ToolSearch, ToolSearchConfig
from toolscout.protocol.results import parse_available
from toolscout.state import InMemoryStore


def make_search(catalog: Catalog | None = None, **options: Any) -> ToolSearch:
    # BM25: these tests are about the protocol, and BM25 finds nothing for stopwords alone.
    options.setdefault("engine", "bm25")
    return ToolSearch(catalog or make_catalog(), store=InMemoryStore(), **options)


class TestLoadMode:
    def test_starts_with_pinned_and_both_meta_tools(self) -> None:
        search = make_search()
        assert names(search.prepare("t1")) == ["ping", "whoami", "search_tools", "load_tool"]

    def test_search_names_tools_without_loading_them(self) -> None:
        search = make_search()
        result = call(search, "search_tools", queries=["weather forecast"])
        payload = json.loads(result.content)
        found = payload["results"][0]["tools"]
        assert found[0]["name"] == "get_forecast"
        assert set(found[0]) == {"name", "description", "score"}
        assert "load_tool" in payload["next"]
        assert "get_forecast" not in names(search.prepare("t1"))

    def test_load_tool_makes_several_tools_callable_next_step(self) -> None:
        search = make_search()
        result = call(search, "load_tool", names=["get_forecast", "send_email"])
        assert not result.is_error
        assert parse_available(result.content) == ["get_forecast", "send_email"]
        assert names(search.prepare("t1"))[-2:] == ["get_forecast", "send_email"]
        assert call(search, "get_forecast", city="Paris").content == "Sunny in Paris for 1 day(s)"

    def test_max_results_caps_what_the_model_asks_for(self) -> None:
        search = make_search(max_results=2, threshold=0)
        result = call(search, "search_tools", queries=["a the in for of"], max_results=20)
        assert json.loads(result.content)["results"][0]["tools"] == []
        many = call(search, "search_tools", queries=["text email event weather"], max_results=9)
        assert len(json.loads(many.content)["results"][0]["tools"]) == 2

    def test_several_queries_in_one_search(self) -> None:
        search = make_search()
        result = call(search, "search_tools", queries=["weather forecast", "send an email"])
        results = json.loads(result.content)["results"]
        assert [r["tools"][0]["name"] for r in results] == ["get_forecast", "send_email"]

    @pytest.mark.parametrize("result_format", ["json", "compact"])
    def test_a_tool_that_gives_another_its_value_says_so(self, result_format: str) -> None:
        # query-docs takes a library id "retrieved from resolve-library-id": the search brings
        # that tool right after it, and the result tells the model which one needs it.
        catalog = Catalog(
            [
                Tool(
                    name="resolve-library-id",
                    namespace="context7",
                    description="Resolves a package name to the ID of a library.",
                ),
                Tool(
                    name="query-docs",
                    namespace="context7",
                    description="Fetches up-to-date documentation and code examples.",
                    input_schema={
                        "type": "object",
                        "properties": {
                            "libraryId": {
                                "type": "string",
                                "description": "Library ID, retrieved from resolve-library-id.",
                            }
                        },
                    },
                ),
            ]
        )
        search = make_search(catalog, result_format=result_format, threshold=0)
        content = call(search, "search_tools", queries=["get the docs of fastapi"]).content
        if result_format == "json":
            tools = json.loads(content)["results"][0]["tools"]
            assert [tool["name"] for tool in tools] == [
                "context7__query-docs",
                "context7__resolve-library-id",
            ]
            assert "needed_by" not in tools[0]
            assert tools[1]["needed_by"] == "context7__query-docs"
        else:
            assert "context7__resolve-library-id (" in content
            assert "gives context7__query-docs a value it needs" in content

    def test_lenient_single_query(self) -> None:
        search = make_search()
        result = call(search, "search_tools", query="weather forecast")
        assert json.loads(result.content)["results"][0]["tools"][0]["name"] == "get_forecast"


class TestAutoLoad:
    def test_search_activates_its_hits_and_there_is_no_load_tool(self) -> None:
        search = make_search(mode="auto_load")
        assert names(search.prepare("t1")) == ["ping", "whoami", "search_tools"]
        result = call(search, "search_tools", queries=["weather forecast"])
        assert parse_available(result.content) == ["get_forecast"]
        assert names(search.prepare("t1"))[-1] == "get_forecast"
        assert call(search, "load_tool", names=["send_email"]).is_error

    def test_already_available_tools_come_after_new_ones(self) -> None:
        search = make_search(mode="auto_load", threshold=0)
        call(search, "search_tools", queries=["weather forecast"])
        again = json.loads(call(search, "search_tools", queries=["weather forecast"]).content)
        tools = again["results"][0]["tools"]
        assert tools[-1] == {**tools[-1], "name": "get_forecast", "already_available": True}


class TestProxyMode:
    def test_tool_list_never_changes(self) -> None:
        search = make_search(mode="proxy")
        before = search.prepare("t1")
        call(search, "search_tools", queries=["weather forecast", "email"])
        assert search.prepare("t1") == before
        assert names(before) == ["ping", "whoami", "search_tools", "call_tool"]

    def test_search_returns_full_definitions_and_call_tool_runs_them(self) -> None:
        search = make_search(mode="proxy")
        result = call(search, "search_tools", queries=["weather forecast"])
        definition = json.loads(result.content)["results"][0]["tools"][0]
        assert definition["parameters"]["required"] == ["city"]
        ran = call(search, "call_tool", name="get_forecast", arguments={"city": "Oslo", "days": 2})
        assert ran.content == "Sunny in Oslo for 2 day(s)"

    def test_call_tool_takes_arguments_as_json_text(self) -> None:
        search = make_search(mode="proxy")
        call(search, "search_tools", queries=["email"])
        ran = call(
            search, "call_tool", name="send_email", arguments='{"to": "a@b.c", "subject": "Hi"}'
        )
        assert json.loads(ran.content) == {"status": "sent", "to": "a@b.c"}

    def test_call_tool_runs_a_tool_by_its_exact_name_without_a_search(self) -> None:
        search = make_search(mode="proxy")
        result = call(search, "call_tool", name="get_forecast", arguments={"city": "Oslo"})
        assert result.content == "Sunny in Oslo for 1 day(s)"
        refused = call(search, "call_tool", name="get_forecast", arguments={"days": 2})
        assert refused.is_error and "'city' is a required property" in refused.content

    def test_call_tool_refuses_a_tool_not_found_yet_when_discovery_is_required(self) -> None:
        search = make_search(mode="proxy", require_discovery=True)
        result = call(search, "call_tool", name="get_forecast", arguments={"city": "Oslo"})
        assert result.is_error
        assert 'search_tools with {"queries": ["get_forecast"]}' in result.content

    def test_compact_format_costs_fewer_tokens(self) -> None:
        from toolscout.catalog import count_tokens

        results = {}
        for result_format in ("json", "compact"):
            search = make_search(mode="proxy", result_format=result_format)
            content = call(search, "search_tools", queries=["weather", "email", "calendar"]).content
            results[result_format] = count_tokens(content)
        assert results["compact"] < results["json"]


class TestLazyMode:
    def test_discovery_tool_lists_names_and_first_sentences(self) -> None:
        search = make_search(mode="lazy")
        definitions = search.prepare("t1")
        assert names(definitions) == ["ping", "whoami", "__lazy__tool__discovery__"]
        description = definitions[-1].description
        assert "- get_forecast: Get the weather forecast for a city." in description
        assert "from 1 to 7" not in description  # first sentences only

    def test_discovered_tools_become_normal_tools(self) -> None:
        search = make_search(mode="lazy")
        result = call(search, "__lazy__tool__discovery__", tool_names=["get_forecast"])
        assert json.loads(result.content)["tools"][0]["parameters"]["required"] == ["city"]
        assert names(search.prepare("t1"))[-1] == "get_forecast"
        assert call(search, "get_forecast", city="Rome").content == "Sunny in Rome for 1 day(s)"

    def test_retires_once_everything_is_discovered_but_stays_callable(self) -> None:
        search = make_search(mode="lazy")
        everything = [t.name for t in search.catalog if t.deferred]
        call(search, "__lazy__tool__discovery__", tool_names=everything)
        assert "__lazy__tool__discovery__" not in names(search.prepare("t1"))
        again = call(search, "__lazy__tool__discovery__", tool_names=["get_forecast"])
        assert not again.is_error

    def test_has_no_search_tools(self) -> None:
        search = make_search(mode="lazy")
        assert call(search, "search_tools", queries=["weather"]).is_error


class TestPinnedToolsAreNeverFound:
    """The index ranks every tool; `search_tools` hands each search only the deferred ones,
    whichever of the three names pins a tool."""

    @pytest.mark.parametrize("engine", ["bm25", "regex", "hybrid"])
    @pytest.mark.parametrize("mode", ["load", "auto_load", "proxy"])
    @pytest.mark.parametrize("how", ["pinned", "not deferred", "config"])
    def test_not_even_by_its_name_or_its_own_words(self, engine: str, mode: str, how: str) -> None:
        radar = plain_tool("weather_radar", "Show the weather radar.")
        options: dict[str, Any] = {}
        if how == "pinned":
            radar = radar.model_copy(update={"pinned": True})
        elif how == "not deferred":
            radar = radar.model_copy(update={"deferred": False})
        else:
            options["pinned"] = ["weather_radar"]
        search = make_search(
            make_catalog(radar), engine=engine, mode=mode, threshold=0, max_results=20, **options
        )
        for query in ["weather_radar", "weather radar", "radar"]:
            assert search.index.search(query, threshold=0)[0].tool.name == "weather_radar"
            result = call(search, "search_tools", queries=[query])
            found = json.loads(result.content)["results"][0]["tools"]
            assert "weather_radar" not in [tool["name"] for tool in found]
        assert names(search.prepare("t1"))[:3] == ["ping", "whoami", "weather_radar"]


class TestPromptCachePrefix:
    @pytest.mark.parametrize("mode", ["load", "auto_load", "proxy", "lazy"])
    def test_each_step_extends_the_previous_list_byte_for_byte(self, mode: str) -> None:
        search = make_search(mode=mode)
        steps = [_serialized(search.prepare("t1"))]
        discover = {
            "load": lambda n: call(search, "load_tool", names=[n]),
            "auto_load": lambda n: call(search, "search_tools", queries=[n]),
            "proxy": lambda n: call(search, "search_tools", queries=[n]),
            "lazy": lambda n: call(search, "__lazy__tool__discovery__", tool_names=[n]),
        }[mode]
        for name in ("translate_text", "get_forecast", "send_email"):
            discover(name)
            steps.append(_serialized(search.prepare("t1")))
        for before, after in itertools.pairwise(steps):
            assert after[: len(before)] == before

    def test_discovered_tools_come_in_discovery_order_not_catalog_order(self) -> None:
        search = make_search()
        call(search, "load_tool", names=["translate_text"])
        call(search, "load_tool", names=["get_forecast", "translate_text"])
        assert names(search.prepare("t1"))[-2:] == ["translate_text", "get_forecast"]


def _serialized(definitions: list[Any]) -> list[str]:
    return [json.dumps(d.as_function(), sort_keys=False) for d in definitions]


class TestSelfCorrection:
    def test_undiscovered_tool_says_how_to_discover_it(self) -> None:
        expected = {
            "load": 'call load_tool with {"names": ["get_forecast"]}',
            "auto_load": 'call search_tools with {"queries": ["get_forecast"]}',
            "lazy": 'call __lazy__tool__discovery__ with {"tool_names": ["get_forecast"]}',
            "proxy": 'call_tool({"name": "get_forecast"',
        }
        for mode, advice in expected.items():
            search = make_search(mode=mode, require_discovery=True)
            result = call(search, "get_forecast", city="Paris")
            assert result.is_error and advice in result.content, mode

    def test_unknown_name_gets_suggestions(self) -> None:
        result = call(make_search(), "get_forcast", city="Paris")
        assert result.is_error
        assert "Unknown tool 'get_forcast'. Did you mean: get_forecast?" in result.content

    def test_arguments_are_validated_against_the_schema(self) -> None:
        search = make_search()
        call(search, "load_tool", names=["get_forecast"])
        result = call(search, "get_forecast", days="two")
        assert result.is_error
        assert "'city' is a required property" in result.content
        assert "days: 'two' is not of type 'integer'" in result.content
        assert "city: string, required" in result.content  # the expected parameters

    def test_empty_search_says_not_to_retry(self) -> None:
        result = call(make_search(), "search_tools", queries=["tell me a joke"])
        notice = json.loads(result.content)["results"][0]["notice"]
        assert "Do not retry the same words" in notice

    def test_bad_meta_arguments_show_a_correct_call(self) -> None:
        result = call(make_search(), "search_tools", queries=[])
        assert result.is_error and 'search_tools({"queries": ["send email"]})' in result.content
        broken = make_search().execute(ToolCall("load_tool", "{not json", id="x"), "t1")
        assert broken.is_error and "not valid JSON" in broken.content

    def test_a_failing_handler_is_reported_not_raised(self) -> None:
        def explode() -> None:
            """Always fails."""
            raise RuntimeError("disk full")

        search = make_search(make_catalog(plain_tool("x").model_copy(update={"handler": explode})))
        call(search, "load_tool", names=["x"])
        result = call(search, "x")
        assert result.is_error and "RuntimeError: disk full" in result.content


class TestHandlers:
    def test_async_handlers_are_awaited(self) -> None:
        search = make_search()
        call(search, "load_tool", names=["send_email"])
        result = call(search, "send_email", to="a@b.c", subject="Hi")
        assert result.value == {"status": "sent", "to": "a@b.c"}

    def test_request_context_reaches_the_handler(self) -> None:
        search = make_search()
        result = search.execute(ToolCall("whoami", {}), "t1", {"user": "ada"})
        assert json.loads(result.content) == {"user": "ada"}

        def tenant(*, request_context: Any) -> str:
            return str(request_context["tenant"])

        tool = plain_tool("tenant", pinned=True).model_copy(update={"handler": tenant})
        other = make_search(make_catalog(tool))
        assert other.execute(ToolCall("tenant", {}), "t1", {"tenant": "acme"}).content == "acme"

    def test_async_api_inside_a_running_loop(self) -> None:
        async def scenario() -> str:
            search = make_search()
            await search.aexecute(ToolCall("load_tool", {"names": ["get_forecast"]}), "t1")
            with pytest.raises(RuntimeError, match="await aprepare"):
                search.prepare("t1")
            result = await search.aexecute(ToolCall("get_forecast", {"city": "Nice"}), "t1")
            return result.content

        assert asyncio.run(scenario()) == "Sunny in Nice for 1 day(s)"


class TestCatalogChanges:
    def test_tools_added_at_run_time_are_searchable_at_once(self) -> None:
        search = make_search()
        search.catalog.add(plain_tool("get_air_quality", "Air quality index for a city."))
        result = call(search, "search_tools", queries=["air quality"])
        assert json.loads(result.content)["results"][0]["tools"][0]["name"] == "get_air_quality"

    def test_passthrough_tools_are_sent_untouched(self) -> None:
        search = make_search()
        web_search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
        definitions = search.prepare("t1", tools=[web_search])
        assert definitions[2].raw == web_search
        assert names(definitions) == ["ping", "whoami", "web_search", "search_tools", "load_tool"]

    def test_no_deferred_tools_means_nothing_added(self) -> None:
        catalog = Catalog([plain_tool("a", "A.", deferred=False), plain_tool("b", pinned=True)])
        assert names(ToolSearch(catalog).prepare()) == ["a", "b"]

    def test_ids_that_are_not_valid_tool_names_get_valid_unique_names(self) -> None:
        catalog = make_catalog(plain_tool("weather.get", "Dotted name from BFCL."))
        search = make_search(catalog)
        result = call(search, "search_tools", queries=["dotted name"])
        name = json.loads(result.content)["results"][0]["tools"][0]["name"]
        assert name.startswith("weather_get_") and len(name) <= 64
        call(search, "load_tool", names=[name])
        assert name in names(search.prepare("t1"))


class TestConfiguration:
    def test_a_user_tool_named_like_a_meta_tool_is_an_error(self) -> None:
        with pytest.raises(ToolSearchConfigError, match=r"'search_tools'.*meta_tool_names"):
            ToolSearch(make_catalog(plain_tool("search_tools")))
        renamed = ToolSearch(
            make_catalog(plain_tool("search_tools")), meta_tool_names={"search": "find_tools"}
        )
        assert "find_tools" in names(renamed.prepare())

    def test_a_passthrough_tool_named_like_a_meta_tool_is_an_error(self) -> None:
        with pytest.raises(ToolSearchConfigError, match="load_tool"):
            make_search().prepare(tools=[{"name": "load_tool", "input_schema": {}}])

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            ({"max_results": 21}, "max_results"),
            ({"max_results": 0}, "max_results"),
            ({"mode": "eager"}, "mode"),
            ({"maxresults": 3}, "unknown option"),
            ({"meta_tool_names": {"search": "bad name"}}, "not a valid tool name"),
            ({"pinned": ["nope"]}, "pinned tools"),
        ],
    )
    def test_invalid_options_are_named(self, options: dict[str, Any], message: str) -> None:
        with pytest.raises(ToolSearchConfigError, match=message):
            ToolSearch(make_catalog(), **options)

    @pytest.mark.parametrize("min_score", [float("nan"), float("inf"), float("-inf")])
    def test_a_min_score_that_is_not_finite_is_refused(self, min_score: float) -> None:
        with pytest.raises(ToolSearchConfigError, match="min_score: Input should be a finite"):
            ToolSearch(make_catalog(), min_score=min_score)

    def test_an_empty_thread_id_is_an_anonymous_conversation(self) -> None:
        search = make_search()  # its store refuses requests without a thread id
        result = call(search, "load_tool", "", names=["get_forecast"])
        assert not result.is_error
        messages = [{"role": "tool", "tool_call_id": "call_load_tool", "content": result.content}]
        for thread_id in (None, ""):  # read from the messages, as for None
            assert "get_forecast" in names(search.prepare(thread_id, messages))
            assert "get_forecast" not in names(search.prepare(thread_id))
            called = search.execute(
                ToolCall("get_forecast", {"city": "Paris"}), thread_id, None, messages=messages
            )
            assert called.content == "Sunny in Paris for 1 day(s)"
        assert isinstance(search.store, InMemoryStore)
        assert search.store.stats().threads == 0  # nothing was saved for ""

    def test_config_object_and_pinned_ids(self) -> None:
        config = ToolSearchConfig(mode="auto_load", pinned=["translate_text"])
        search = ToolSearch(make_catalog(), config, max_results=3)
        assert search.config.max_results == 3
        assert names(search.prepare()) == ["ping", "whoami", "translate_text", "search_tools"]

    def test_repr(self) -> None:
        assert "mode='load'" in repr(ToolSearch(Catalog([Tool(name="a")])))


class TestSlowPatternSearches:
    def test_other_sessions_are_answered_while_a_pattern_search_runs(self) -> None:
        # Each of these patterns costs RE2 its time budget on this catalog (issue 13, break
        # 3): run on the event loop, the search would hold every other session meanwhile.
        words = ["alpha", "beta", "gamma", "delta", "weather", "forecast", "invoice", "report"]
        catalog = Catalog(
            Tool(name=f"tool_{n}", description=" ".join(words[(n + i) % 8] for i in range(400)))
            for n in range(500)
        )
        search = make_search(catalog, engine="regex")
        slow = ToolCall("search_tools", {"queries": [f"(?s)(a|.){{0,1000}}#{n}" for n in range(5)]})

        async def main() -> tuple[Any, int]:
            searching = asyncio.create_task(search.aexecute(slow, "slow"))
            await asyncio.sleep(0)  # the search has started
            answered = 0
            while not searching.done():
                assert names(await search.aprepare("other"))[-2:] == ["search_tools", "load_tool"]
                answered += 1
                await asyncio.sleep(0)
            return await searching, answered

        result, answered = asyncio.run(main())
        assert "stopped after 0.1s" in result.content
        assert answered > 0
