"""The tools of a JSON file, as `catalog.py` serves them, but only once a gate file exists:
`python gated.py GATE tools.json`. A server that connects as late as its test wants: until
then it fails to start at once, so that the gateway tries it again, and no connect timeout
(which a busy machine can exceed while the server loads) decides when it comes."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    if not Path(sys.argv[1]).exists():
        sys.exit("gated.py: the gate is shut")
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_path(str(Path(__file__).with_name("catalog.py")), run_name="__main__")
