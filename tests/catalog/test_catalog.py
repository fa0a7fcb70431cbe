"""The live `Catalog`: unique ids, order, versions, and changes at run time."""

from __future__ import annotations

from typing import Any

import pytest

from toolscout.catalog import Catalog
from toolscout.errors import DuplicateToolError, ToolDefinitionError, UnknownToolError

from .tool_examples import ANTHROPIC_WEATHER, MCP_WEATHER, OPENAI_CHAT_WEATHER, make_tool


def make_catalog(*names: str, namespace: str | None = None) -> Catalog:
    return Catalog([make_tool(name, namespace=namespace) for name in names])


def ids(catalog: Catalog) -> list[str]:
    return [tool.id for tool in catalog]


class TestBuilding:
    def test_accepts_every_shape_to_tools_reads(self) -> None:
        def get_time() -> str:
            return "noon"

        catalog = Catalog([OPENAI_CHAT_WEATHER, MCP_WEATHER, get_time])
        assert ids(catalog) == ["get_weather", "get_weather_data", "get_time"]

    def test_empty(self) -> None:
        catalog = Catalog()
        assert (len(catalog), catalog.version, list(catalog)) == (0, 0, [])

    def test_bad_definition_is_reported_and_nothing_is_built(self) -> None:
        with pytest.raises(ToolDefinitionError, match="tool 'f': description must be a string"):
            Catalog([ANTHROPIC_WEATHER, {"name": "f", "description": 1, "parameters": {}}])


class TestNamespaces:
    def test_same_name_in_two_namespaces_gives_two_ids(self) -> None:
        catalog = Catalog()
        catalog.add(make_tool(namespace="weather"))
        catalog.add(make_tool(namespace="maps"))
        assert ids(catalog) == ["weather__get_weather", "maps__get_weather"]
        assert [tool.namespace for tool in catalog.by_name("get_weather")] == ["weather", "maps"]

    def test_a_catalog_takes_in_another_catalogs_tools(self) -> None:
        catalog = Catalog()
        catalog.add(Catalog([OPENAI_CHAT_WEATHER]))
        catalog.add(make_catalog("get_weather", namespace="backup"))
        assert ids(catalog) == ["get_weather", "backup__get_weather"]


class TestDuplicateIds:
    def test_same_name_twice_in_a_namespace(self) -> None:
        catalog = make_catalog("get_weather", namespace="weather")
        with pytest.raises(DuplicateToolError) as raised:
            catalog.add(make_tool("get_weather", namespace="weather"))
        assert str(raised.value) == (
            "tool 'get_weather' appears twice in namespace 'weather' (id 'weather__get_weather'); "
            "rename one, or give them different namespaces"
        )

    def test_same_name_twice_without_namespace(self) -> None:
        with pytest.raises(DuplicateToolError, match=r"twice in the catalog \(no namespace\)"):
            Catalog([ANTHROPIC_WEATHER, OPENAI_CHAT_WEATHER])

    def test_a_failed_add_changes_nothing(self) -> None:
        catalog = make_catalog("a", "b")
        with pytest.raises(DuplicateToolError):
            catalog.add([make_tool("c"), make_tool("a")])
        assert (ids(catalog), catalog.version) == (["a", "b"], 1)


