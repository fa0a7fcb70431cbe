"""Reading config files: values, defaults, and mistakes reported at their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscout.config import ConfigError, ToolScoutConfig, ToolSearchSettings, load_config

GATEWAY_YAML = """\
# A gateway's config: tool search on, two pinned tools.
tool_search:
  enabled: true
  mode: proxy
  engine: regex
  max_results: 8
  threshold: 0.5
  result_format: compact
  always_available: [now, github__create_issue]
  meta_tool_names:
    search: find_tools
  preload: {max_tools: 2, max_tokens: 800}
  store:
    kind: sqlite
    path: state/discovered.db
    ttl: 60
"""


def write(tmp_path: Path, text: str, name: str = "gateway.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str, name: str = "gateway.yaml") -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text, name))
    message = str(caught.value)
    assert "\n" not in message
    return message.removeprefix(str(tmp_path / name))


class TestValues:
    def test_every_option_is_read(self, tmp_path: Path) -> None:
        config = load_config(write(tmp_path, GATEWAY_YAML))
        settings = config.tool_search
        assert settings.enabled
        assert (settings.mode, settings.engine, settings.max_results) == ("proxy", "regex", 8)
        assert (settings.threshold, settings.result_format) == (0.5, "compact")
        assert settings.always_available == ("now", "github__create_issue")
        assert settings.pinned == settings.always_available
        assert settings.meta_tool_names.search == "find_tools"
        assert settings.store.kind == "sqlite"
        assert settings.store.ttl == 60
        assert settings.preload.enabled  # on unless turned off
        assert (settings.preload.max_tools, settings.preload.max_tokens) == (2, 800)

    def test_a_relative_store_path_starts_at_the_files_folder(self, tmp_path: Path) -> None:
        config = load_config(write(tmp_path, GATEWAY_YAML))
        assert config.tool_search.store.path == tmp_path / "state" / "discovered.db"

    @pytest.mark.parametrize("text", ["", "# nothing yet\n", "{}\n"])
    def test_an_empty_file_is_the_defaults(self, tmp_path: Path, text: str) -> None:
        config = load_config(write(tmp_path, text))
        assert config == ToolScoutConfig()
        assert not config.tool_search.enabled
        assert config.tool_search.store.kind == "context"

    def test_json_is_read_as_json(self, tmp_path: Path) -> None:
        text = '{"tool_search": {"enabled": true, "threshold": 1e-1}}'
        config = load_config(write(tmp_path, text, "config.json"))
        assert config.tool_search.threshold == 0.1

    def test_one_section_of_a_larger_file(self, tmp_path: Path) -> None:
        path = write(tmp_path, "servers: {github: {}}\n" + GATEWAY_YAML)
        settings = load_config(path, ToolSearchSettings, section="tool_search")
        assert settings.max_results == 8
        assert load_config(write(tmp_path, "servers: {}\n"), ToolSearchSettings, section="x") == (
            ToolSearchSettings()
        )


class TestMistakes:
    def test_a_value_out_of_range_names_line_field_and_limit(self, tmp_path: Path) -> None:
        text = GATEWAY_YAML.replace("max_results: 8", "max_results: 50")
        assert error_of(tmp_path, text) == (
            ":6:3: tool_search.max_results: must be at most 20 (got 50)"
        )

    def test_a_preload_budget_out_of_range_or_misspelled(self, tmp_path: Path) -> None:
        text = "tool_search:\n  preload:\n    max_tools: 0\n    max_token: 500\n"
        message = error_of(tmp_path, text)
        assert message.startswith(":3:5: tool_search.preload.max_tools: must be at least 1 (got 0)")
        assert message.endswith(
            ":4:5: tool_search.preload.max_token: unknown key (did you mean max_tokens?); "
            "the keys here are enabled, max_tools, max_tokens, threshold"
        )

    def test_an_unknown_key_suggests_the_right_one(self, tmp_path: Path) -> None:
        message = error_of(tmp_path, "tool_search:\n  enabled: true\n  max_result: 3\n")
        assert message.startswith(
            ":3:3: tool_search.max_result: unknown key (did you mean max_results?); the keys "
            "here are "
        )
        assert "always_available" in message and "store" in message

    def test_pinned_is_spelled_always_available(self, tmp_path: Path) -> None:
        message = error_of(tmp_path, "tool_search:\n  pinned: [now]\n")
        assert "tool_search.pinned: unknown key (did you mean always_available?)" in message

    def test_an_unknown_top_level_key(self, tmp_path: Path) -> None:
        assert error_of(tmp_path, "tool_serch: {}\n") == (
            ":1:1: tool_serch: unknown key (did you mean tool_search?); the keys here are "
            "tool_search"
        )

    def test_a_closed_choice_lists_the_choices(self, tmp_path: Path) -> None:
        assert error_of(tmp_path, "tool_search:\n  mode: lod\n") == (
            ":2:3: tool_search.mode: must be one of load, auto_load, proxy, lazy "
            "(got 'lod'; did you mean load?)"
        )

    def test_every_problem_is_reported_in_line_order(self, tmp_path: Path) -> None:
        text = "tool_search:\n  threshold: 2\n  enabled: maybe\n  always_available: [now, [x]]\n"
        with pytest.raises(ConfigError) as caught:
            load_config(write(tmp_path, text))
        assert "; ".join(caught.value.problems) == str(caught.value)
        assert error_of(tmp_path, text).split("; ") == [
            ":2:3: tool_search.threshold: must be at most 1.0 (got 2)",
            f"{tmp_path / 'gateway.yaml'}:3:3: tool_search.enabled: must be true, false or "
            "auto (got 'maybe')",
            f"{tmp_path / 'gateway.yaml'}:4:27: tool_search.always_available[1]: must be text "
            "(got a list)",
        ]

    def test_nested_keys_and_rules_between_keys(self, tmp_path: Path) -> None:
        text = "tool_search:\n  store:\n    kind: sqlite\n    url: redis://cache\n"
        assert error_of(tmp_path, text) == (
            ":2:3: tool_search.store.path: required when kind is sqlite: the SQLite file to "
            "keep state in; "
            f"{tmp_path / 'gateway.yaml'}:4:5: tool_search.store.url: only used when kind is "
            "redis (kind is sqlite)"
        )

    def test_a_meta_tool_name_is_checked(self, tmp_path: Path) -> None:
        message = error_of(tmp_path, "tool_search:\n  meta_tool_names:\n    search: find tools\n")
        assert message.startswith(":3:5: tool_search.meta_tool_names.search: 'find tools' is not")

    def test_a_repeated_key(self, tmp_path: Path) -> None:
        assert error_of(tmp_path, "tool_search:\n  mode: load\n  mode: proxy\n") == (
            ":3:3: tool_search.mode: this key appears twice in the same mapping; keep one"
        )

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("tool_search: [\n", ":2:1: invalid YAML: expected the node content"),
            ("- tool_search\n", ": the file must be a mapping of keys such as `tool_search:`"),
            ("tool_search:\n", ":1:1: tool_search: must be a mapping of keys to values"),
        ],
    )
    def test_a_file_of_the_wrong_shape(self, tmp_path: Path, text: str, expected: str) -> None:
        assert error_of(tmp_path, text).startswith(expected)

    def test_invalid_json_names_line_and_column(self, tmp_path: Path) -> None:
        message = error_of(tmp_path, '{"tool_search": {\n  "enabled": tru}}', "config.json")
        assert message.startswith(":2:14: invalid JSON")

    def test_json_errors_have_lines_too(self, tmp_path: Path) -> None:
        text = '{\n  "tool_search": {\n    "max_results": 0\n  }\n}\n'
        assert error_of(tmp_path, text, "config.json") == (
            ":3:5: tool_search.max_results: must be at least 1 (got 0)"
        )

    def test_a_missing_file(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigError, match=r"nope\.yaml: no such config file"):
            load_config(tmp_path / "nope.yaml")

    def test_config_error_is_a_value_error(self) -> None:
        assert issubclass(ConfigError, ValueError)


class TestHostileFiles:
    """Config files made to exhaust a reader: one ConfigError at the line, nothing more."""

    @pytest.mark.parametrize("name", ["gateway.yaml", "gateway.json"])
    def test_nesting_five_thousand_deep(self, tmp_path: Path, name: str) -> None:
        text = '{"tool_search": ' + "[" * 5_000 + "]" * 5_000 + "}"
        message = error_of(tmp_path, text, name)
        assert message.endswith("nested more than 100 levels deep")
        assert message.startswith(":1:")

    def test_an_anchor_that_contains_itself(self, tmp_path: Path) -> None:
        assert error_of(tmp_path, "tool_search: &x [*x]\n") == (
            ":1:18: invalid YAML: the alias *x is inside its own anchor &x, which makes a "
            "structure that contains itself"
        )

    def test_an_alias_bomb(self, tmp_path: Path) -> None:
        levels = ["x: &a0 [" + ", ".join(['"lol"'] * 9) + "]"]
        levels += [f"x{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 7)]
        message = error_of(tmp_path, "\n".join([*levels, "tool_search: {enabled: true}"]))
        assert message.startswith(":6:5: invalid YAML: its aliases expand to 597,871 values")

    def test_ordinary_anchors_and_merge_keys_are_read(self, tmp_path: Path) -> None:
        text = (
            "defaults: &defaults {mode: proxy, max_results: 3}\n"
            "tool_search:\n  <<: *defaults\n  enabled: true\n"
        )
        config = load_config(write(tmp_path, text), ToolSearchSettings, section="tool_search")
        assert (config.mode, config.max_results, config.enabled) == ("proxy", 3, True)
