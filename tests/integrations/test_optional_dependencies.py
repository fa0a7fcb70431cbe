"""Frameworks stay optional: importing toolscout imports none, and an integration used
without its framework says in one line which extra to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.limits import HANG

FRAMEWORKS = ("pydantic_ai", "langchain", "langchain_core", "langgraph", "agents")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )


def test_importing_toolscout_imports_no_framework() -> None:
    finished = run_python(
        f"""
        import sys
        import toolscout, toolscout.config, toolscout.integrations, toolscout.protocol
        import toolscout.providers, toolscout.state, toolscout.cli
        print(sorted(m for m in sys.modules if m.split(".")[0] in {FRAMEWORKS!r}))
        """
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "hidden", "extra"),
    [
        ("toolscout.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("toolscout.integrations.langchain", "langchain", "langchain"),
        ("toolscout.integrations.openai_agents", "agents", "openai-agents"),
    ],
)
def test_an_integration_without_its_framework_names_the_extra(
    module: str, hidden: str, extra: str
) -> None:
    finished = run_python(
        f"""
        import sys

        class Hide:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == {hidden!r}:
                    raise ImportError("No module named " + repr(name))

        sys.meta_path.insert(0, Hide())
        from toolscout.errors import MissingExtraError
        try:
            import {module}
        except MissingExtraError as error:
            print(error)
        """
    )
    assert finished.returncode == 0, finished.stderr
    message = finished.stdout.strip()
    assert "\n" not in message
    assert message.startswith(f"{module} needs ")
    assert message.endswith(f"pip install 'toolscout[{extra}]'")
