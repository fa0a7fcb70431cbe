"""The tools of a JSON file, as `catalog.py` serves them, but only once a gate file exists:
`python gated.py GATE tools.json`. A server that connects as late as its test wants."""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    gate = Path(sys.argv[1])
    while not gate.exists():
        time.sleep(0.05)
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_path(str(Path(__file__).with_name("catalog.py")), run_name="__main__")
