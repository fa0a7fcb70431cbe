"""Importing toolscout costs only what is used: packages import their names on first use, and
`import toolscout` and `toolscout --help` load none of the heavy libraries (how long they take
is measured by `benchmarks/startup.py`, not here)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

PACKAGES = [
    "toolscout",
    "toolscout.catalog",
    "toolscout.config",
    "toolscout.protocol",
    "toolscout.search",
    "toolscout.search.embedders",
]
#: What the command line's help and `import toolscout` never need.
HEAVY = ["numpy", "pydantic", "jsonschema", "yaml", "tiktoken", "re2", "Stemmer", "scipy"]


def _loaded_after(code: str) -> list[str]:
    """The modules of `HEAVY` that a new interpreter has loaded after running `code`."""
    script = (
        f"{code}\nimport json, sys\nprint(json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))))"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(finished.stdout.splitlines()[-1])
    return loaded


class TestLazyPackages:
    @pytest.mark.parametrize("package", PACKAGES)
    def test_every_public_name_imports(self, package: str) -> None:
        module = importlib.import_module(package)
        for name in module.__all__:
            assert getattr(module, name) is not None, name

    @pytest.mark.parametrize("package", PACKAGES)
    def test_dir_lists_every_public_name(self, package: str) -> None:
        module = importlib.import_module(package)
        assert set(module.__all__) <= set(dir(module))

    @pytest.mark.parametrize("package", PACKAGES)
    def test_an_unknown_name_is_an_attribute_error_naming_it(self, package: str) -> None:
        module = importlib.import_module(package)
        with pytest.raises(AttributeError, match=f"{package!r} has no attribute 'Nonexistent'"):
            _ = module.Nonexistent

    def test_a_name_is_the_same_object_from_the_package_and_its_module(self) -> None:
        from toolscout import ToolIndex
        from toolscout.search.index import ToolIndex as defined

        assert ToolIndex is defined

    def test_embedders_are_public_from_their_package_and_implemented_in_private_modules(
        self,
    ) -> None:
        import toolscout.search
        import toolscout.search.embedders

        for name in ("CallableEmbedder", "Embedder", "LocalEmbedder", "OpenAIEmbedder"):
            assert getattr(toolscout.search, name) is getattr(toolscout.search.embedders, name)
        modules = [
            found.name for found in pkgutil.iter_modules(toolscout.search.embedders.__path__)
        ]
        assert sorted(modules) == ["_callable", "_http", "_local", "_protocol"]

    def test_submodules_still_import_from_their_package(self) -> None:
        from toolscout.protocol import meta_tools

        assert meta_tools.__name__ == "toolscout.protocol.meta_tools"


class TestWhatStartUpLoads:
    def test_import_toolscout_loads_no_heavy_library(self) -> None:
        assert _loaded_after("import toolscout") == []

    def test_the_version_needs_nothing_else(self) -> None:
        assert _loaded_after("import toolscout; toolscout.__version__") == []

    def test_the_command_lines_help_loads_no_heavy_library(self) -> None:
        code = (
            "import contextlib, io, sys\n"
            "from toolscout.cli import app\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    app(['--help'])\n"
        )
        assert _loaded_after(code) == []

    def test_using_a_name_loads_what_it_needs(self) -> None:
        loaded = _loaded_after("from toolscout import ToolIndex; ToolIndex([], engine='bm25')")
        assert {"numpy", "pydantic", "Stemmer"} <= set(loaded)
