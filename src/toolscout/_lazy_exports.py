"""Package names imported on first use, so that importing a package costs only what is used.

`import toolscout` and the `toolscout` command start in a fraction of the time they would if
every package imported all its modules (numpy, pydantic models, regex engines...) up front. A
package lists its names in `__all__`, imports them under `TYPE_CHECKING` for type checkers,
and gives Python the `__getattr__` and `__dir__` made here (PEP 562).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(
    package: str, modules: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module `__getattr__` and `__dir__` of `package`, whose public names live in the
    modules given (module name → the names it defines); a name is imported on first use and
    then kept on the package, so later uses cost nothing."""
    module_of = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *module_of})

    return __getattr__, __dir__
