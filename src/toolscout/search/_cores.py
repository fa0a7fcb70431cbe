"""How many cores this process may use: what the local model spreads each batch over."""

from __future__ import annotations

import math
import os
from pathlib import Path

# A cgroup v2 quota: "max" or the microseconds of CPU per period, then the period.
_CPU_QUOTA_FILE = Path("/sys/fs/cgroup/cpu.max")


def usable_cores() -> int:
    """The cores this process may run on, fewer when its cgroup's quota allows less (a
    container's `--cpus`, which leaves the cores it may run on untouched)."""
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    try:
        quota, period = _CPU_QUOTA_FILE.read_text(encoding="ascii").split()
        if quota != "max" and int(quota) > 0 and int(period) > 0:
            cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):  # no cgroup v2 file, or no quota in it
        pass
    return cores
