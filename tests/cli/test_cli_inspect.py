"""`toolscout inspect`: what a catalog holds, what it costs, and what to fix."""

from __future__ import annotations

from pathlib import Path

from toolscout.catalog import Catalog
from toolscout.catalog.tokens import catalog_tokens, tool_tokens
from toolscout.data import demo_catalog_path

from .conftest import RunToolscout, WriteCatalog


def section(output: str, heading: str) -> str:
    """The output from `heading` on."""
    return output[output.index(heading) :]


class TestInspectCommand:
    def test_tools_per_namespace(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run("inspect", sample_catalog)
        assert result.exit_code == 0
        assert "12 tools in 5 namespaces" in result.stdout
        for namespace in ("weather", "email", "calendar", "files", "slack"):
            assert namespace in result.stdout

    def test_token_cost_in_both_formats(self, run: RunToolscout, sample_catalog: Path) -> None:
        tools = list(Catalog.from_file(sample_catalog))
        result = run("inspect", sample_catalog)
        assert f"{catalog_tokens(tools, 'openai_chat'):,}" in result.stdout
        assert f"{catalog_tokens(tools, 'anthropic'):,}" in result.stdout

    def test_largest_tool_is_listed_first(self, run: RunToolscout, sample_catalog: Path) -> None:
        largest = max(Catalog.from_file(sample_catalog), key=tool_tokens)
        result = run("inspect", sample_catalog)
        largest_section = section(result.stdout, "Largest tools")
        assert largest_section.index(largest.id) < largest_section.index("email__send_email")

    def test_name_collisions(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run("inspect", sample_catalog)
        assert "Names used in several namespaces: 1" in result.stdout
        assert "files__search, slack__search" in result.stdout

    def test_lint_grouped_by_code(self, run: RunToolscout, sample_catalog: Path) -> None:
        result = run("inspect", sample_catalog)
        lint = section(result.stdout, "Lint: 5 issues")
        assert "short-description: 1" in lint
        assert "slack__set_status" in lint
        assert "undocumented-parameter: 2" in lint
        assert "name-collision: 2" in lint
        assert "missing-description" not in lint

    def test_all_lists_every_issue(self, run: RunToolscout, write_catalog: WriteCatalog) -> None:
        verbs = ["Reads", "Writes", "Sends", "Deletes", "Moves"]
        catalog = write_catalog(
            [{"name": f"tool_{n}", "description": f"{verb} it."} for n, verb in enumerate(verbs)]
        )
        first_few = section(run("inspect", catalog).stdout, "Lint:")
        assert "short-description: 5" in first_few
        assert "tool_2:" in first_few and "tool_3:" not in first_few
        assert "and 2 more (--all lists them)" in first_few
        every = section(run("inspect", catalog, "--all").stdout, "Lint:")
        assert all(f"tool_{n}:" in every for n in range(5))
        assert "--all" not in every

    def test_a_name_with_spaces(self, run: RunToolscout, write_catalog: WriteCatalog) -> None:
        catalog = write_catalog(
            [{"name": "get weather", "description": "Get the current weather for a city."}]
        )
        lint = section(run("inspect", catalog).stdout, "Lint:")
        assert "invalid-name: 1" in lint
        assert "'get weather' has spaces, which OpenAI and Anthropic refuse" in lint

    def test_clean_catalog(self, run: RunToolscout, write_catalog: WriteCatalog) -> None:
        catalog = write_catalog(
            [
                {
                    "name": "get_weather",
                    "description": "Get the current weather conditions for a city.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"city": {"type": "string", "description": "City name"}},
                    },
                }
            ]
        )
        result = run("inspect", catalog)
        assert result.exit_code == 0
        assert "Names used in several namespaces: 0" in result.stdout
        assert "Lint: no issues." in result.stdout

    def test_demo_catalog(self, run: RunToolscout) -> None:
        result = run("inspect", "demo")
        assert result.exit_code == 0
        assert f"{len(Catalog.from_file(demo_catalog_path()))} tools in" in result.stdout
