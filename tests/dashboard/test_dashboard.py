"""`Dashboard`: what each panel of the page answers, without the web server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolscout.config import ConfigError, ToolSearchSettings, load_config
from toolscout.dashboard import ConfigFile, Dashboard
from toolscout.errors import DashboardError
from toolscout.protocol import ToolCall
from toolscout.search import ToolIndex

from .conftest import make_catalog, make_dashboard

WEATHER = "weather__get_current_weather"


class TestSettings:
    def test_starts_from_the_settings_it_is_given(self, tmp_path: Path) -> None:
        state = make_dashboard(tmp_path, engine="regex", max_results=7).state()
        assert state.settings.engine == "regex"
        assert state.settings.max_results == 7
        assert state.tools == 12
        assert not state.unsaved

    def test_a_change_is_validated_and_marks_the_settings_unsaved(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path)
        state = dashboard.update({"max_results": 9, "threshold": 0.55, "mode": "proxy"})
        assert (state.settings.max_results, state.settings.threshold) == (9, 0.55)
        assert state.settings.effective_threshold == 0.55
        assert state.unsaved

    @pytest.mark.parametrize(
        ("changes", "message"),
        [
            ({"max_results": 50}, "max_results: Input should be less than or equal to 20"),
            ({"threshold": 1.5}, "threshold: Input should be less than or equal to 1"),
            ({"engine": "grep"}, "engine: Input should be"),
            ({"store": {"kind": "redis"}}, "cannot change store"),
            ({"always_available": ["no_such_tool"]}, "no tool 'no_such_tool'"),
        ],
    )
    def test_an_impossible_change_is_refused_and_changes_nothing(
        self, tmp_path: Path, changes: dict[str, object], message: str
    ) -> None:
        dashboard = make_dashboard(tmp_path)
        before = dashboard.state()
        with pytest.raises(DashboardError, match=message.replace("(", r"\(")):
            dashboard.update(changes)
        assert dashboard.state() == before

    def test_threshold_none_means_the_engines_default(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, threshold=0.7)
        state = dashboard.update({"threshold": None, "engine": "bm25"})
        assert state.settings.threshold is None
        assert state.settings.effective_threshold == ToolIndex([], "bm25").threshold


class TestPinnedTools:
    def test_pinning_adds_the_tool_to_always_available(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path)
        state = dashboard.set_pinned(WEATHER, True)
        assert state.settings.always_available == [WEATHER]
        rows = {row.id: row for row in dashboard.tools()}
        assert rows[WEATHER].pinned
        assert not rows["email__send_email"].pinned
        assert dashboard.set_pinned(WEATHER, False).settings.always_available == []

    def test_a_name_in_the_file_resolves_to_its_tool(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, always_available=["send_email"])
        rows = {row.id: row for row in dashboard.tools()}
        assert rows["email__send_email"].pinned
        # Unpinning by id takes the name's entry out.
        assert dashboard.set_pinned("email__send_email", False).settings.always_available == []

    def test_a_tool_pinned_by_its_catalog_cannot_be_unpinned(self, tmp_path: Path) -> None:
        catalog = make_catalog(
            {"name": "help", "description": "Show what the assistant can do.", "pinned": True}
        )
        dashboard = make_dashboard(tmp_path, catalog=catalog)
        row = next(row for row in dashboard.tools() if row.id == "help")
        assert row.pinned and row.pinned_by_catalog
        with pytest.raises(DashboardError, match="pinned by its own definition"):
            dashboard.set_pinned("help", False)

    def test_an_unknown_tool_is_a_clear_error(self, tmp_path: Path) -> None:
        with pytest.raises(DashboardError, match="no tool 'weather__nope'"):
            make_dashboard(tmp_path).set_pinned("weather__nope", True)

    def test_rows_carry_token_cost_and_lint(self, tmp_path: Path) -> None:
        rows = {row.id: row for row in make_dashboard(tmp_path).tools()}
        assert all(row.tokens > 20 for row in rows.values())
        # `search` is the name of two tools: the lint says so on both.
        assert any("files__search" in message for message in rows["slack__search"].lint)


class TestQuery:
    def test_results_are_what_search_tools_returns_with_highlights(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path).search("weather in Paris")
        assert [hit.id for hit in view.results][:2] == [WEATHER, "weather__get_forecast"]
        best = view.results[0]
        assert best.name_spans == [(0, len(best.name))]  # identifiers are highlighted whole
        assert any(best.description[s:e].lower() == "weather" for s, e in best.description_spans)
        city = next(p for p in best.parameters if p.name == "city")
        assert [city.description[s:e] for s, e in city.description_spans] == ["Paris"]
        assert any(term.startswith("weather → weather") for term in best.matched_terms)

    def test_a_pinned_tool_is_listed_as_absent_with_the_reason(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, always_available=[WEATHER])
        view = dashboard.search("current weather")
        assert WEATHER not in [hit.id for hit in view.results]
        absent = {hit.id: hit.absent_reason for hit in view.absent}
        assert "pinned" in (absent[WEATHER] or "")

    def test_a_tool_that_is_not_deferred_is_absent_not_a_result(self, tmp_path: Path) -> None:
        # It is sent with every request, so search_tools never returns it (it used to be
        # listed as a result).
        always_sent = {
            "name": "weather_now",
            "description": "The current weather.",
            "deferred": False,
        }
        dashboard = make_dashboard(tmp_path, catalog=make_catalog(always_sent), threshold=0)
        view = dashboard.search("current weather")
        assert "weather_now" not in [hit.id for hit in view.results]
        absent = {hit.id: hit.absent_reason for hit in view.absent}
        assert "pinned" in (absent["weather_now"] or "")
        assert {row.id: row.pinned_by_catalog for row in dashboard.tools()}["weather_now"]

    @pytest.mark.parametrize(
        "query", ["weather in Paris", "search", "send_email", "post a message and read a file"]
    )
    def test_results_are_exactly_search_tools_results(self, tmp_path: Path, query: str) -> None:
        dashboard = make_dashboard(tmp_path, engine="bm25", always_available=[WEATHER])
        search = dashboard.settings.build(dashboard.catalog)
        result = search.execute(ToolCall("search_tools", {"queries": [query]}))
        returned = [tool["name"] for tool in json.loads(result.content)["results"][0]["tools"]]
        assert [hit.id for hit in dashboard.search(query).results] == returned

    def test_tools_below_the_threshold_are_absent_and_say_so(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, threshold=0.95)
        view = dashboard.search("weather")
        assert view.results == []
        assert view.absent
        assert all("below the threshold 0.95" in (hit.absent_reason or "") for hit in view.absent)
        assert view.notice and view.notice.startswith("The best tool scores ")
        assert "below the threshold 0.95" in view.notice

    def test_tools_past_max_results_are_absent_and_say_so(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path, max_results=1, threshold=0).search("search")
        assert len(view.results) == 1
        assert any("past max_results" in (hit.absent_reason or "") for hit in view.absent)

    def test_a_settings_change_shows_in_the_next_search(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path)
        assert len(dashboard.search("search").results) > 1
        dashboard.update({"max_results": 1})
        assert len(dashboard.search("search").results) == 1
        dashboard.update({"engine": "regex"})
        view = dashboard.search("^send_")
        assert [hit.id for hit in view.results] == ["email__send_email"]

    def test_a_catalog_change_shows_in_the_next_search(self, tmp_path: Path) -> None:
        catalog = make_catalog()
        dashboard = make_dashboard(tmp_path, catalog=catalog)

        def found() -> list[str]:
            return [hit.id for hit in dashboard.search("translate to german").results]

        assert "translate" not in found()
        catalog.add({"name": "translate", "description": "Translate text into another language."})
        assert found()[0] == "translate"
        catalog.remove("translate")
        assert "translate" not in found()

    @pytest.mark.parametrize("query", ["", "   ", "x" * 2_001])
    def test_an_empty_or_overlong_query_is_a_clear_error(self, tmp_path: Path, query: str) -> None:
        with pytest.raises(DashboardError):
            make_dashboard(tmp_path).search(query)


class TestTokens:
    def test_tool_search_costs_less_than_the_whole_catalog(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path, enabled=True, max_results=2).tokens()
        assert view.first_request < view.whole_catalog
        assert view.saving == pytest.approx(1 - view.after_discovery / view.whole_catalog)

    def test_off_sends_the_whole_catalog_every_time(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path, enabled=False).tokens()
        assert view.first_request == view.after_discovery == view.whole_catalog
        assert view.saving == 0

    def test_a_pinned_tool_is_in_every_request(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, enabled=True)
        before = dashboard.tokens().first_request
        dashboard.set_pinned(WEATHER, True)
        assert dashboard.tokens().first_request > before


class TestAutoActivation:
    def test_above_the_share_search_is_on_and_the_figures_are_shown(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path, enabled="auto", context_window=1_000).tokens()
        assert view.enabled and view.first_request < view.whole_catalog
        assert view.activation == (
            f"tool search auto: on: {view.whole_catalog:,} tool tokens > 100 "
            "(10% of the 1,000-token context window)"
        )

    def test_below_the_share_every_tool_is_sent(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path, enabled="auto", model="gemini-2.5-pro").tokens()
        assert not view.enabled and view.first_request == view.whole_catalog
        assert view.activation is not None
        assert view.activation.startswith("tool search auto: off:")
        assert "gemini-2.5-pro's 1,048,576-token context window" in view.activation

    def test_without_a_window_it_says_so_and_searches(self, tmp_path: Path) -> None:
        view = make_dashboard(tmp_path, enabled="auto").tokens()
        assert view.enabled and view.activation is not None
        assert "no decision, so it is on" in view.activation and "context_window" in view.activation

    def test_it_follows_the_catalog(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, enabled="auto", context_window=10_000)
        assert not dashboard.tokens().enabled
        dashboard.catalog.add(
            [{"name": f"bulk_{n}", "description": "A tool among many, " * 20} for n in range(40)]
        )
        assert dashboard.tokens().enabled

    def test_the_settings_say_auto(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, enabled="auto", model="gpt-4o")
        assert dashboard.state().settings.enabled == "auto"


class TestRetrievalCheck:
    LINES = "weather in Paris => get_current_weather\nsend an email to Bob => send_email\n"

    def test_recall_and_mrr_for_the_current_settings(self, tmp_path: Path) -> None:
        report = make_dashboard(tmp_path).check(self.LINES)
        assert (report.queries, report.k) == (2, 5)
        assert report.recall == 1.0 and report.mrr == 1.0
        assert report.missed == []

    def test_a_miss_says_where_the_tool_ranked_and_why(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, max_results=1)
        report = dashboard.check("weather tomorrow => get_current_weather, get_forecast")
        assert report.recall == 0.5
        (miss,) = report.missed
        assert len(miss.results) == 1
        assert "past max_results (1)" in miss.misses[0]

    def test_a_pinned_tool_counts_as_found(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path, always_available=["post_message"])
        report = dashboard.check("tell the team on slack => post_message")
        assert report.recall == 1.0 and report.mrr == 1.0

    def test_a_tool_that_is_not_deferred_counts_as_found(self, tmp_path: Path) -> None:
        always_sent = {
            "name": "weather_now",
            "description": "The current weather.",
            "deferred": False,
        }
        dashboard = make_dashboard(tmp_path, catalog=make_catalog(always_sent))
        report = dashboard.check("what is the weather right now => weather_now")
        assert report.recall == 1.0 and report.mrr == 1.0

    def test_json_lines_and_a_json_list_are_read_too(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path)
        item = {"query": "weather in Paris", "expected": "weather__get_current_weather"}
        assert dashboard.check(json.dumps(item)).recall == 1.0
        assert dashboard.check(json.dumps([item, item])).queries == 2

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("", "no labelled queries"),
            ("weather in Paris", "line 1: expected `query => tool, tool`"),
            ("# a comment\nweather => nope_tool", "line 2: expected: no tool 'nope_tool'"),
            ("weather => search", "several tools are named 'search'"),
            ('{"query": "x"}', "line 1: expected an object with `query` and `expected`"),
            ('[{"query": 1, "expected": "search"}]', "item 1: `query` must be non-empty text"),
            ("weather => ", "line 1: no expected tool"),
        ],
    )
    def test_unreadable_labels_are_a_clear_error(
        self, tmp_path: Path, text: str, message: str
    ) -> None:
        with pytest.raises(DashboardError, match=message):
            make_dashboard(tmp_path).check(text)


class TestSave:
    def test_a_new_file_gets_only_what_differs_from_the_defaults(self, tmp_path: Path) -> None:
        dashboard = make_dashboard(tmp_path)
        dashboard.update({"enabled": True, "max_results": 8})
        dashboard.set_pinned(WEATHER, True)
        preview = dashboard.save_preview()
        assert not preview.exists and preview.current == ""
        assert "+  max_results: 8" in preview.diff
        saved = dashboard.save()
        assert saved.diff == "" and not dashboard.state().unsaved
        assert yaml.safe_load((tmp_path / "toolscout.yaml").read_text()) == {
            "tool_search": {"enabled": True, "max_results": 8, "always_available": [WEATHER]}
        }
        settings = load_config(
            tmp_path / "toolscout.yaml", ToolSearchSettings, section="tool_search"
        )
        assert settings == dashboard.settings

    def test_the_rest_of_a_yaml_file_keeps_its_comments_and_layout(self, tmp_path: Path) -> None:
        path = tmp_path / "toolscout.yaml"
        original = (
            "# shared by our agents\n"
            "tool_search:\n"
            "  enabled: true\n"
            "  store: {kind: memory, ttl: 60}  # one process\n"
            "\n"
            "# the gateway's part\n"
            "other: [1, 2]\n"
        )
        path.write_text(original)
        dashboard = Dashboard(
            make_catalog(),
            load_config(path, ToolSearchSettings, section="tool_search"),
            ConfigFile(path),
            source="tools.json",
        )
        dashboard.update({"max_results": 3})
        dashboard.save()
        text = path.read_text()
        assert text.startswith("# shared by our agents\ntool_search:\n")
        assert text.endswith("\n# the gateway's part\nother: [1, 2]\n")
        data = yaml.safe_load(text)
        assert data["tool_search"] == {
            "enabled": True,
            "store": {"kind": "memory", "ttl": 60},
            "max_results": 3,
        }

    def test_a_json_file_is_written_as_json(self, tmp_path: Path) -> None:
        path = tmp_path / "toolscout.json"
        path.write_text(json.dumps({"tool_search": {"engine": "regex"}}))
        dashboard = Dashboard(
            make_catalog(), ToolSearchSettings(engine="regex"), ConfigFile(path), source="x"
        )
        dashboard.update({"engine": "bm25"})
        dashboard.save()
        assert json.loads(path.read_text()) == {"tool_search": {"engine": "bm25", "enabled": False}}

    def test_a_broken_file_is_not_overwritten(self, tmp_path: Path) -> None:
        path = tmp_path / "toolscout.yaml"
        path.write_text("tool_search: [unclosed\n")
        dashboard = make_dashboard(tmp_path)
        with pytest.raises(DashboardError, match="no longer valid YAML"):
            dashboard.save()
        assert path.read_text() == "tool_search: [unclosed\n"


#: A Claude Desktop file as a person left it: four spaces, keys of its own, an odd layout.
CLAUDE_DESKTOP = (
    "{\n"
    '    "globalShortcut": "Ctrl+Space",\n'
    '    "mcpServers": {\n'
    '        "time": {"command": "uvx", "args": ["mcp-server-time"]},\n'
    '        "fetch": {\n'
    '            "command": "uvx",\n'
    '            "args": ["mcp-server-fetch"]\n'
    "        }\n"
    "    }\n"
    "}\n"
)


def host_dashboard(path: Path) -> Dashboard:
    """A dashboard started, as `toolscout dashboard --config` starts it, from a host's file."""
    from toolscout.gateway import GatewayConfig

    settings = load_config(path, GatewayConfig).tool_search
    return Dashboard(make_catalog(), settings, ConfigFile(path), source="gateway")


