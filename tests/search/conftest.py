"""Shared builders for the search tests: a dozen real-looking tools and ways to index them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from toolscout.catalog import Catalog, Tool
from toolscout.search import ToolIndex

ENGINES = ("bm25", "regex")


def make_tool(
    name: str,
    description: str = "",
    *,
    namespace: str | None = None,
    parameters: dict[str, Any] | None = None,
    required: Iterable[str] = (),
    defs: dict[str, Any] | None = None,
    tags: Iterable[str] = (),
    pinned: bool = False,
) -> Tool:
    """A tool whose input schema is an object with `parameters` as its properties."""
    schema: dict[str, Any] = {"type": "object", "properties": parameters or {}}
    if required:
        schema["required"] = list(required)
    if defs:
        schema["$defs"] = defs
    return Tool(
        name=name,
        description=description,
        namespace=namespace,
        input_schema=schema,
        tags=tuple(tags),
        pinned=pinned,
    )


def string_param(description: str = "", **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def forecast_tool_both_ways() -> tuple[Tool, Tool]:
    """One tool twice, its two properties listed in one order, then the other: one
    fingerprint. "temperature city" spans the descriptions of the first, "name units" those
    of the second."""
    params = {"units": string_param("Units of temperature"), "city": string_param("City name")}
    forward = make_tool("get_forecast", "Weather forecast.", parameters=params)
    backward = make_tool(
        "get_forecast", "Weather forecast.", parameters=dict(reversed(params.items()))
    )
    return forward, backward


def standard_tools() -> list[Tool]:
    """Twelve tools from six services, shaped like real MCP / function-calling tools."""
    return [
        make_tool(
            "get_current_weather",
            "Get the current weather conditions for a city.",
            namespace="weather",
            parameters={
                "location": string_param("City name, for example Paris or Tokyo"),
                "units": string_param("Temperature units", enum=["celsius", "fahrenheit"]),
            },
            required=["location"],
            tags=["weather"],
        ),
        make_tool(
            "get_forecast",
            "Get a multi-day forecast with rain probability and wind speed.",
            namespace="weather",
            parameters={
                "location": string_param("City name"),
                "days": {"type": "integer", "description": "Number of days, 1 to 14"},
            },
            tags=["weather"],
        ),
        make_tool(
            "sendSlackMessage",
            "Post a message to a Slack channel or a direct conversation.",
            namespace="slack",
            parameters={
                "channel": string_param("Channel id such as C024BE91L"),
                "text": string_param("The message body, in Slack markdown"),
            },
            tags=["chat"],
        ),
        make_tool(
            "list_slack_channels",
            "List the public channels of the Slack workspace.",
            namespace="slack",
            parameters={"limit": {"type": "integer", "description": "Most channels to return"}},
            tags=["chat"],
        ),
        make_tool(
            "send_email",
            "Send an email to one or more recipients, with optional attachments.",
            namespace="email",
            parameters={
                "to": {"type": "array", "items": {"type": "string"}, "description": "Recipients"},
                "subject": string_param("Subject line"),
                "body": string_param("Plain text body"),
            },
            required=["to", "subject"],
        ),
        make_tool(
            "search_inbox",
            "Search received messages by sender, subject or date range.",
            namespace="email",
            parameters={"sender": string_param("Address of the sender")},
        ),
        make_tool(
            "create_calendar_event",
            "Create an event in the user's calendar and invite attendees.",
            namespace="calendar",
            parameters={
                "title": string_param("Event title"),
                "start_time": string_param("ISO 8601 start"),
                "attendees": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"email": string_param("Attendee address")},
                    },
                },
            },
        ),
        make_tool(
            "list_calendar_events",
            "List upcoming events between two dates.",
            namespace="calendar",
            parameters={"start_date": string_param(), "end_date": string_param()},
        ),
        make_tool(
            "delete_file",
            "Delete a file from the workspace. This cannot be undone.",
            namespace="files",
            parameters={"path": string_param("Path of the file, relative to the workspace root")},
        ),
        make_tool(
            "read_file",
            "Read the contents of a text file.",
            namespace="files",
            parameters={"path": string_param("Path of the file")},
        ),
        make_tool(
            "create_github_issue",
            "Open a new issue in a GitHub repository.",
            namespace="github",
            parameters={
                "repo": string_param("owner/name of the repository"),
                "title": string_param("Issue title"),
                "labels": {"type": "array", "items": {"type": "string"}},
            },
            tags=["code"],
        ),
        make_tool(
            "list_pull_requests",
            "List open pull requests of a GitHub repository.",
            namespace="github",
            parameters={
                "repo": string_param("owner/name of the repository"),
                "state": string_param("Which pull requests", enum=["open", "closed", "all"]),
            },
            tags=["code"],
        ),
    ]


def chinese_tools() -> list[Tool]:
    """Seven tools described in Chinese (one in Japanese), as Chinese MCP servers write them:
    English names, descriptions and parameters in Chinese."""

    def tool(name: str, description: str, parameter: str, explained: str) -> Tool:
        return make_tool(
            name, description, namespace="cn", parameters={parameter: string_param(explained)}
        )

    return [
        tool(
            "get_weather_cn",
            "获取指定城市的天气预报，包括温度、湿度和风力",
            "city",
            "城市名称，例如北京",
        ),
        tool("search_train_tickets", "查询两个城市之间的火车票余票信息", "date", "出发日期"),
        tool("translate_text", "将文本翻译成指定的目标语言", "text", "要翻译的文本"),
        tool("send_wechat_message", "通过微信给联系人发送消息", "contact", "联系人名称"),
        tool("stock_quote", "查询A股股票的实时行情和价格", "code", "股票代码"),
        tool("read_pdf", "读取PDF文件并提取其中的文字内容", "path", "文件路径"),
        tool("jp_weather", "指定した都市の天気予報を取得します", "city", "都市名"),
    ]


def make_catalog(*tools: Tool | dict[str, Any]) -> Catalog:
    """A catalog of `tools`, or of the standard tools when none are given."""
    return Catalog(list(tools) if tools else standard_tools())


def make_index(
    tools: Iterable[Tool | dict[str, Any]] | Catalog | None = None,
    engine: str = "bm25",
    **options: Any,
) -> ToolIndex:
    """An index over `tools` (a catalog, a list, or the standard tools by default)."""
    if tools is None:
        tools = make_catalog()
    return ToolIndex(tools, engine=engine, **options)  # type: ignore[arg-type]


def names(results: Iterable[Any]) -> list[str]:
    """The tool names of a search's hits, in order."""
    return [hit.tool.name for hit in results]


@pytest.fixture
def catalog() -> Catalog:
    return make_catalog()


@pytest.fixture
def index(catalog: Catalog) -> ToolIndex:
    return make_index(catalog)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)
