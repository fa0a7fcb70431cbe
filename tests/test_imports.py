"""Importing toolscout costs only what is used: packages import their names on first use, and
`import toolscout` and `toolscout --help` load none of the heavy libraries (how long they take
is measured by `benchmarks/startup.py`, not here)."""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import toolscout

PACKAGES = [
    "toolscout",
    "toolscout.catalog",
    "toolscout.config",
    "toolscout.protocol",
    "toolscout.search",
    "toolscout.search.embedders",
]
#: What the command line's help and `import toolscout` never need.
HEAVY = [
    "numpy",
    "pydantic",
    "jsonschema",
    "yaml",
    "tiktoken",
    "re2",
    "Stemmer",
    "scipy",
    "rich",
    "docstring_parser",
]


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

        names = ("CallableEmbedder", "Embedder", "LocalEmbedder", "MultilingualEmbedder")
        for name in (*names, "OpenAIEmbedder"):
            assert getattr(toolscout.search, name) is getattr(toolscout.search.embedders, name)
        modules = [
            found.name for found in pkgutil.iter_modules(toolscout.search.embedders.__path__)
        ]
        assert sorted(modules) == ["_callable", "_http", "_local", "_multilingual", "_protocol"]

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

    def test_a_search_of_a_file_loads_no_token_counter_or_docstring_parser(self) -> None:
        loaded = _loaded_after(
            "from toolscout import ToolIndex\n"
            "from toolscout.catalog import Catalog\n"
            "from toolscout.data import demo_catalog_path\n"
            "index = ToolIndex(Catalog.from_file(demo_catalog_path()), engine='bm25')\n"
            "assert index.search('weather in Paris', k=1)"
        )
        assert "numpy" in loaded
        assert "tiktoken" not in loaded
        assert "docstring_parser" not in loaded
        assert "yaml" not in loaded

    def test_the_command_line_s_search_of_a_json_file_loads_no_yaml_reader(
        self, tmp_path: Path
    ) -> None:
        loaded = _loaded_after(
            "import os, sys\n"
            f"os.chdir({str(tmp_path)!r})  # no config file here\n"
            "from toolscout.cli.app import app\n"
            "sys.argv = ['toolscout', 'search', 'demo', 'weather', '--engine', 'bm25', '--json']\n"
            "try:\n"
            "    app()\n"
            "except SystemExit as done:\n"
            "    assert done.code in (None, 0)"
        )
        assert "Stemmer" in loaded
        assert "yaml" not in loaded


SOURCE = Path(toolscout.__file__).parent
#: The layers every other one builds on; they import none of the others.
CORE = ("catalog", "search", "state", "protocol")


def _imports(module: str) -> set[str]:
    """The toolscout modules `module` imports, at its top or inside functions (not for type
    checking only); `from package import name` counts the module that defines `name`."""
    path = SOURCE.joinpath(*module.split(".")[1:])
    package = module if path.is_dir() else module.rsplit(".", 1)[0]
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []  # walked after this node: its imports are skipped
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: 1 - node.level or None], base]).strip(".")
            for alias in node.names:
                found.add(_defining_module(base, alias.name))
    return {name for name in found if name.startswith("toolscout") and name != module}


def _defining_module(package: str, name: str) -> str:
    if importlib.util.find_spec(package) is None:
        return package
    submodule = f"{package}.{name}"
    with contextlib.suppress(ModuleNotFoundError):
        if importlib.util.find_spec(submodule) is not None:
            return submodule
    value = getattr(importlib.import_module(package), name, None)
    defined_in = getattr(value, "__module__", None)
    return defined_in if isinstance(defined_in, str) else package


def _core_graph() -> dict[str, set[str]]:
    modules = [
        ".".join(("toolscout", *path.relative_to(SOURCE).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for layer in CORE
        for path in (SOURCE / layer).glob("*.py")
    ]
    return {module: _imports(module) for module in modules}


class TestImportGraph:
    def test_the_core_imports_no_outer_layer(self) -> None:
        inward = (
            "toolscout.errors",
            "toolscout.safe_loading",
            "toolscout.safe_yaml",
            "toolscout.workers",
            "toolscout._lazy_exports",
        )
        for module, imported in _core_graph().items():
            outer = [
                name
                for name in imported
                if not name.startswith(inward)
                and not any(name.startswith(f"toolscout.{layer}") for layer in CORE)
            ]
            assert outer == [], module

    def test_protocol_search_and_state_modules_import_no_cycle(self) -> None:
        graph = {
            module: imported
            for module, imported in _core_graph().items()
            if not module.startswith("toolscout.catalog")
        }

        def reaches(start: str, goal: str, seen: set[str]) -> bool:
            for name in graph.get(start, ()):
                if name == goal or (name not in seen and reaches(name, goal, seen | {name})):
                    return True
            return False

        cyclic = sorted(module for module in graph if reaches(module, module, set()))
        assert cyclic == []
