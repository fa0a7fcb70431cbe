"""`enabled: auto` in the gateway: tool search follows the catalog as servers connect, and
the decision is logged at start and whenever it flips; with `toolscout serve` as a real
subprocess over HTTP in front of real test servers."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.gateway.conftest import (
    SERVERS,
    TOOLSCOUT,
    GatewayProcess,
    http_client,
    run,
    server,
    write_config,
)
from toolscout.catalog import Tool
from toolscout.catalog.tokens import catalog_tokens
from toolscout.gateway import Gateway, GatewayConfig, GatewayServer
from toolscout.gateway.gateway import ACTIVATION_LOGGER


def tools_file(folder: Path, name: str, count: int) -> Path:
    """A JSON file of `count` MCP tool definitions for the catalog server."""
    tools = [
        {
            "name": f"task_{number}",
            "description": f"Runs task {number} of the {name} service and reports its outcome.",
            "inputSchema": {
                "type": "object",
                "properties": {"item": {"type": "string", "description": "What to work on."}},
            },
        }
        for number in range(count)
    ]
    path = folder / f"{name}.json"
    path.write_text(json.dumps(tools))
    return path


def tokens_of(path: Path, namespace: str) -> int:
    """About the tokens of a tools file's tools in the gateway (named `namespace__tool`)."""
    tools = [
        Tool(
            name=f"{namespace}__{tool['name']}",
            description=tool["description"],
            input_schema=tool["inputSchema"],
        )
        for tool in json.loads(path.read_text())
    ]
    return catalog_tokens(tools)


async def listed_names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


class TestAutoActivation:
    def test_search_turns_on_when_a_late_server_s_tools_pass_the_share(
        self, tmp_path: Path
    ) -> None:
        small = tools_file(tmp_path, "small", 3)
        late = tools_file(tmp_path, "late", 40)
        gate = tmp_path / "gate"
        # A quarter of the window is one and a half times the small server's tools, and
        # a tenth of both servers' tools.
        window = 6 * tokens_of(small, "small")
        threshold = f"{window // 4:,} (25% of the {window:,}-token context window)"
        config = write_config(
            tmp_path,
            {
                "small": server("catalog", str(small)),
                "late": {
                    "command": sys.executable,
                    "args": [str(SERVERS / "gated.py"), str(gate), str(late)],
                },
            },
            tool_search={"enabled": "auto", "auto_share": 0.25, "context_window": window},
            # Serving starts once every server connected or failed: the late one fails until
            # its gate opens, and is started again within a second.
            gateway={"restart": {"max_delay": 1}},
        )
        gateway = GatewayProcess(config, "--port", "0")
        try:
            url = gateway.url()
            assert f"tool search auto: off: 0 tool tokens <= {threshold}" in "".join(gateway.lines)

            async def before() -> list[str]:
                async with http_client(url, None) as client:
                    while len(names := await listed_names(client)) < 3:
                        await anyio.sleep(0.05)
                    return names

            assert run(before) == ["small__task_0", "small__task_1", "small__task_2"]
            gate.touch()
            flipped = gateway.wait_for(r"(tool search auto: on: .*)")
            assert re.match(
                rf"tool search auto: on: [\d,]+ tool tokens > {re.escape(threshold)}", flipped
            )
            assert flipped.endswith("only pinned ones are listed")

            async def after() -> tuple[list[str], str]:
                async with http_client(url, None) as client:
                    result = await client.call_tool("search_tools", {"queries": ["task 7 late"]})
                    return await listed_names(client), str(result.content[0].model_dump())

            listed, found = run(after)
            assert listed == ["search_tools", "call_tool"]
            assert "late__task_7" in found
        finally:
            gateway.stop()

    def test_search_turns_off_when_a_server_leaves_and_sessions_are_told(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        small = tools_file(tmp_path, "small", 3)
        big = tools_file(tmp_path, "big", 40)
        window = 6 * tokens_of(small, "small")
        servers = {"small": server("catalog", str(small)), "big": server("catalog", str(big))}
        settings = {"enabled": "auto", "auto_share": 0.25, "context_window": window}
        config = GatewayConfig.model_validate({"servers": servers, "tool_search": settings})
        gateway = Gateway(config)
        front = GatewayServer(gateway, "stdio")

        async def scenario() -> tuple[list[str], list[str]]:
            async with gateway.running():
                await gateway.settled()
                async with Client(front.server) as client:
                    before = await listed_names(client)
                    async with client.listen(tools_list_changed=True) as events:
                        await gateway.reconfigure(
                            GatewayConfig.model_validate(
                                {"servers": {"small": servers["small"]}, "tool_search": settings}
                            )
                        )
                        await events.__anext__()
                    return before, await listed_names(client)

        with caplog.at_level(logging.INFO, ACTIVATION_LOGGER):
            before, after = run(scenario)
        assert before == ["search_tools", "call_tool"]
        assert after == ["small__task_0", "small__task_1", "small__task_2"]
        activation = gateway.activation()
        assert activation is not None and not activation.on and not gateway.search_on
        assert caplog.messages[-1].endswith("every tool is now listed, without search")

    def test_without_a_model_or_window_the_gateway_does_not_start(self, tmp_path: Path) -> None:
        config = write_config(tmp_path, {"notes": server("notes")}, tool_search={"enabled": "auto"})
        finished = subprocess.run(
            [str(TOOLSCOUT), "serve", "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert finished.returncode == 2
        assert "MCP clients do not say which model they use" in finished.stderr
        assert "tool_search.model" in finished.stderr and "Traceback" not in finished.stderr

    @pytest.mark.parametrize(
        ("settings", "problem"),
        [
            ({"enabled": "auto", "model": "my-finetune"}, "'my-finetune' is not known"),
            ({"enabled": "auto", "model": "gpt-4o", "auto_share": 0}, "auto_share"),
            ({"enabled": "auto", "context_window": -5}, "context_window"),
        ],
    )
    def test_bad_settings_are_errors_naming_them(
        self, settings: dict[str, Any], problem: str
    ) -> None:
        with pytest.raises(ValueError, match=problem):
            GatewayConfig.model_validate({"tool_search": settings})
