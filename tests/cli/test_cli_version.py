"""`toolscout --version` prints the one version the package has."""

from __future__ import annotations

from importlib.metadata import version

import toolscout

from .conftest import RunToolscout


def test_version_is_the_package_s(run: RunToolscout) -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"toolscout {toolscout.__version__}\n"
    assert toolscout.__version__ == version("toolscout")
