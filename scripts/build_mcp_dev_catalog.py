"""Build `benchmarks/data/mcp_dev_catalog.json`: the tools of real public MCP servers, as their
own `tools/list` answers give them.

Run by hand, never by the tests (it installs packages and starts servers):

    .venv/bin/python scripts/build_mcp_dev_catalog.py --install   # install, then harvest
    .venv/bin/python scripts/build_mcp_dev_catalog.py              # harvest what is installed

Every server of `SERVERS` is installed at the pinned version from npm or PyPI into a scratch
directory outside the repository (`--scratch`, one npm project or one virtualenv per server,
so their dependencies never meet), started over stdio with dummy credentials and every network
setting pointed at a closed loopback port, and asked for `tools/list`. The catalog keeps each
tool's name, description and inputSchema exactly as the server sent them, with the package's
name, version and licence. A package whose licence is not in `REDISTRIBUTABLE` is left out,
and so is a server that does not answer; the script prints both. `MCP_DEV_CATALOG_NOTICE.md`
beside the catalog credits every package kept.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "benchmarks" / "data" / "mcp_dev_catalog.json"
NOTICE = ROOT / "benchmarks" / "data" / "MCP_DEV_CATALOG_NOTICE.md"
SCRATCH = Path("/work/scratch/mcpservers")

#: Licences whose text may be copied into this repository with an attribution notice.
REDISTRIBUTABLE = frozenset(
    {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD", "Unlicense", "MPL-2.0"}
)

#: Nothing listens here: a server that calls out at start-up fails at once, on this machine.
CLOSED_PORT = "http://127.0.0.1:9"
DUMMY_KEY = "dummy-key-for-tools-list"

#: The protocol version the harvest asks for; servers answer with theirs.
PROTOCOL_VERSION = "2025-06-18"
#: Seconds a server gets to start and answer `tools/list`.
LIST_TIMEOUT = 90.0


@dataclass(frozen=True)
class Server:
    """One MCP server of the catalog and how to start it."""

    name: str
    """The catalog's name for it: the namespace of its tools (`github` → `github__create_issue`)."""
    registry: Literal["npm", "pypi"]
    package: str
    version: str
    command: str | None = None
    """The executable the package installs; None for its only one."""
    args: tuple[str, ...] = ()
    """Arguments after the command; `{home}` stands for the server's scratch home directory."""
    env: dict[str, str] = field(default_factory=dict)
    """Dummy credentials and loopback addresses it needs to start; `{home}` as in `args`."""
    files: dict[str, str] = field(default_factory=dict)
    """Files written into its home before it starts (a dummy credentials file), by name."""
    requirements: tuple[str, ...] = ()
    """Further pins for pip (`mcp<2` for servers written for the 1.x SDK, whose modules 2.x
    renamed)."""
    python: str | None = None
    """The interpreter a PyPI server's virtualenv is made with, when it needs a newer Python
    than the one running this script; None for this one."""


def _npm(name: str, package: str, version: str, *args: str, **env: str) -> Server:
    return Server(name, "npm", package, version, args=args, env=env)


def _pypi(name: str, package: str, version: str, *args: str, **env: str) -> Server:
    return Server(name, "pypi", package, version, args=args, env=env)


def _pypi_sdk1(name: str, package: str, version: str, *args: str, **env: str) -> Server:
    """A PyPI server written for the 1.x `mcp` SDK."""
    return Server(name, "pypi", package, version, args=args, env=env, requirements=("mcp<2",))


_GOOGLE_OAUTH_KEYS = json.dumps(
    {
        "installed": {
            "client_id": "dummy.apps.googleusercontent.com",
            "client_secret": DUMMY_KEY,
            "redirect_uris": ["http://127.0.0.1:9"],
        }
    }
)
_GOOGLE_TOKEN = json.dumps({"access_token": DUMMY_KEY, "refresh_token": DUMMY_KEY})

