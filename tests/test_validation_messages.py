"""`describe_validation_error`: every pydantic error toolscout shows is one line in one style."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolscout.errors import describe_validation_error


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    size: int = Field(default=1, le=20)
    label: str = ""
    kind: str = ""

    @field_validator("label")
    @classmethod
    def _short(cls, value: str) -> str:
        if len(value) > 3:
            raise ValueError("must be at most 3 characters")
        return value

    @field_validator("kind")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ("", "a", "b"):
            raise ValueError(f"{value!r} is not a kind toolscout knows")
        return value


def error_of(**data: Any) -> ValidationError:
    with pytest.raises(ValidationError) as raised:
        Settings.model_validate(data)
    return raised.value


class TestOneLine:
    def test_each_kind_of_problem_in_the_reader_s_words(self) -> None:
        error = error_of(size=50, label="long", kind="c", colour="red")
        assert describe_validation_error(error) == (
            "name is missing; size: Input should be less than or equal to 20; "
            "label must be at most 3 characters; kind: 'c' is not a kind toolscout knows; "
            "unknown field 'colour'"
        )

    def test_fields_are_named_as_the_user_wrote_them(self) -> None:
        error = error_of(name="x", colour="red", size=50)
        line = describe_validation_error(error, field_names={"size": "max_size"})
        assert line == "max_size: Input should be less than or equal to 20; unknown field 'colour'"

    def test_an_unknown_option_lists_the_known_ones(self) -> None:
        line = describe_validation_error(error_of(name="x", colour="red"), options=["name", "size"])
        assert line == "unknown option 'colour'; the options are name, size"

    def test_a_limit_says_how_many_problems_are_left_out(self) -> None:
        error = error_of(size=50, label="long", kind="c")
        assert describe_validation_error(error, most=1) == "name is missing (and 3 more problems)"
        assert describe_validation_error(error_of(size=50), most=1) == (
            "name is missing (and 1 more problem)"
        )
