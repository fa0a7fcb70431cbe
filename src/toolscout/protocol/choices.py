"""The modes and result formats tool search offers, and how many tools one search may return.

Kept apart from the configuration models so that the command line can build its options and
help from them without importing pydantic.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

Mode: TypeAlias = Literal["load", "auto_load", "proxy", "lazy"]
"""How the model reaches deferred tools:

- `load`: `search_tools` returns names, short descriptions and scores; `load_tool` makes the
  chosen tools callable from the next step.
- `auto_load`: `search_tools` makes its hits callable at once; there is no `load_tool`.
- `proxy`: the tool list never changes; `search_tools` returns full definitions and
  `call_tool(name, arguments)` runs them.
- `lazy`: one discovery tool lists the deferred tools' names and first sentences; called with
  `tool_names`, it returns their definitions and they become normal tools.
"""

ResultFormat: TypeAlias = Literal["json", "compact"]
"""How meta-tool results are written: JSON, or compact text (names, one-line purposes,
parameters with types, required marks and enums) that costs fewer tokens."""

MAX_RESULTS_LIMIT = 20
"""The most tools one search may return, whatever the model asks for."""