_KUBECONFIG = json.dumps(
    {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "none", "cluster": {"server": "https://127.0.0.1:9"}}],
        "users": [{"name": "none", "user": {"token": DUMMY_KEY}}],
        "contexts": [{"name": "none", "context": {"cluster": "none", "user": "none"}}],
        "current-context": "none",
    }
)


_MCP = "@modelcontextprotocol/server-"
_NOWHERE = CLOSED_PORT

# Tried and left out. Would not run here: @modelcontextprotocol/server-redis (connects to Redis
# at start), @stripe/mcp (a proxy to a remote server), @bytebase/dbhub (a native module built
# by an install script), mcp-server-docker, mcp-server-youtube (no release for this Python),
# mcp-server-rss and mcp-server-google-news (written for a FastMCP whose server moved out).
# No licence declared: mcp-server-sqlite 2025.4.25, mcp-server-weather, bilibili-mcp. Not an
# open licence: @sentry/mcp-server (FSL-1.1). Left out to keep the catalog near the size of the
# held-out one: server-everything (a protocol test server), server-pdf (a viewer whose tools
# say not to call them), @executeautomation/playwright-mcp-server (a second Playwright),
# mcp-server-tree-sitter, @shortcut/mcp (56 tools), mongodb-mcp-server,
# @winor30/mcp-server-datadog and @circleci/mcp-server-circleci.
SERVERS: tuple[Server, ...] = (
    # The reference servers. The newest releases of some declare "SEE LICENSE IN LICENSE"
    # and ship no licence file, so the last release declaring MIT is pinned for those.
    _npm("filesystem", f"{_MCP}filesystem", "2025.8.21", "{home}"),
    _npm("memory", f"{_MCP}memory", "2025.9.25", MEMORY_FILE_PATH="{home}/memory.jsonl"),
    _npm("github", f"{_MCP}github", "2025.4.8", GITHUB_PERSONAL_ACCESS_TOKEN=DUMMY_KEY),
    _npm("puppeteer", f"{_MCP}puppeteer", "2025.5.12"),
    _npm("brave_search", f"{_MCP}brave-search", "0.6.2", BRAVE_API_KEY=DUMMY_KEY),
    _npm("slack", f"{_MCP}slack", "2025.4.25", SLACK_BOT_TOKEN=DUMMY_KEY, SLACK_TEAM_ID="T0"),
    _npm("google_maps", f"{_MCP}google-maps", "0.6.2", GOOGLE_MAPS_API_KEY=DUMMY_KEY),
    _npm("sequential_thinking", f"{_MCP}sequential-thinking", "2025.12.18"),
    _npm("postgres", f"{_MCP}postgres", "0.6.2", "postgresql://127.0.0.1:9/none"),
    Server(
        "gdrive",
        "npm",
        f"{_MCP}gdrive",
        "2025.1.14",
        env={"GDRIVE_CREDENTIALS_PATH": "{home}/credentials.json"},
        files={"credentials.json": json.dumps({"access_token": DUMMY_KEY})},
    ),
    _npm("everart", f"{_MCP}everart", "0.6.2", EVERART_API_KEY=DUMMY_KEY),
    _npm(
        "aws_kb_retrieval",
        f"{_MCP}aws-kb-retrieval",
        "0.6.2",
        AWS_ACCESS_KEY_ID=DUMMY_KEY,
        AWS_SECRET_ACCESS_KEY=DUMMY_KEY,
        AWS_REGION="us-east-1",
    ),
    _npm(
        "gitlab",
        f"{_MCP}gitlab",
        "2025.4.25",
        GITLAB_PERSONAL_ACCESS_TOKEN=DUMMY_KEY,
        GITLAB_API_URL=f"{_NOWHERE}/api/v4",
    ),
    _npm("playwright", "@playwright/mcp", "0.0.83"),
    _npm("firecrawl", "firecrawl-mcp", "3.22.2", FIRECRAWL_API_KEY=DUMMY_KEY),
    _npm("notion", "@notionhq/notion-mcp-server", "2.5.2", NOTION_TOKEN=DUMMY_KEY),
    _npm("context7", "@upstash/context7-mcp", "4.1.1"),
    _npm("tavily", "tavily-mcp", "0.2.22", TAVILY_API_KEY=DUMMY_KEY),
    _npm("amap", "@amap/amap-maps-mcp-server", "0.0.8", AMAP_MAPS_API_KEY=DUMMY_KEY),
    _npm("baidu_map", "@baidumap/mcp-server-baidu-map", "1.0.5", BAIDU_MAP_API_KEY=DUMMY_KEY),
    _npm("howtocook", "howtocook-mcp", "0.2.2"),
    _npm("exa", "exa-mcp-server", "3.4.1", EXA_API_KEY=DUMMY_KEY),
    _npm("youtube_transcript", "@kimtaeyoon83/mcp-server-youtube-transcript", "0.1.1"),
    Server(
        "kubernetes",
        "npm",
        "mcp-server-kubernetes",
        "4.1.7",
        env={"KUBECONFIG": "{home}/kubeconfig"},
        files={"kubeconfig": _KUBECONFIG},
    ),
    _npm("chart", "@antv/mcp-server-chart", "0.9.10"),
    _npm("desktop_commander", "@wonderwhy-er/desktop-commander", "0.2.52"),
    _npm("brave", "@brave/brave-search-mcp-server", "2.1.4", BRAVE_API_KEY=DUMMY_KEY),
    _npm("perplexity", "@perplexity-ai/mcp-server", "1.2.1", PERPLEXITY_API_KEY=DUMMY_KEY),
    _npm("drawio", "@drawio/mcp", "1.6.1"),
    _npm(
        "jira",
        "@aashari/mcp-server-atlassian-jira",
        "3.3.0",
        ATLASSIAN_SITE_NAME="example",
        ATLASSIAN_USER_EMAIL="nobody@example.com",
        ATLASSIAN_API_TOKEN=DUMMY_KEY,
    ),
    _npm("code_runner", "mcp-server-code-runner", "0.1.8"),
    Server(
        "google_calendar",
        "npm",
        "@cocal/google-calendar-mcp",
        "2.6.3",
        env={"GOOGLE_OAUTH_CREDENTIALS": "{home}/gcp-oauth.keys.json"},
        files={"gcp-oauth.keys.json": _GOOGLE_OAUTH_KEYS},
    ),
    Server(
        "gmail",
        "npm",
        "@gongrzhe/server-gmail-autoauth-mcp",
        "1.1.11",
        env={
            "GMAIL_OAUTH_PATH": "{home}/gcp-oauth.keys.json",
            "GMAIL_CREDENTIALS_PATH": "{home}/credentials.json",
        },
        files={"gcp-oauth.keys.json": _GOOGLE_OAUTH_KEYS, "credentials.json": _GOOGLE_TOKEN},
    ),
    _npm("figma", "figma-developer-mcp", "0.13.2", "--stdio", FIGMA_API_KEY=DUMMY_KEY),
    _pypi("time", "mcp-server-time", "2026.10.19"),
    _pypi("fetch", "mcp-server-fetch", "2026.10.24"),
    _pypi("git", "mcp-server-git", "2026.10.19"),
    _pypi("arxiv", "arxiv-mcp-server", "0.8.2", "--storage-path", "{home}/papers"),
    _pypi("duckduckgo", "duckduckgo-mcp-server", "0.7.0"),
    _pypi("calculator", "mcp-server-calculator", "0.2.1"),
    _pypi("markitdown", "markitdown-mcp", "0.0.1a8"),
    _pypi("yahoo_finance", "mcp-yahoo-finance", "0.2.0"),
    _pypi("excel", "excel-mcp-server", "2.2.2", "stdio", EXCEL_FILES_PATH="{home}"),
    _pypi("word", "office-word-mcp-server", "1.1.11"),
    _pypi("wikipedia", "wikipedia-mcp", "2.0.1"),
    _pypi_sdk1("weather", "mcp-weather-server", "0.6.1"),
    _pypi_sdk1("reddit", "mcp-server-reddit", "0.2.1"),
    Server("hackernews", "pypi", "hn-mcp", "0.1.2", python="python3.12"),
    Server(
        "pubmed",
        "pypi",
        "mcp-simple-pubmed",
        "0.1.16",
        env={"PUBMED_EMAIL": "nobody@example.com"},
        # Its FastMCP imports pydantic-settings without declaring it.
        requirements=("mcp<2", "pydantic-settings"),
    ),
    _pypi_sdk1("powerpoint", "office-powerpoint-mcp-server", "2.0.7"),
    _pypi("shell", "mcp-shell-server", "1.1.14", ALLOW_COMMANDS="ls,cat,echo"),
    _pypi_sdk1("text_editor", "mcp-text-editor", "1.0.2"),
    _pypi("zotero", "zotero-mcp", "0.3.1", ZOTERO_LOCAL="true"),
    _pypi(
        "obsidian",
        "mcp-obsidian",
        "0.2.3",
        OBSIDIAN_API_KEY=DUMMY_KEY,
        OBSIDIAN_HOST="127.0.0.1",
        OBSIDIAN_PORT="9",
    ),
    _pypi("email", "mcp-email-server", "1.13.3", "stdio"),
)


