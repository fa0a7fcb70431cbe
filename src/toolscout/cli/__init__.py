"""The `toolscout` command line: search a tool catalog, inspect its cost and quality."""

from toolscout.cli.app import app, main

__all__ = ["app", "main"]
