"""The one line an integration raises when its framework is not installed."""

from __future__ import annotations

from toolscout.errors import MissingExtraError


def missing_extra(module: str, framework: str, extra: str) -> MissingExtraError:
    """The error for `module` used without `framework`, naming the extra to install."""
    return MissingExtraError(
        f"{module} needs {framework}, which is not installed: pip install 'toolscout[{extra}]'"
    )
