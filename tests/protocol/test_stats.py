"""Token accounting: live stats and the per-request estimate against the whole catalog."""

from __future__ import annotations

import pytest
from benchmarks.speed import scaled_tools

from tests.protocol.builders import call, make_catalog
from toolscout import Catalog
from toolscout.data import demo_catalog_path
from toolscout.protocol import ToolSearch, estimate_tokens

MODES = ("load", "auto_load", "proxy")


class TestTokenSavings:
    def test_stats_count_what_was_sent(self) -> None:
        search = ToolSearch(make_catalog())
        assert search.stats().requests == 0
        search.prepare()
        call(search, "search_tools", None, queries=["weather forecast"])
        stats = search.stats()
        assert stats.requests == 1 and stats.tool_tokens > 0 and stats.result_tokens > 0
        assert stats.tool_tokens_without_search > stats.tool_tokens
        assert 0 < stats.saving < 1
        assert stats.per_request < stats.per_request_without_search

    @pytest.mark.parametrize("size", [100, 1_000])
    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("result_format", ["json", "compact"])
    def test_at_least_90_percent_fewer_tokens_from_100_tools(
        self, size: int, mode: str, result_format: str
    ) -> None:
        estimate = estimate_tokens(
            scaled_tools(list(_DEMO), size), mode=mode, result_format=result_format
        )
        assert estimate.tools == size
        assert estimate.saving >= 0.9
        assert estimate.first_request < estimate.per_request < estimate.without_search

    def test_compact_results_cost_less_in_proxy_mode(self) -> None:
        tools = scaled_tools(list(_DEMO), 100)
        json_estimate = estimate_tokens(tools, mode="proxy", result_format="json")
        compact = estimate_tokens(tools, mode="proxy", result_format="compact")
        assert compact.per_request < json_estimate.per_request

    def test_lazy_lists_every_tool_so_its_cost_grows_with_the_catalog(self) -> None:
        small = estimate_tokens(scaled_tools(list(_DEMO), 100), mode="lazy")
        large = estimate_tokens(scaled_tools(list(_DEMO), 1_000), mode="lazy")
        assert large.first_request > 5 * small.first_request


_DEMO = Catalog.from_file(demo_catalog_path())
