import sys
from pathlib import Path

# `benchmarks/` and `scripts/` are directories of the repository, not installed packages;
# pytest puts only this test directory on sys.path.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
