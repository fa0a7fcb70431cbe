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

from toolscout.config.loading import is_host_file, load_config, parse_config, settings_beside
from toolscout.config.models import StoreKind, StoreSettings, ToolScoutConfig, ToolSearchSettings
from toolscout.errors import ConfigError

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
