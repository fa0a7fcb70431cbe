"""One configuration for the CLI, the gateway and every integration, from YAML, JSON or Python.

```yaml
tool_search:
  enabled: true
  mode: load
  max_results: 5
  always_available: [now]
  store: {kind: sqlite, path: discovered.db}
```

`load_config(path)` reads it into a `ToolScoutConfig`; `config.tool_search.build(catalog)`
makes the `ToolSearch` it describes. A mistake is a `ConfigError` naming the file, the line
and column of the key, the field and the fix.
"""

from typing import TYPE_CHECKING

from toolscout._lazy_exports import lazy_exports
from toolscout.errors import ConfigError

if TYPE_CHECKING:
    from toolscout.config.loading import is_host_file, load_config, parse_config, settings_beside
    from toolscout.config.models import (
        StoreKind,
        StoreSettings,
        ToolScoutConfig,
        ToolSearchSettings,
    )

__all__ = [
    "ConfigError",
    "StoreKind",
    "StoreSettings",
    "ToolScoutConfig",
    "ToolSearchSettings",
    "is_host_file",
    "load_config",
    "parse_config",
    "settings_beside",
]

# Imported on first use: the settings' defaults need no file reader.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "toolscout.config.loading": [
                "is_host_file",
                "load_config",
                "parse_config",
                "settings_beside",
            ],
            "toolscout.config.models": [
                "StoreKind",
                "StoreSettings",
                "ToolScoutConfig",
                "ToolSearchSettings",
            ],
        },
    )
