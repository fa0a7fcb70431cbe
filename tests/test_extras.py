"""A feature used without its optional dependency says so in one line, in one wording, naming
the extra to install: `... needs the toolscout[mcp] extra (mcp not installed): pip install
'toolscout[mcp]'`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.limits import HANG
from toolscout.errors import MissingExtraError, require_extra

#: Makes `import <hidden>` fail in the child as it does when the package is not installed.
HIDE = """
import sys

class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

sys.meta_path.insert(0, Hide())
"""


def run_without(hidden: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HIDE.format(hidden=hidden) + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )


def message(feature: str, extra: str, missing: str) -> str:
    return (
        f"{feature} needs the toolscout[{extra}] extra ({missing} not installed): "
        f"pip install 'toolscout[{extra}]'"
    )


@pytest.mark.parametrize(
    ("statement", "hidden", "expected"),
    [
        ("import toolscout.gateway", "mcp", message("the MCP gateway", "mcp", "mcp")),
        ("import toolscout.fastmcp", "fastmcp", message("toolscout.fastmcp", "mcp", "fastmcp")),
        (
            "import toolscout.dashboard.app",
            "starlette",
            message("toolscout.dashboard", "dashboard", "starlette"),
        ),
        (
            "import toolscout.dashboard.serve",
            "uvicorn",
            message("toolscout.dashboard", "dashboard", "uvicorn"),
        ),
        (
            "import toolscout.integrations.langchain",
            "langgraph",
            message("toolscout.integrations.langchain", "langchain", "langgraph"),
        ),
        (
            "from toolscout.state import RedisStore; RedisStore('redis://localhost')",
            "redis",
            message("RedisStore", "redis", "redis"),
        ),
        (
            "from toolscout.search import OpenAIEmbedder; OpenAIEmbedder()",
            "httpx",
            message("the OpenAI-compatible embedder", "semantic", "httpx"),
        ),
    ],
)
def test_each_optional_import_names_its_extra(statement: str, hidden: str, expected: str) -> None:
    finished = run_without(
        hidden,
        f"""
        from toolscout.errors import MissingExtraError
        try:
            {statement}
        except MissingExtraError as error:
            print(error)
        """,
    )
    assert finished.stdout.strip() == expected, finished.stderr


def test_the_serve_command_names_the_extra() -> None:
    finished = run_without(
        "mcp",
        """
        from toolscout.cli import app
        sys.argv = ["toolscout", "serve", "--config", "gateway.yaml"]
        app()
        """,
    )
    assert finished.returncode != 0
    assert message("the MCP gateway", "mcp", "mcp") in finished.stderr


class TestRequireExtra:
    def test_present_modules_pass_and_missing_ones_are_named(self) -> None:
        require_extra("semantic", "json", "sys", feature="a feature")
        with pytest.raises(MissingExtraError) as raised:
            require_extra("semantic", "json", "no_such_module_here", feature="a feature")
        assert str(raised.value) == message("a feature", "semantic", "no_such_module_here")
        assert isinstance(raised.value, ImportError)

    def test_an_import_inside_the_block_is_named(self) -> None:
        with pytest.raises(MissingExtraError) as raised, require_extra("redis", feature="X"):
            import no_such_module_here.sub  # type: ignore[import-not-found]  # noqa: F401
        assert str(raised.value) == message("X", "redis", "no_such_module_here")

    def test_an_error_that_already_names_its_extra_passes_through(self) -> None:
        inner = MissingExtraError("the inner extra's own message")
        with pytest.raises(MissingExtraError) as raised, require_extra("mcp", feature="X"):
            raise inner
        assert raised.value is inner