def scratch_dir(scratch: Path, server: Server) -> Path:
    """Where one server is installed: an npm project or a virtualenv of its own."""
    if server.registry == "npm":
        return scratch / "npm" / server.package.replace("/", "_").replace("@", "_")
    return scratch / "py" / server.package


def install(scratch: Path, server: Server) -> None:
    place = scratch_dir(scratch, server)
    place.mkdir(parents=True, exist_ok=True)
    if server.registry == "npm":
        spec = f"{server.package}@{server.version}"
        package_json = place / "package.json"
        if not package_json.exists():
            package_json.write_text('{"name": "scratch", "version": "0.0.0", "private": true}\n')
        # No install scripts: they download browsers and binaries, which this machine cannot.
        command = ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", spec]
        subprocess.run(command, cwd=place, check=True, capture_output=True)
    else:
        if not (place / "bin" / "python").exists():
            interpreter = server.python or sys.executable
            subprocess.run([interpreter, "-m", "venv", str(place)], check=True)
        pip = [str(place / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
        spec = f"{server.package}=={server.version}"
        subprocess.run([*pip, spec, *server.requirements], check=True)


def launch_command(scratch: Path, server: Server) -> list[str]:
    """The command line that starts `server` from its scratch install."""
    place = scratch_dir(scratch, server)
    if server.registry == "npm":
        bins = _npm_bins(place, server.package)
        entry = bins[server.command] if server.command else next(iter(bins.values()))
        command = ["node", str(place / "node_modules" / server.package / entry)]
    else:
        command = [
            str(place / "bin" / (server.command or _console_scripts(place, server.package)[0]))
        ]
    home = str(home_dir(scratch, server))
    return [*command, *(argument.replace("{home}", home) for argument in server.args)]


def home_dir(scratch: Path, server: Server) -> Path:
    """The server's working and home directory, where it may write what it likes."""
    home = scratch / "home" / server.name
    home.mkdir(parents=True, exist_ok=True)
    for name, text in server.files.items():
        (home / name).write_text(text, encoding="utf-8")
    return home


def installed_version_and_licence(scratch: Path, server: Server) -> tuple[str, str]:
    place = scratch_dir(scratch, server)
    if server.registry == "npm":
        manifest = json.loads(
            (place / "node_modules" / server.package / "package.json").read_text()
        )
        licence = manifest.get("license") or ""
        if isinstance(licence, dict):
            licence = licence.get("type", "")
        if not licence or licence.startswith("SEE LICENSE"):
            licence = _licence_of_file(place / "node_modules" / server.package)
        return manifest["version"], licence
    script = (
        "import importlib.metadata as m, json, sys\n"
        "dist = m.distribution(sys.argv[1])\n"
        "meta = dist.metadata\n"
        "classifiers = [c for c in meta.get_all('Classifier') or [] if c.startswith('License')]\n"
        "files = [str(f.locate()) for f in dist.files or [] if 'LICEN' in f.name.upper()]\n"
        "print(json.dumps([meta['Version'], meta.get('License-Expression') or '',"
        " meta.get('License') or '', classifiers, files]))\n"
    )
    output = subprocess.run(
        [str(place / "bin" / "python"), "-c", script, server.package],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    version, expression, licence, classifiers, files = json.loads(output)
    return version, (
        expression
        or _licence_from(licence, classifiers)
        or next(filter(None, (_licence_of_text(Path(f).read_text("utf-8")) for f in files)), "")
    )


def _licence_from(licence: str, classifiers: list[str]) -> str:
    """An SPDX id from the older metadata fields: a short `License:` or a trove classifier."""
    by_classifier = {
        "MIT License": "MIT",
        "Apache Software License": "Apache-2.0",
        "BSD License": "BSD-3-Clause",
        "ISC License (ISCL)": "ISC",
        "Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    }
    short = licence.strip()
    if short and "\n" not in short and len(short) < 40:
        return {"MIT License": "MIT", "Apache 2.0": "Apache-2.0"}.get(short, short)
    for classifier in classifiers:
        if (spdx := by_classifier.get(classifier.split(" :: ")[-1])) is not None:
            return spdx
    return "MIT" if short.startswith("MIT License") else ""


def _licence_of_file(package_dir: Path) -> str:
    """An SPDX id for a package that names no licence but ships a licence file, read from
    the file's own words; empty when there is no file or its licence is not recognised."""
    for path in sorted(package_dir.glob("LICEN[CS]E*")):
        if spdx := _licence_of_text(path.read_text(encoding="utf-8", errors="replace")):
            return spdx
    return ""


def _licence_of_text(text: str) -> str:
    words = " ".join(text.split())
    if "Permission is hereby granted, free of charge" in words:
        return "MIT"
    if "Apache License" in words and "Version 2.0" in words:
        return "Apache-2.0"
    if words.startswith("BSD 3-Clause License"):
        return "BSD-3-Clause"
    if words.startswith("BSD 2-Clause License"):
        return "BSD-2-Clause"
    return ""


def _npm_bins(place: Path, package: str) -> dict[str, str]:
    manifest = json.loads((place / "node_modules" / package / "package.json").read_text())
    bins = manifest.get("bin", {})
    if isinstance(bins, str):
        return {package.split("/")[-1]: bins}
    return dict(bins)


def _console_scripts(place: Path, package: str) -> list[str]:
    script = (
        "import importlib.metadata as m, sys\n"
        "for e in m.distribution(sys.argv[1]).entry_points:\n"
        "    print(e.name) if e.group == 'console_scripts' else None\n"
    )
    output = subprocess.run(
        [str(place / "bin" / "python"), "-c", script, package],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return output.split()


def server_environment(scratch: Path, server: Server) -> dict[str, str]:
    """A minimal environment: no credentials of this machine, dummy ones of the server's own,
    and proxies at a closed loopback port for the clients that honour them."""
    home = str(home_dir(scratch, server))
    return {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "LANG": "C.UTF-8",
        "HTTP_PROXY": CLOSED_PORT,
        "HTTPS_PROXY": CLOSED_PORT,
        "http_proxy": CLOSED_PORT,
        "https_proxy": CLOSED_PORT,
        "NO_PROXY": "",
        "DO_NOT_TRACK": "1",
        "NODE_OPTIONS": "--no-warnings",
        **{key: value.replace("{home}", home) for key, value in server.env.items()},
    }


async def list_tools(scratch: Path, server: Server) -> list[dict[str, Any]]:
    """The server's `tools/list`, every page of it, as the JSON it sent.

    A plain JSON-RPC exchange over the server's stdin and stdout rather than the `mcp` SDK's
    client: the SDK validates results into its models, which reject schemas some real servers
    send (no top-level "type"), and the catalog keeps each server's text exactly as sent.
    Lines on stdout that are not JSON (start-up banners some servers print there) are skipped.
    """
    command = launch_command(scratch, server)
    with (scratch / "logs" / f"run-{server.name}.log").open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            env=server_environment(scratch, server),
            cwd=home_dir(scratch, server),
            limit=64 * 1024 * 1024,
        )
        try:
            return await _exchange(process)
        finally:
            if process.returncode is None:
                process.kill()
            await process.wait()


async def _exchange(process: asyncio.subprocess.Process) -> list[dict[str, Any]]:
    assert process.stdin is not None and process.stdout is not None
    reader, writer = process.stdout, process.stdin
    requests = 0

    async def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal requests
        requests += 1
        await send({"jsonrpc": "2.0", "id": requests, "method": method, "params": params})
        while True:
            line = await reader.readline()
            if not line:
                raise RuntimeError(f"the server closed its output before answering {method}")
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(message, dict) and message.get("id") == requests:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    async def send(message: dict[str, Any]) -> None:
        writer.write(json.dumps(message).encode() + b"\n")
        await writer.drain()

    await call(
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "toolscout-build-mcp-dev-catalog", "version": "1"},
        },
    )
    await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await call("tools/list", {"cursor": cursor} if cursor else {})
        tools += (
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "inputSchema": tool["inputSchema"],
            }
            for tool in page["tools"]
        )
        cursor = page.get("nextCursor")
        if not cursor:
            return tools


def harvest(scratch: Path, server: Server) -> dict[str, Any]:
    version, licence = installed_version_and_licence(scratch, server)
    if version != server.version:
        raise RuntimeError(f"installed {version}, pinned {server.version}")
    tools = asyncio.run(asyncio.wait_for(list_tools(scratch, server), LIST_TIMEOUT))
    if not tools:
        raise RuntimeError("listed no tools")
    return {
        "package": server.package,
        "registry": server.registry,
        "version": version,
        "license": licence,
        "tools": tools,
    }


def render_notice(catalog: dict[str, Any]) -> str:
    lines = [
        "# Third-party text in mcp_dev_catalog.json",
        "",
        "`mcp_dev_catalog.json` holds the tool names, descriptions and input schemas that the",
        "MCP servers below return from `tools/list`, unchanged, recorded by",
        "`scripts/build_mcp_dev_catalog.py`. That text belongs to the packages' authors and is",
        "redistributed under each package's licence, named here as the package declares it",
        "(or, where it declares none, as the licence file it ships states).",
        "The tasks in `mcp_dev_tasks.json` are toolscout's own.",
        "",
        "| server | package | registry | version | licence | tools |",
        "|:--|:--|:--|:--|:--|--:|",
    ]
    for name, entry in catalog.items():
        lines.append(
            f"| {name} | {entry['package']} | {entry['registry']} | {entry['version']} | "
            f"{entry['license']} | {len(entry['tools'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="store_true", help="install the pinned packages first")
    parser.add_argument("--scratch", type=Path, default=SCRATCH, help="where servers are installed")
    parser.add_argument(
        "--only", nargs="*", help="harvest these servers only, print, write nothing"
    )
    args = parser.parse_args(argv)
    (args.scratch / "logs").mkdir(parents=True, exist_ok=True)
    servers = [s for s in SERVERS if not args.only or s.name in args.only]
    catalog: dict[str, Any] = {}
    for server in servers:
        try:
            if args.install:
                install(args.scratch, server)
            entry = harvest(args.scratch, server)
        except Exception as error:  # a broken server is reported and left out, never fatal
            print(f"left out {server.name}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        if entry["license"] not in REDISTRIBUTABLE:
            print(f"left out {server.name}: licence {entry['license']!r}", file=sys.stderr)
            continue
        catalog[server.name] = entry
        print(f"{server.name}: {len(entry['tools'])} tools ({entry['license']})")
    tools = sum(len(entry["tools"]) for entry in catalog.values())
    if args.only:
        print(json.dumps(catalog, indent=1, ensure_ascii=False)[:20_000])
        return 0
    CATALOG.parent.mkdir(parents=True, exist_ok=True)
    CATALOG.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    NOTICE.write_text(render_notice(catalog), encoding="utf-8")
    print(f"wrote {len(catalog)} servers, {tools} tools to {CATALOG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
