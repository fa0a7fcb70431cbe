"""`enabled: auto`: tool search on only when the tools exceed a share of the context window."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscout import Catalog, Tool
from toolscout.catalog.tokens import catalog_tokens
from toolscout.config import ToolSearchSettings, load_config
from toolscout.errors import ToolScoutError, ToolSearchConfigError
from toolscout.protocol import AutoActivation, context_window_of


def make_tools(count: int, prefix: str = "tool") -> list[Tool]:
    return [
        Tool(
            name=f"{prefix}_{number}",
            description=f"Does task number {number} for the {prefix} service, carefully.",
            input_schema={"type": "object", "properties": {"item": {"type": "string"}}},
        )
        for number in range(count)
    ]


class TestContextWindows:
    @pytest.mark.parametrize(
        ("model", "window"),
        [
            ("gpt-4o", 128_000),
            ("gpt-4o-mini-2024-07-18", 128_000),
            ("gpt-4.1-nano", 1_047_576),
            ("gpt-4", 8_192),
            ("gpt-5-mini", 400_000),
            ("o3-mini", 200_000),
            ("claude-3-5-sonnet-20241022", 200_000),
            ("claude-sonnet-4-5", 200_000),
            ("claude-opus-4-1-20250805", 200_000),
            ("gemini-2.5-pro", 1_048_576),
            ("gemini-1.5-pro-002", 2_097_152),
            ("llama-3.3-70b-versatile", 131_072),
            ("llama-4-scout-17b-16e-instruct", 10_000_000),
        ],
    )
    def test_a_known_family_is_matched_by_its_longest_prefix(self, model: str, window: int) -> None:
        assert context_window_of(model) == window

    @pytest.mark.parametrize(
        "model",
        [
            "openai:gpt-4o",
            "anthropic/claude-sonnet-4-5",
            "models/gemini-2.5-pro",
            "meta-llama/Llama-3.3-70B-Instruct",
            "llama3.3:70b",
            "GPT-4o",
        ],
    )
    def test_a_provider_prefix_tag_or_capitals_do_not_hide_the_model(self, model: str) -> None:
        assert context_window_of(model) is not None

    @pytest.mark.parametrize("model", ["my-finetune", "", "gpt", "claude"])
    def test_an_unknown_model_has_no_window(self, model: str) -> None:
        assert context_window_of(model) is None


class TestDecision:
    def test_search_is_on_only_above_the_share_of_the_window(self) -> None:
        tools = make_tools(10)
        tokens = catalog_tokens(tools)
        below = AutoActivation(share=0.5, context_window=2 * tokens).decide_for(tools)
        above = AutoActivation(share=0.5, context_window=2 * tokens - 2).decide_for(tools)
        assert (below.on, above.on) == (False, True)
        assert below.tool_tokens == tokens and below.threshold_tokens == tokens

    def test_the_figures_are_kept_and_said_in_one_line(self) -> None:
        decision = AutoActivation(share=0.1, model="gpt-4o").decide_for(make_tools(3))
        assert (decision.context_window, decision.threshold_tokens) == (128_000, 12_800)
        assert decision.window_source == "model" and not decision.on
        assert decision.summary() == (
            f"tool search auto: off: {decision.tool_tokens:,} tool tokens <= 12,800 "
            "(10% of gpt-4o's 128,000-token context window)"
        )

    def test_context_window_wins_over_the_model_s(self) -> None:
        rule = AutoActivation(model="gpt-4o", context_window=1_000)
        assert (rule.context_window, rule.window_source) == (1_000, "context_window")

    def test_it_is_decided_again_when_the_catalog_changes(self) -> None:
        catalog = Catalog(make_tools(2))
        rule = AutoActivation(share=0.5, context_window=2 * catalog_tokens(make_tools(5)))
        assert not rule.decide(catalog).on
        catalog.add(make_tools(20, "late"))
        assert rule.decide(catalog).on
        catalog.remove(*(tool.id for tool in make_tools(20, "late")))
        assert not rule.decide(catalog).on

    def test_the_count_follows_each_tool_s_changes(self) -> None:
        catalog = Catalog(make_tools(5))
        rule = AutoActivation(context_window=1_000_000)
        assert rule.decide(catalog).tool_tokens == catalog_tokens(catalog)
        longer = make_tools(1)[0].model_copy(update={"description": "Does much more. " * 30})
        catalog.replace(longer)
        catalog.add(make_tools(3, "more"))
        assert rule.decide(catalog).tool_tokens == catalog_tokens(catalog)

    @pytest.mark.parametrize("model", [None, "my-finetune"])
    def test_no_window_is_an_error_that_says_what_to_set(self, model: str | None) -> None:
        with pytest.raises(ToolSearchConfigError, match="context_window"):
            AutoActivation(model=model)


class TestSettings:
    def test_auto_reads_its_figures_from_the_settings(self) -> None:
        settings = ToolSearchSettings.model_validate(
            {"enabled": "auto", "auto_share": 0.25, "model": "claude-sonnet-4-5"}
        )
        rule = settings.auto_activation()
        assert (rule.share, rule.context_window) == (0.25, 200_000)

    def test_the_model_of_a_request_wins_over_the_configured_one(self) -> None:
        settings = ToolSearchSettings(enabled="auto", model="gpt-4")
        assert settings.auto_activation("gemini-2.5-flash").context_window == 1_048_576

    @pytest.mark.parametrize(
        ("block", "problem"),
        [
            ("enabled: sometimes", "enabled"),
            ("auto_share: 0", "auto_share"),
            ("auto_share: 1.5", "auto_share"),
            ("context_window: 0", "context_window"),
            ("model: my-finetune", "context window of the model 'my-finetune' is not known"),
            ("model: ' '", "model is empty"),
            ("auto_sahre: 0.2", "auto_sahre"),
        ],
    )
    def test_a_bad_value_is_an_error_naming_it(
        self, tmp_path: Path, block: str, problem: str
    ) -> None:
        path = tmp_path / "toolscout.yaml"
        path.write_text(f"tool_search:\n  enabled: auto\n  {block}\n")
        with pytest.raises(ToolScoutError, match=problem):
            load_config(path)

    def test_an_unknown_model_is_allowed_with_its_window(self) -> None:
        settings = ToolSearchSettings(enabled="auto", model="my-finetune", context_window=32_000)
        assert settings.auto_activation().context_window == 32_000

    def test_the_file_written_from_the_settings_reads_back(self) -> None:
        from toolscout.config import ToolScoutConfig

        config = ToolScoutConfig(tool_search=ToolSearchSettings(enabled="auto", model="gpt-4o"))
        assert "enabled: auto" in config.to_yaml()