class TestLiveCatalog:
    def test_add_appends_in_order_and_bumps_version(self) -> None:
        catalog = make_catalog("a")
        added = catalog.add([make_tool("b"), make_tool("c")])
        assert [tool.id for tool in added] == ["b", "c"]
        assert (ids(catalog), catalog.version) == (["a", "b", "c"], 2)

    def test_adding_nothing_keeps_the_version(self) -> None:
        catalog = make_catalog("a")
        catalog.add([])
        assert catalog.version == 1

    def test_remove_keeps_the_order_of_the_rest(self) -> None:
        catalog = make_catalog("a", "b", "c", "d")
        catalog.remove("b", "d")
        assert (ids(catalog), catalog.version) == (["a", "c"], 2)

    def test_replace_keeps_the_position(self) -> None:
        catalog = make_catalog("a", "b", "c")
        catalog.replace(make_tool("b", description="Better words."))
        assert ids(catalog) == ["a", "b", "c"]
        assert (catalog["b"].description, catalog.version) == ("Better words.", 2)

    def test_replace_accepts_any_shape(self) -> None:
        catalog = Catalog([ANTHROPIC_WEATHER])
        replaced = catalog.replace({**OPENAI_CHAT_WEATHER})
        assert catalog["get_weather"] is replaced
        assert replaced.metadata == {"strict": True}

    def test_replace_of_an_unknown_tool(self) -> None:
        with pytest.raises(UnknownToolError, match="no tool with id 'z'"):
            make_catalog("a").replace(make_tool("z"))

    def test_remove_of_an_unknown_id_removes_nothing(self) -> None:
        catalog = make_catalog("a", "b")
        with pytest.raises(UnknownToolError) as raised:
            catalog.remove("a", "z")
        assert str(raised.value) == "no tool with id 'z' in the catalog"
        assert (ids(catalog), catalog.version) == (["a", "b"], 1)

    def test_lookups(self) -> None:
        catalog = make_catalog("a", "b")
        assert catalog.get("a") is catalog["a"]
        assert catalog.get("z") is None
        assert ("a" in catalog, "z" in catalog, len(catalog)) == (True, False, 2)
        with pytest.raises(UnknownToolError):
            catalog["z"]

    def test_snapshot_reads_version_and_tools_together(self) -> None:
        catalog = make_catalog("a", "b")
        version, tools = catalog.snapshot()
        catalog.remove("a")
        assert (version, [tool.id for tool in tools]) == (1, ["a", "b"])

    def test_iterating_while_changing_is_safe(self) -> None:
        catalog = make_catalog("a", "b", "c")
        for tool in catalog:
            catalog.remove(tool.id)
        assert len(catalog) == 0


class TestFingerprint:
    @pytest.mark.parametrize(
        "change",
        [
            {"name": "get_forecast"},
            {"namespace": "weather"},
            {"description": "Another description."},
            {"input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"tags": ("forecast",)},
        ],
        ids=["name", "namespace", "description", "schema", "tags"],
    )
    def test_changes_with_what_search_reads(self, change: dict[str, Any]) -> None:
        assert make_tool(**change).fingerprint != make_tool().fingerprint

    @pytest.mark.parametrize(
        "change",
        [{"metadata": {"owner": "ops"}}, {"pinned": True}, {"deferred": False}, {"handler": print}],
        ids=["metadata", "pinned", "deferred", "handler"],
    )
    def test_stays_when_search_reads_nothing_new(self, change: dict[str, Any]) -> None:
        assert make_tool(**change).fingerprint == make_tool().fingerprint

    def test_a_replaced_tool_with_new_words_has_a_new_fingerprint(self) -> None:
        catalog = make_catalog("a")
        before = catalog["a"].fingerprint
        catalog.replace(make_tool("a", description="New words."))
        assert catalog["a"].fingerprint != before


class TestToolRules:
    def test_pinned_is_never_deferred(self) -> None:
        assert make_tool(pinned=True).deferred is False

    def test_pinned_and_explicitly_deferred_is_an_error(self) -> None:
        with pytest.raises(ToolDefinitionError, match=r"both pinned .* and deferred"):
            Catalog([{**make_tool().model_dump(), "pinned": True, "deferred": True}])

    def test_tools_are_immutable(self) -> None:
        tool = make_tool()
        with pytest.raises(ValueError, match="frozen"):
            tool.name = "other"


class TestChangedCopies:
    def test_a_copy_with_a_new_name_gets_the_id_of_that_name(self) -> None:
        tool = make_tool("get_weather", namespace="weather")
        renamed = tool.model_copy(update={"name": "get_forecast"})
        assert renamed.id == "weather__get_forecast"

    def test_a_copy_keeps_an_id_that_was_given_explicitly(self) -> None:
        tool = make_tool("get_weather").model_copy(update={"id": "custom"})
        assert tool.model_copy(update={"name": "other"}).id == "custom"

    def test_a_copy_with_new_words_has_a_new_fingerprint(self) -> None:
        tool = make_tool("get_weather")
        first = tool.fingerprint
        edited = tool.model_copy(update={"description": "Something else entirely."})
        assert edited.fingerprint != first
        assert tool.model_copy(update={"metadata": {"v": 2}}).fingerprint == first

    def test_a_copy_is_validated_like_a_new_tool(self) -> None:
        with pytest.raises(ToolDefinitionError, match="input_schema must describe an object"):
            make_tool("get_weather").model_copy(update={"input_schema": {"type": "array"}})


class TestNamespaceOnAdd:
    def test_namespace_applies_to_tools_without_one(self) -> None:
        catalog = Catalog([make_tool("get_weather")], namespace="weather")
        catalog.add([make_tool("send"), make_tool("post", namespace="slack")], namespace="mail")
        assert ids(catalog) == ["weather__get_weather", "mail__send", "slack__post"]
