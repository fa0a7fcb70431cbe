"""The tools of a JSON file, as `catalog.py` serves them, but only once a gate file exists:
`python gated.py GATE tools.json`. A server that connects as late as its test wants."""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    # The MCP SDK is loaded while the gate is shut, so that a server already started answers
    # as soon as it opens: loading it takes longer than the gateway's connect timeout when
    # the machine is busy.
    import common  # noqa: F401

    gate = Path(sys.argv[1])
    while not gate.exists():
        time.sleep(0.05)
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_path(str(Path(__file__).with_name("catalog.py")), run_name="__main__")
