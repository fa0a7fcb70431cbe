"""Reading tool catalogs from JSON, JSON Lines and YAML files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolscout.catalog import Catalog, load_tools, to_tools
from toolscout.errors import CatalogFormatError, ToolDefinitionError

from .tool_examples import ANTHROPIC_WEATHER, BFCL_TRIANGLE_AREA, MCP_WEATHER, OPENAI_CHAT_WEATHER


def write(directory: Path, filename: str, content: Any) -> Path:
    """Write `content` (text as is, anything else as JSON or YAML by the file's extension)."""
    path = directory / filename
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif path.suffix == ".jsonl":
        path.write_text("\n".join(json.dumps(item) for item in content) + "\n", encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(content, indent=2), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(content, allow_unicode=True), encoding="utf-8")
    return path


class TestFileFormats:
    @pytest.mark.parametrize("filename", ["tools.json", "tools.yaml", "tools.yml", "tools.jsonl"])
    def test_a_list_of_mixed_shapes(self, tmp_path: Path, filename: str) -> None:
        definitions = [OPENAI_CHAT_WEATHER, MCP_WEATHER, BFCL_TRIANGLE_AREA]
        tools = load_tools(write(tmp_path, filename, definitions))
        assert tools == to_tools(definitions)

    @pytest.mark.parametrize("filename", ["tool.json", "tool.yaml"])
    def test_a_single_definition(self, tmp_path: Path, filename: str) -> None:
        assert [tool.name for tool in load_tools(write(tmp_path, filename, MCP_WEATHER))] == [
            "get_weather_data"
        ]

    @pytest.mark.parametrize("filename", ["tools.json", "tools.yaml"])
    def test_a_tools_wrapper(self, tmp_path: Path, filename: str) -> None:
        path = write(tmp_path, filename, {"tools": [ANTHROPIC_WEATHER, MCP_WEATHER]})
        assert [tool.name for tool in load_tools(path)] == ["get_weather", "get_weather_data"]

    def test_hand_written_yaml_in_toolscout_shape(self, tmp_path: Path) -> None:
        path = write(
            tmp_path,
            "tools.yaml",
            """\
# Team tools, kept by hand.
- name: create_ticket
  description: Open a support ticket.
  tags: [support]
  input_schema:
    type: object
    properties:
      title: {type: string, description: One line summary.}
    required: [title]
""",
        )
        (tool,) = load_tools(path, namespace="helpdesk")
        assert (tool.id, tool.tags) == ("helpdesk__create_ticket", ("support",))

    def test_jsonl_skips_blank_lines(self, tmp_path: Path) -> None:
        text = json.dumps(ANTHROPIC_WEATHER) + "\n\n" + json.dumps(MCP_WEATHER) + "\n"
        assert len(load_tools(write(tmp_path, "tools.jsonl", text))) == 2

    def test_namespace_applies(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.json", [ANTHROPIC_WEATHER])
        assert [tool.id for tool in load_tools(path, namespace="weather")] == [
            "weather__get_weather"
        ]

    def test_a_byte_order_mark_is_skipped(self, tmp_path: Path) -> None:
        path = tmp_path / "tools.json"
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps([ANTHROPIC_WEATHER]).encode())
        assert [tool.name for tool in load_tools(path)] == ["get_weather"]

    def test_a_path_given_as_text(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.json", [ANTHROPIC_WEATHER])
        assert load_tools(str(path)) == load_tools(path)

    def test_catalog_from_file(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.yaml", [ANTHROPIC_WEATHER, MCP_WEATHER])
        catalog = Catalog.from_file(path, namespace="weather")
        assert list(catalog) == load_tools(path, namespace="weather")
        assert "weather__get_weather" in catalog


class TestFileErrors:
    def test_missing_file(self, tmp_path: Path) -> None:
        path = tmp_path / "nowhere.json"
        with pytest.raises(CatalogFormatError, match=f"{re.escape(str(path))}: no such file"):
            load_tools(path)

    def test_a_directory(self, tmp_path: Path) -> None:
        path = tmp_path / "tools.json"
        path.mkdir()
        with pytest.raises(
            CatalogFormatError, match=f"{re.escape(str(path))}: cannot read the file"
        ):
            load_tools(path)

    def test_unknown_extension(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.toml", "")
        with pytest.raises(CatalogFormatError, match=r"tools\.toml: .*extension '\.toml'"):
            load_tools(path)

    def test_not_utf8(self, tmp_path: Path) -> None:
        path = tmp_path / "tools.json"
        path.write_bytes(b'[{"name": "caf\xe9"}]')
        with pytest.raises(
            CatalogFormatError, match=f"{re.escape(str(path))}: cannot read the file"
        ):
            load_tools(path)

    def test_invalid_json_gives_line_and_column(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.json", '[\n  {"name": "a",}\n]')
        with pytest.raises(
            CatalogFormatError, match=f"{re.escape(str(path))}: invalid JSON at line 2, column 16"
        ):
            load_tools(path)

    def test_invalid_json_line_gives_its_line_number(self, tmp_path: Path) -> None:
        text = json.dumps(ANTHROPIC_WEATHER) + "\n{oops\n"
        path = write(tmp_path, "tools.jsonl", text)
        with pytest.raises(
            CatalogFormatError, match=f"{re.escape(str(path))}: invalid JSON at line 2, column 2"
        ):
            load_tools(path)

    def test_invalid_yaml_gives_line_and_column(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.yaml", "- name: a\n  description: [unclosed\n")
        with pytest.raises(
            CatalogFormatError, match=f"{re.escape(str(path))}: invalid YAML at line 3, column 1"
        ):
            load_tools(path)

    def test_unreadable_yaml_character(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.yaml", "- name: bell\x07\n")
        with pytest.raises(CatalogFormatError, match="unacceptable character #x0007") as raised:
            load_tools(path)
        assert "\n" not in str(raised.value)

    @pytest.mark.parametrize("content", ["", "  \n\n", "# only a comment\n"])
    def test_empty_file(self, tmp_path: Path, content: str) -> None:
        path = write(tmp_path, "tools.yaml", content)
        with pytest.raises(CatalogFormatError, match=f"{re.escape(str(path))}: the file is empty"):
            load_tools(path)

    def test_unknown_shape_names_the_file_and_the_item(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.json", [ANTHROPIC_WEATHER, {"title": "x"}])
        with pytest.raises(
            CatalogFormatError, match=rf"{re.escape(str(path))}: no tool definition at \[1\]"
        ):
            load_tools(path)

    def test_bad_definition_names_the_file_and_the_tool(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.json", [{"name": "f", "parameters": {"type": "string"}}])
        with pytest.raises(
            ToolDefinitionError, match=f"{re.escape(str(path))}: tool 'f': parameters must"
        ):
            load_tools(path)

    def test_server_config_is_not_a_catalog(self, tmp_path: Path) -> None:
        config = {"mcpServers": {"weather": {"command": "uvx", "args": ["mcp-weather"]}}}
        path = write(tmp_path, "claude_desktop_config.json", config)
        with pytest.raises(
            CatalogFormatError, match=f"{re.escape(str(path))}: found an MCP server configuration"
        ) as raised:
            load_tools(path)
        assert "not a tool catalog" in str(raised.value)


ALIAS_BOMB = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
tools:
- name: bomb
  inputSchema: {type: object, properties: {p: {type: array, default: *e}}}
"""


class TestHostileFiles:
    """Files made to exhaust a reader: each is one clear CatalogFormatError naming the
    file and the place, never a RecursionError or minutes of work."""

    @pytest.mark.parametrize("filename", ["tools.json", "tools.jsonl", "tools.yaml"])
    def test_nesting_five_thousand_deep_is_refused(self, tmp_path: Path, filename: str) -> None:
        path = write(tmp_path, filename, "[" * 5_000 + "]" * 5_000 + "\n")
        with pytest.raises(
            CatalogFormatError,
            match=rf"{re.escape(str(path))}: invalid (JSON|YAML) at line 1, column 101: "
            "nested more than 100 levels deep",
        ):
            load_tools(path)

    def test_a_schema_nested_a_hundred_deep_is_read(self, tmp_path: Path) -> None:
        schema: dict[str, Any] = {"type": "object"}
        for _ in range(48):  # two levels each: a schema, then its `properties`
            schema = {"type": "object", "properties": {"inner": schema}}
        tool = {"name": "deep", "description": "Deep.", "inputSchema": schema}
        for filename in ("tools.json", "tools.yaml"):
            assert [tool.name for tool in load_tools(write(tmp_path, filename, [tool]))] == ["deep"]

    def test_a_yaml_anchor_that_contains_itself_is_refused(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.yaml", "&x [*x, *x]\n")
        with pytest.raises(
            CatalogFormatError,
            match=rf"{re.escape(str(path))}: invalid YAML at line 1, column 5: the alias \*x "
            "is inside its own anchor &x",
        ):
            load_tools(path)

    def test_a_yaml_alias_bomb_is_refused(self, tmp_path: Path) -> None:
        path = write(tmp_path, "tools.yaml", ALIAS_BOMB)
        assert path.stat().st_size < 400
        with pytest.raises(CatalogFormatError, match=r"its aliases expand to [\d,]+ values"):
            load_tools(path)

    def test_aliases_that_share_a_schema_are_read(self, tmp_path: Path) -> None:
        shared = "common: &city {type: object, properties: {city: {type: string}}}\n"
        text = (
            shared
            + "tools:\n"
            + "".join(
                f"- {{name: tool_{i}, description: Tool {i}., inputSchema: *city}}\n"
                for i in range(200)
            )
        )
        tools = load_tools(write(tmp_path, "tools.yaml", text))
        assert len(tools) == 200
        assert tools[199].input_schema["properties"] == {"city": {"type": "string"}}