class TestSaveBesideAHostsFile:
    def test_the_settings_go_beside_the_file_which_stays_byte_for_byte(
        self, tmp_path: Path
    ) -> None:
        from toolscout.gateway import GatewayConfig

        host = tmp_path / "claude_desktop_config.json"
        host.write_text(CLAUDE_DESKTOP)
        dashboard = host_dashboard(host)
        dashboard.update({"max_results": 3, "mode": "load"})
        preview = dashboard.save_preview()
        beside = tmp_path / "claude_desktop_config.toolscout.yaml"
        assert preview.path == str(beside) and preview.host_file == str(host)
        assert preview.note.startswith(
            "claude_desktop_config.json belongs to the application that reads it and is left "
            "as it is: the settings go to claude_desktop_config.toolscout.yaml beside it, a "
            "new file"
        )
        dashboard.save()
        assert host.read_text() == CLAUDE_DESKTOP
        assert yaml.safe_load(beside.read_text()) == {
            "tool_search": {"enabled": True, "mode": "load", "max_results": 3}
        }
        config = load_config(host, GatewayConfig)
        assert (config.tool_search.mode, config.tool_search.max_results) == ("load", 3)
        assert list(config.servers) == ["time", "fetch"]

    def test_in_place_only_the_tool_search_key_is_added(self, tmp_path: Path) -> None:
        host = tmp_path / "claude_desktop_config.json"
        host.write_text(CLAUDE_DESKTOP)
        dashboard = host_dashboard(host)
        dashboard.update({"max_results": 3})
        preview = dashboard.save_preview(in_place=True)
        assert preview.path == str(host) and preview.host_file is None
        assert preview.note == (
            "Only the tool_search key of claude_desktop_config.json changes; every other byte "
            "stays."
        )
        dashboard.save(in_place=True)
        assert host.read_text() == CLAUDE_DESKTOP.replace(
            "        }\n    }\n}\n",
            '        }\n    },\n    "tool_search": {\n        "enabled": true,\n'
            '        "max_results": 3\n    }\n}\n',
        )
        assert not (tmp_path / "claude_desktop_config.toolscout.yaml").exists()

    def test_in_place_an_existing_key_changes_alone_with_its_line_endings(
        self, tmp_path: Path
    ) -> None:
        host = tmp_path / "mcp.json"
        before = (
            '{"mcpServers": {"time": {"command": "uvx"}},\r\n'
            ' "tool_search": {"enabled": true, "max_results": 8},\r\n'
            ' "other": [1,2]}\r\n'
        )
        host.write_bytes(before.encode())
        dashboard = host_dashboard(host)
        dashboard.update({"max_results": 4})
        dashboard.save(in_place=True)
        after = host.read_bytes().decode()
        assert after == before.replace('"max_results": 8', '"max_results": 4')

    def test_a_symbolic_link_and_the_file_mode_are_kept(self, tmp_path: Path) -> None:
        real = tmp_path / "dotfiles" / "mcp.json"
        real.parent.mkdir()
        real.write_text(CLAUDE_DESKTOP)
        real.chmod(0o600)
        link = tmp_path / "mcp.json"
        link.symlink_to(real)
        dashboard = host_dashboard(link)
        dashboard.update({"max_results": 2})
        dashboard.save(in_place=True)
        assert link.is_symlink() and link.resolve() == real
        assert (real.stat().st_mode & 0o777) == 0o600
        assert json.loads(real.read_text())["tool_search"]["max_results"] == 2

    def test_settings_beside_win_over_the_host_file_s_and_are_said_to(self, tmp_path: Path) -> None:
        from toolscout.gateway import GatewayConfig

        host = tmp_path / "mcp.json"
        host.write_text(json.dumps({"mcpServers": {}, "tool_search": {"max_results": 8}}))
        beside = tmp_path / "mcp.toolscout.yaml"
        beside.write_text("tool_search:\n  max_results: 2\n")
        assert load_config(host, GatewayConfig).tool_search.max_results == 2
        note = host_dashboard(host).save_preview(in_place=True).note
        assert note.endswith(
            "mcp.toolscout.yaml beside it also sets tool_search keys, and those win over this "
            "file's."
        )

    def test_a_mistake_beside_is_reported_with_its_own_line(self, tmp_path: Path) -> None:
        from toolscout.gateway import GatewayConfig

        host = tmp_path / "mcp.json"
        host.write_text(json.dumps({"mcpServers": {}}))
        beside = tmp_path / "mcp.toolscout.yaml"
        beside.write_text("# tuned\ntool_search:\n  max_results: 50\n")
        with pytest.raises(
            ConfigError, match=r"mcp\.toolscout\.yaml:3:3: tool_search\.max_results"
        ):
            load_config(host, GatewayConfig)
        beside.write_text("servers: {}\n")
        with pytest.raises(ConfigError, match="the servers stay in"):
            load_config(host, GatewayConfig)


def test_no_gateway_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DashboardError, match="no gateway attached"):
        make_dashboard(tmp_path).gateway()
