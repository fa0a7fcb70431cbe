"""Python functions as tools: schema from the signature, words from the docstring."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolscout.catalog import to_tools, tool_from_callable
from toolscout.errors import ToolDefinitionError


def google_style(city: str, days: int = 3) -> str:
    """Get the weather forecast.

    Looks the city up first, then asks the forecast service.

    Args:
        city: The city to forecast.
        days: How many days ahead.
    """
    return city


def numpy_style(city: str, days: int = 3) -> str:
    """Get the weather forecast.

    Looks the city up first, then asks the forecast service.

    Parameters
    ----------
    city : str
        The city to forecast.
    days : int, optional
        How many days ahead.
    """
    return city


def sphinx_style(city: str, days: int = 3) -> str:
    """Get the weather forecast.

    Looks the city up first, then asks the forecast service.

    :param city: The city to forecast.
    :param days: How many days ahead.
    :returns: The forecast.
    """
    return city


class TestDocstrings:
    @pytest.mark.parametrize("fn", [google_style, numpy_style, sphinx_style])
    def test_every_style_gives_description_and_parameter_descriptions(self, fn: Any) -> None:
        tool = tool_from_callable(fn)
        assert tool.description == (
            "Get the weather forecast.\n\nLooks the city up first, then asks the forecast service."
        )
        properties = tool.input_schema["properties"]
        assert properties["city"]["description"] == "The city to forecast."
        assert properties["days"]["description"] == "How many days ahead."

    def test_description_argument_overrides_the_docstring(self) -> None:
        tool = tool_from_callable(google_style, description="Forecast.")
        assert tool.description == "Forecast."
        assert tool.input_schema["properties"]["city"]["description"] == "The city to forecast."

    def test_no_docstring_means_no_description(self) -> None:
        def ping() -> None:
            pass

        assert tool_from_callable(ping).description == ""

    def test_a_field_description_in_the_signature_wins(self) -> None:
        def search(query: Annotated[str, Field(description="Words to look for.")]) -> None:
            """Search.

            Args:
                query: The query.
            """

        properties = tool_from_callable(search).input_schema["properties"]
        assert properties["query"]["description"] == "Words to look for."


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str


class Connection:
    """A database connection: no JSON Schema can describe it."""


class TestSchema:
    def test_required_defaults_optional_and_literal(self) -> None:
        def book(
            city: str,
            nights: int = 1,
            note: str | None = None,
            room: Literal["single", "double"] = "double",
        ) -> None:
            pass

        assert tool_from_callable(book).input_schema == {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "nights": {"type": "integer", "default": 1},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "room": {"type": "string", "enum": ["single", "double"], "default": "double"},
            },
            "required": ["city"],
        }

    def test_nested_pydantic_models(self) -> None:
        def ship(to: Address, stops: list[Address]) -> None:
            pass

        schema = tool_from_callable(ship).input_schema
        assert schema["properties"]["to"] == {"$ref": "#/$defs/Address"}
        assert schema["$defs"]["Address"]["required"] == ["street", "city"]

    def test_args_kwargs_self_and_cls_are_left_out(self) -> None:
        class Service:
            def call(self, endpoint: str, *args: Any, **kwargs: Any) -> None:
                pass

            @classmethod
            def make(cls, size: int) -> None:
                pass

        assert list(tool_from_callable(Service().call).input_schema["properties"]) == ["endpoint"]
        assert list(tool_from_callable(Service.call).input_schema["properties"]) == ["endpoint"]
        assert list(tool_from_callable(Service.make).input_schema["properties"]) == ["size"]

    def test_parameter_names_pydantic_reserves(self) -> None:
        def query(json: str, schema: str, model_config: int = 0, _trace: bool = False) -> None:
            pass

        schema = tool_from_callable(query).input_schema
        assert list(schema["properties"]) == ["json", "schema", "model_config", "_trace"]
        assert schema["required"] == ["json", "schema"]

    def test_unannotated_parameter_accepts_anything(self) -> None:
        def echo(value):  # type: ignore[no-untyped-def]
            return value

        assert tool_from_callable(echo).input_schema["properties"] == {"value": {}}

    def test_a_type_without_json_schema_is_a_definition_error(self) -> None:
        def query(sql: str, connection: Connection) -> None:
            pass

        with pytest.raises(ToolDefinitionError, match="tool 'query': cannot describe"):
            tool_from_callable(query)

    def test_an_annotation_that_cannot_be_resolved_is_a_definition_error(self) -> None:
        def query(sql: str, connection: Undefined) -> None:  # type: ignore[name-defined]  # noqa: F821
            pass

        with pytest.raises(ToolDefinitionError, match="'Undefined' is not defined"):
            tool_from_callable(query)


class TestCallableKinds:
    def test_async_function(self) -> None:
        async def fetch(url: str) -> str:
            """Fetch a page."""
            return url

        tool = tool_from_callable(fetch)
        assert (tool.name, tool.description, tool.handler) == ("fetch", "Fetch a page.", fetch)

    def test_partial_is_named_after_its_function(self) -> None:
        tool = tool_from_callable(functools.partial(google_style, days=1))
        assert tool.name == "google_style"
        assert tool.input_schema["properties"]["days"]["default"] == 1

    def test_callable_object(self) -> None:
        class Translate:
            """Translate text."""

            def __call__(self, text: str) -> str:
                return text

        tool = tool_from_callable(Translate())
        assert (tool.name, tool.description) == ("Translate", "Translate text.")
        assert list(tool.input_schema["properties"]) == ["text"]

    def test_lambda_needs_a_name(self) -> None:
        with pytest.raises(ToolDefinitionError, match=re.escape("tool_from_callable(fn, name=")):
            tool_from_callable(lambda x: x)
        assert tool_from_callable(lambda x: x, name="identity").name == "identity"


class TestOptions:
    def test_name_namespace_tags_and_pinned(self) -> None:
        tool = tool_from_callable(
            google_style, name="forecast", namespace="weather", tags=["daily"], pinned=True
        )
        assert (tool.id, tool.tags, tool.pinned, tool.deferred) == (
            "weather__forecast",
            ("daily",),
            True,
            False,
        )

    def test_to_tools_passes_its_namespace(self) -> None:
        (tool,) = to_tools(google_style, namespace="weather")
        assert tool.id == "weather__google_style"
