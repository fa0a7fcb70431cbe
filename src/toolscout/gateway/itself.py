"""The gateway recognising itself among its upstreams.

Once the gateway is in Claude Desktop's or Cursor's file, a config that is that same file
lists the gateway itself, which would start itself, which would start itself... Two checks
stop it, and the entry is skipped with a warning:

- Its command and arguments: an entry that runs `toolscout serve` (or `python -m toolscout
  serve`, `uvx toolscout serve`...) with this gateway's own config file.
- A marker in the environment, for every other way of starting it (a wrapper script, a copy
  of the file): the gateway gives its stdio servers `TOOLSCOUT_GATEWAY_CHAIN`, the
  fingerprints of the server lists of every gateway above it. A gateway whose own list is
  already in the chain was started by itself: instead of starting its servers, it answers
  the `initialize` of its parent with an error that says so, and the parent skips the entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from toolscout.config.variables import expand_variables
from toolscout.gateway.config import GatewayConfig, UpstreamSettings
from toolscout.safe_loading import parse_json

MARKER = "TOOLSCOUT_GATEWAY_CHAIN"
"""The environment variable that carries the chain of gateways above a stdio server."""
#: The `data` of the error by which a gateway tells its parent that it is the parent.
REFUSAL = {"toolscout": "self-reference"}
_CONFIG_OPTIONS = ("--config", "-c")


def fingerprint(config: GatewayConfig) -> str:
    """What identifies a gateway in the chain: a hash of its server list as configured."""
    servers = {name: s.model_dump(mode="json") for name, s in config.servers.items()}
    text = json.dumps(servers, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def started_by_itself(config: GatewayConfig) -> bool:
    """Whether a gateway with this server list is already in the chain above this process."""
    return fingerprint(config) in os.environ.get(MARKER, "").split(",")


def marker_for_children(config: GatewayConfig) -> dict[str, str]:
    """The environment this gateway gives its stdio servers."""
    chain = [entry for entry in os.environ.get(MARKER, "").split(",") if entry]
    return {MARKER: ",".join([*chain, fingerprint(config)])}


def runs_this_gateway(settings: UpstreamSettings, config_path: Path | None) -> bool:
    """Whether an entry's command runs `toolscout serve` with the file at `config_path`."""
    if not settings.command or config_path is None:
        return False
    try:
        words = [expand_variables(word) for word in (settings.command, *settings.args)]
    except ValueError:
        return False
    if "serve" not in words:
        return False
    before = words[: words.index("serve")]
    if not any(Path(word).name in ("toolscout", "toolscout.exe") for word in before):
        return False
    named = _config_argument(words[words.index("serve") + 1 :])
    if named is None:
        return False
    folder = Path(expand_variables(str(settings.cwd))) if settings.cwd else Path.cwd()
    return _same_file(folder / Path(named).expanduser(), config_path)


def is_refusal(error: types.ErrorData) -> bool:
    """Whether an error answering `initialize` is a gateway saying it is its parent."""
    return bool(error.data == REFUSAL)


async def refuse_over_stdio(reason: str) -> None:
    """Answer every request on stdin with an error saying `reason`, until stdin closes: what
    a gateway started by itself does instead of serving."""
    error = types.ErrorData(code=types.INVALID_REQUEST, message=reason, data=REFUSAL)
    async for line in anyio.wrap_file(sys.stdin):
        try:
            message = parse_json(line)
        except ValueError:  # not JSON, or nested too deep to read
            continue
        if isinstance(message, dict) and "id" in message and "method" in message:
            answer = types.JSONRPCError(jsonrpc="2.0", id=message["id"], error=error)
            sys.stdout.write(answer.model_dump_json(by_alias=True, exclude_none=True) + "\n")
            sys.stdout.flush()


def _config_argument(words: Sequence[str]) -> str | None:
    for position, word in enumerate(words):
        if word in _CONFIG_OPTIONS and position + 1 < len(words):
            return words[position + 1]
        for option in _CONFIG_OPTIONS:
            if word.startswith(option + "="):
                return word.split("=", 1)[1]
    return None


def _same_file(one: Path, other: Any) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return one.resolve() == Path(other).resolve()
