"""The MCP gateway: one MCP server in front of many, with tool search.

`toolscout serve --config gateway.yaml` runs it. It connects to every upstream server in the
file (stdio, streamable HTTP with OAuth sign-in when asked, or the older HTTP+SSE), and shows
the model only `search_tools`, `call_tool` and the pinned tools; toolscout's engines rank the
rest. It follows the file while it runs, and serves `/healthz` and `/metrics` over HTTP.
Needs the `mcp` extra: `pip install 'toolscout[mcp]'`.

```python
from toolscout.config import load_config
from toolscout.gateway import Gateway, GatewayConfig, serve

config = load_config("gateway.yaml", GatewayConfig)
anyio.run(serve, config)
```
"""

from toolscout.errors import require_extra

with require_extra("mcp", feature="the MCP gateway"):
    # Imported first, so that a missing extra is one clear line.
    import mcp  # noqa: F401
    import prometheus_client  # noqa: F401
    import watchfiles  # noqa: F401

from toolscout.gateway.config import (
    AuthSettings,
    GatewayConfig,
    GatewayStoreSettings,
    GatewayToolSearchSettings,
    InputRequiredSettings,
    OAuthSettings,
    RestartSettings,
    ServeSettings,
    Transport,
    UpstreamSettings,
)
from toolscout.gateway.gateway import Gateway, GatewayRequest
from toolscout.gateway.resources import gateway_uri, split_gateway_uri
from toolscout.gateway.serve import serve
from toolscout.gateway.server import GatewayServer
from toolscout.gateway.upstream import Upstream, UpstreamState, UpstreamStatus

__all__ = [
    "AuthSettings",
    "Gateway",
    "GatewayConfig",
    "GatewayRequest",
    "GatewayServer",
    "GatewayStoreSettings",
    "GatewayToolSearchSettings",
    "InputRequiredSettings",
    "OAuthSettings",
    "RestartSettings",
    "ServeSettings",
    "Transport",
    "Upstream",
    "UpstreamSettings",
    "UpstreamState",
    "UpstreamStatus",
    "gateway_uri",
    "serve",
    "split_gateway_uri",
]
