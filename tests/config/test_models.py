"""The config models: building the processor and its store, round trips, subclassing."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolscout import Catalog, Tool
from toolscout.config import (
    ConfigError,
    StoreSettings,
    ToolScoutConfig,
    ToolSearchSettings,
    load_config,
    parse_config,
)
from toolscout.errors import ToolSearchConfigError
from toolscout.protocol import ToolSearch, ToolSearchConfig
from toolscout.state import InMemoryStore, SQLiteStore


def make_catalog() -> Catalog:
    return Catalog(
        [
            Tool(name="now", description="The current date and time."),
            Tool(name="create_issue", namespace="github", description="Open a GitHub issue."),
            Tool(name="search", namespace="github", description="Search GitHub issues."),
            Tool(name="search", namespace="slack", description="Search Slack messages."),
        ]
    )


class TestBuild:
    def test_builds_the_processor_the_settings_describe(self) -> None:
        settings = ToolSearchSettings(
            mode="proxy", max_results=3, always_available=["now"], result_format="compact"
        )
        search = settings.build(make_catalog())
        assert isinstance(search, ToolSearch)
        assert type(search.config) is ToolSearchConfig
        assert (search.config.mode, search.config.max_results) == ("proxy", 3)
        assert search.config.pinned == ("now",)
        assert search.store is None  # discoveries are read from the messages
        assert [d.name for d in search.prepare()] == ["now", "search_tools", "call_tool"]

    def test_always_available_takes_a_unique_name_for_its_id(self) -> None:
        search = ToolSearchSettings(always_available=["create_issue", "now"]).build(make_catalog())
        assert search.config.pinned == ("github__create_issue", "now")

    def test_always_available_refuses_a_shared_name_or_an_unknown_tool(self) -> None:
        with pytest.raises(ToolSearchConfigError, match="github__search, slack__search"):
            ToolSearchSettings(always_available=["search"]).build(make_catalog())
        with pytest.raises(ToolSearchConfigError, match="did you mean now"):
            ToolSearchSettings(always_available=["nowe"]).build(make_catalog())

    def test_builds_the_store(self, tmp_path: Path) -> None:
        memory = StoreSettings(kind="memory", ttl=5, anonymous="isolate").build()
        assert isinstance(memory, InMemoryStore)
        assert (memory.ttl, memory.anonymous) == (5, "isolate")
        sqlite = StoreSettings(kind="sqlite", path=tmp_path / "s.db").build()
        assert isinstance(sqlite, SQLiteStore)
        sqlite.close()
        assert StoreSettings().build() is None

    def test_filter_is_passed_on(self) -> None:
        def deny_all(tool: Tool, context: object, phase: str) -> bool:
            return False

        search = ToolSearchSettings().build(make_catalog(), filter=deny_all)
        assert search.filter is deny_all

    def test_overrides_are_validated_like_the_settings(self) -> None:
        settings = ToolSearchSettings(always_available=["now"])
        search = settings.build(make_catalog(), mode="auto_load", pinned=())
        assert (search.config.mode, search.config.pinned) == ("auto_load", ())
        with pytest.raises(ToolSearchConfigError, match="max_results"):
            settings.build(make_catalog(), max_results=50)
        with pytest.raises(ToolSearchConfigError, match="unknown option"):
            settings.build(make_catalog(), max_result=3)

    def test_a_given_store_and_index_are_used(self) -> None:
        catalog = make_catalog()
        first = ToolSearchSettings(engine="bm25").build(catalog)
        store = InMemoryStore()
        second = ToolSearchSettings(engine="bm25", max_results=2).build(
            catalog, store=store, index=first.index
        )
        assert second.store is store and second.index is first.index

    def test_python_construction_is_validated(self) -> None:
        with pytest.raises(ValidationError):
            ToolSearchSettings(max_results=21)
        with pytest.raises(ValidationError):
            StoreSettings(kind="sqlite")


class TestStoreUrlVariables:
    """`tool_search.store.url` is read from the environment when the store is built, and
    written back as the file has it (issue 13, break 11)."""

    def test_the_url_is_read_when_the_store_is_built(
        self, redis_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("TOOLSCOUT_TEST_REDIS", redis_url)
        path = tmp_path / "toolscout.yaml"
        path.write_text("tool_search:\n  store: {kind: redis, url: '${TOOLSCOUT_TEST_REDIS}'}\n")
        config = load_config(path)
        assert config.tool_search.store.url == "${TOOLSCOUT_TEST_REDIS}"
        written = config.to_yaml()
        assert "${TOOLSCOUT_TEST_REDIS}" in written
        assert redis_url not in written
        store = config.tool_search.store.build()
        assert store is not None
        thread = f"variables-{uuid.uuid4().hex}"
        store.save(thread, ["a"])
        assert store.load(thread) == ["a"]
        store.clear(thread)

    def test_an_unset_variable_is_a_mistake_at_its_line(self, tmp_path: Path) -> None:
        path = tmp_path / "toolscout.yaml"
        path.write_text("tool_search:\n  store:\n    kind: redis\n    url: ${TOOLSCOUT_NOT_SET}\n")
        with pytest.raises(ConfigError, match=r"toolscout\.yaml:4:5: tool_search\.store\.url: "):
            load_config(path)
        default = StoreSettings(kind="redis", url="${TOOLSCOUT_NOT_SET:-redis://localhost:1/0}")
        assert default.url == "${TOOLSCOUT_NOT_SET:-redis://localhost:1/0}"

    def test_a_variable_unset_before_the_build_is_a_clear_error(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        pytest.importorskip("redis")
        monkeypatch.setenv("TOOLSCOUT_TEST_REDIS", "redis://localhost:1/0")
        settings = StoreSettings(kind="redis", url="${TOOLSCOUT_TEST_REDIS}")
        monkeypatch.delenv("TOOLSCOUT_TEST_REDIS")
        with pytest.raises(ToolSearchConfigError, match=r"store\.url uses \$\{TOOLSCOUT_TEST"):
            settings.build()


class TestStorePathVariables:
    """`tool_search.store.path` reads `${VAR}` when the store is built, as `url` does, and is
    written back as the file has it."""

    def test_the_path_is_read_when_the_store_is_built(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        state = tmp_path / "state"
        state.mkdir()
        monkeypatch.setenv("TOOLSCOUT_TEST_STATE", str(state))
        path = tmp_path / "config" / "toolscout.yaml"
        path.parent.mkdir()
        path.write_text(
            "tool_search:\n  store: {kind: sqlite, path: '${TOOLSCOUT_TEST_STATE}/found.db'}\n"
        )
        config = load_config(path)
        assert config.tool_search.store.path == Path("${TOOLSCOUT_TEST_STATE}/found.db")
        written = config.to_yaml()
        assert "${TOOLSCOUT_TEST_STATE}/found.db" in written
        assert str(state) not in written
        store = config.tool_search.store.build()
        assert isinstance(store, SQLiteStore)
        store.save("thread", ["a"])
        store.close()
        assert (state / "found.db").is_file()

    def test_a_home_path_is_the_users(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        path = tmp_path / "toolscout.yaml"
        path.write_text("tool_search:\n  store: {kind: sqlite, path: ~/found.db}\n")
        assert load_config(path).tool_search.store.path == tmp_path / "home" / "found.db"

    def test_an_unset_variable_is_a_mistake_at_its_line(self, tmp_path: Path) -> None:
        path = tmp_path / "toolscout.yaml"
        path.write_text("tool_search:\n  store:\n    kind: sqlite\n    path: ${NOT_SET_HERE}/a\n")
        with pytest.raises(ConfigError, match=r"toolscout\.yaml:4:5: tool_search\.store\.path: "):
            load_config(path)

    def test_a_variable_unset_before_the_build_is_a_clear_error(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("TOOLSCOUT_TEST_STATE", str(tmp_path))
        settings = StoreSettings(kind="sqlite", path="${TOOLSCOUT_TEST_STATE}/found.db")
        monkeypatch.delenv("TOOLSCOUT_TEST_STATE")
        with pytest.raises(ToolSearchConfigError, match=r"store\.path uses \$\{TOOLSCOUT_TEST"):
            settings.build()
        assert not (tmp_path / "found.db").exists()


class TestRoundTrip:
    @pytest.mark.parametrize(
        "config",
        [
            ToolScoutConfig(),
            ToolScoutConfig(
                tool_search=ToolSearchSettings(
                    enabled=True,
                    mode="lazy",
                    engine="regex",
                    threshold=0.25,
                    min_score=1.5,
                    always_available=["now", "café"],
                    meta_tool_names={"search": "find_tools"},
                    store=StoreSettings(kind="redis", url="redis://cache:6379/1", ttl=0),
                )
            ),
        ],
        ids=["defaults", "everything"],
    )
    def test_to_yaml_reads_back_equal(self, config: ToolScoutConfig, tmp_path: Path) -> None:
        path = tmp_path / "config.yaml"
        path.write_text(config.to_yaml(), encoding="utf-8")
        assert load_config(path) == config

    def test_to_yaml_says_first_whether_search_is_on(self) -> None:
        text = ToolScoutConfig().to_yaml()
        assert text.startswith("tool_search:\n  enabled: false\n")
        assert "always_available: []" in text and "pinned" not in text


class StdioServer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    transport: Literal["stdio"] = "stdio"
    command: str
    args: list[str] = []


class HttpServer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    transport: Literal["http"]
    url: str


Server = Annotated[StdioServer | HttpServer, Field(discriminator="transport")]


class GatewayConfig(ToolScoutConfig):
    """A host's config: tool search plus sections of its own."""

    servers: dict[str, Server] = Field(default_factory=dict)
    port: int = Field(default=8000, ge=1, le=65535)
    mirrors: list[HttpServer] = Field(default_factory=list)


