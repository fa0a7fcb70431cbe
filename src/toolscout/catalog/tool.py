"""The `Tool` model: one tool definition, whatever format it came from."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: Separator between namespace and name in a tool id: `weather__get_forecast`.
#: Two underscores keep the id valid as an OpenAI / Anthropic function name
#: (`^[a-zA-Z0-9_-]{1,64}$`), where a dot or slash would not be.
NAMESPACE_SEPARATOR = "__"


def make_tool_id(name: str, namespace: str | None) -> str:
    """Return the id of the tool called `name` in `namespace`.

    The rule: a tool without a namespace has its name as id; a tool in a namespace has
    `namespace + "__" + name`. So `get_weather` from server `weather` is `weather__get_weather`,
    and the same name in two namespaces never collides.
    """
    return f"{namespace}{NAMESPACE_SEPARATOR}{name}" if namespace else name


class Tool(BaseModel):
    """One tool an agent can call.

    Tools are immutable: to change one, build a new one (`tool.model_copy(update=...)`) and
    `Catalog.replace()` it. The id follows `make_tool_id` unless given explicitly.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    name: str = Field(min_length=1, max_length=256)
    """The name the model calls the tool by."""
    description: str = ""
    """What the tool does, in words; the main text search matches against."""
    input_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    """JSON Schema of the arguments; always an object schema."""
    namespace: str | None = None
    """Where the tool comes from (an MCP server, a team, an app); part of the id."""
    tags: tuple[str, ...] = ()
    """Free labels, searchable and usable in filters."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the source carried (MCP annotations, output schema, title...)."""
    pinned: bool = False
    """Always visible to the model, so never returned by search."""
    deferred: bool = True
    """Hidden until discovered through search. A tool that is neither pinned nor deferred is
    simply always sent, like a tool outside tool search."""
    id: str = ""
    """Unique id in a catalog; derived from namespace and name when left empty."""
    handler: Callable[..., Any] | None = Field(default=None, exclude=True, repr=False)
    """The Python callable that runs the tool, when there is one."""

    @field_validator("name", "description", mode="before")
    @classmethod
    def _must_be_text(cls, value: object) -> object:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise ValueError(f"must be a string, got {type(value).__name__}")
        return value

    @field_validator("namespace", mode="before")
    @classmethod
    def _empty_namespace_is_none(cls, value: object) -> object:
        return value or None

    @field_validator("input_schema", mode="before")
    @classmethod
    def _object_schema(cls, value: object) -> object:
        if value is None:
            return {"type": "object", "properties": {}}
        if not isinstance(value, dict):
            raise ValueError(f"must be a JSON Schema object (a dict), got {type(value).__name__}")
        # BFCL and some older function-calling data write `"type": "dict"` for objects.
        if value.get("type") == "dict":
            value = {**value, "type": "object"}
        if value.get("type", "object") != "object":
            raise ValueError(
                f'must describe an object (`"type": "object"`), got type {value.get("type")!r}'
            )
        return value

    @field_validator("tags", mode="before")
    @classmethod
    def _tags_as_tuple(cls, value: object) -> object:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        return tuple(value) if isinstance(value, list | tuple | set | frozenset) else value

    @model_validator(mode="after")
    def _derive_id(self) -> Tool:
        if not self.id:
            object.__setattr__(self, "id", make_tool_id(self.name, self.namespace))
        if self.pinned and self.deferred and "deferred" not in self.model_fields_set:
            # A pinned tool is always visible; only an explicit contradiction is an error.
            object.__setattr__(self, "deferred", False)
        if self.pinned and self.deferred:
            raise ValueError(
                f"tool {self.id!r} is both pinned (always visible) and deferred (hidden until "
                "discovered); set only one"
            )
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Tool:
        """A copy with `update` applied, validated like a new tool: a derived id follows a new
        name or namespace, and the fingerprint is computed afresh (pydantic's own copy would
        carry both over unchanged)."""
        data = {name: getattr(self, name) for name in self.model_fields_set}
        data.update(update or {})
        if deep:
            data = copy.deepcopy(data)
        # Imported here: validation builds on this module.
        from toolscout.catalog.validation import build_tool

        return build_tool(data, label=f"the copy of tool {self.id!r}")

    @cached_property
    def fingerprint(self) -> str:
        """A hash of everything search looks at; it changes exactly when the tool's
        searchable text or schema changes, so an index re-analyses only such tools."""
        payload = json.dumps(
            [self.name, self.namespace, self.description, self.input_schema, list(self.tags)],
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        # surrogatepass: text with a lone surrogate still has a fingerprint.
        encoded = payload.encode("utf-8", errors="surrogatepass")
        return hashlib.blake2b(encoded, digest_size=16).hexdigest()
