"""`enabled: auto` is decided by the gateway, `toolscout tokens` and the dashboard; the
framework integrations refuse it with a clear error rather than read it as on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolscout.config import ToolSearchSettings
from toolscout.errors import ToolSearchConfigError


def get_forecast(city: str) -> str:
    """Get the weather forecast for a city."""
    return f"Sunny in {city}."


def langchain(settings: ToolSearchSettings) -> Any:
    from toolscout.integrations.langchain import ToolScoutMiddleware

    return ToolScoutMiddleware(settings)


def openai_agents(settings: ToolSearchSettings) -> Any:
    from agents import function_tool

    from toolscout.integrations.openai_agents import ToolScout

    return ToolScout([function_tool(get_forecast)], settings)


def pydantic_ai_toolset(settings: ToolSearchSettings) -> Any:
    from pydantic_ai import FunctionToolset

    from toolscout.integrations.pydantic_ai import ToolScoutToolset

    return ToolScoutToolset(FunctionToolset([get_forecast]), settings)


def pydantic_ai_capability(settings: ToolSearchSettings) -> Any:
    from toolscout.integrations.pydantic_ai import ToolScout

    return ToolScout(settings)


HOSTS = [langchain, openai_agents, pydantic_ai_toolset, pydantic_ai_capability]


@pytest.mark.parametrize("host", HOSTS, ids=lambda host: host.__name__)
def test_auto_is_refused_with_what_to_set(host: Callable[[ToolSearchSettings], Any]) -> None:
    settings = ToolSearchSettings(enabled="auto", model="gpt-4o")
    with pytest.raises(ToolSearchConfigError, match="set enabled to true or false"):
        host(settings)


@pytest.mark.parametrize("host", HOSTS, ids=lambda host: host.__name__)
def test_on_and_off_are_accepted(host: Callable[[ToolSearchSettings], Any]) -> None:
    for enabled in (True, False):
        assert host(ToolSearchSettings(enabled=enabled)) is not None
