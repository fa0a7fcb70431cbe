"""Regenerate `src/toolscout/data/demo_catalog.json` from the installed `bfcl-eval` package.

    .venv/bin/python scripts/build_demo_catalog.py           # rewrite the file
    .venv/bin/python scripts/build_demo_catalog.py --check   # exit 1 if it is out of date

The demo catalog is the pooled BFCL catalog of `benchmarks/bfcl.py`, every tool of it, as MCP
tool definitions: one per line, keys sorted, so a change to the data shows as a small diff.
The BFCL data is Apache-2.0; `src/toolscout/data/NOTICE` carries the attribution.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO_CATALOG = ROOT / "src" / "toolscout" / "data" / "demo_catalog.json"

# benchmarks/ is a directory of the repository, not an installed package.
sys.path.insert(0, str(ROOT))

from benchmarks.bfcl import load_bfcl  # noqa: E402

from toolscout.catalog.export import to_mcp  # noqa: E402


def render_demo_catalog() -> str:
    """The demo catalog file's exact text."""
    lines = [
        json.dumps(to_mcp(tool), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        for tool in load_bfcl().tools
    ]
    return "[\n" + ",\n".join(lines) + "\n]\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the file is current")
    args = parser.parse_args(argv)
    text = render_demo_catalog()
    current = DEMO_CATALOG.read_text(encoding="utf-8") if DEMO_CATALOG.exists() else None
    if args.check:
        if text != current:
            print(f"{DEMO_CATALOG} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    DEMO_CATALOG.write_text(text, encoding="utf-8")
    print(f"wrote {len(load_bfcl().tools)} tools to {DEMO_CATALOG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