GATEWAY = """\
port: 9000
servers:
  github:
    transport: stdio
    command: github-mcp
  docs:
    transport: http
    url: https://docs.example/mcp
tool_search:
  enabled: true
"""


class TestSubclassing:
    def test_a_subclass_reads_its_own_sections(self, tmp_path: Path) -> None:
        path = tmp_path / "gateway.yaml"
        path.write_text(GATEWAY, encoding="utf-8")
        config = load_config(path, GatewayConfig)
        assert isinstance(config, GatewayConfig)
        assert config.port == 9000
        assert isinstance(config.servers["docs"], HttpServer)
        assert config.tool_search.enabled
        assert parse_config(config.to_yaml(), GatewayConfig) == config

    @pytest.mark.parametrize(
        ("change", "expected"),
        [
            (
                ("command: github-mcp", "comand: github-mcp"),
                "gateway.yaml:3:3: servers.github.command: is required; add it; "
                "gateway.yaml:5:5: servers.github.comand: unknown key (did you mean command?); "
                "the keys here are transport, command, args",
            ),
            (
                ("transport: http", "transport: htp"),
                "gateway.yaml:7:5: servers.docs.transport: must be one of stdio, http "
                "(got 'htp'; did you mean http?)",
            ),
            (("port: 9000", "port: 0"), "gateway.yaml:1:1: port: must be at least 1 (got 0)"),
            (
                ("  enabled: true", "  enabled: true\n  max_results: 99"),
                "gateway.yaml:11:3: tool_search.max_results: must be at most 20 (got 99)",
            ),
            (
                ("tool_search:\n  enabled: true\n", "mirrors:\n  - url: x\n    tls: no\n"),
                "gateway.yaml:10:5: mirrors[0].transport: is required; add it; "
                "gateway.yaml:11:5: mirrors[0].tls: unknown key; the keys here are transport, url",
            ),
        ],
        ids=["union-member-key", "discriminator", "own-field", "inherited-field", "list-item"],
    )
    def test_mistakes_in_subclass_fields_name_their_line(
        self, change: tuple[str, str], expected: str
    ) -> None:
        text = GATEWAY.replace(*change)
        with pytest.raises(ConfigError) as caught:
            parse_config(text, GatewayConfig, name="gateway.yaml")
        message = str(caught.value)
        assert message == expected
