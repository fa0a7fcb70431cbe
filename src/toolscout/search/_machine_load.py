"""Whether the machine has a core to spare: what the local model asks before spreading a
query over the BLAS threads (see `toolscout.search._bert`).

Other processes' use of the cores is what counts. This process's own threads never count
against it: BLAS, tokenizer and torch workers keep spinning for a while after their work, and
counting them would have each query find the machine busy because of the one before it.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

# The shortest and longest time between two looks at the machine's CPU time: below the
# first, the last answer holds (a look costs a file read, and /proc/stat counts in 10 ms
# ticks); past the second, usage that old says nothing about now.
_MIN_WINDOW = 0.25
_MAX_WINDOW = 5.0

_CORES = os.cpu_count() or 1
# A cgroup v2 quota: "max" or the microseconds of CPU per period, then the period.
_CPU_QUOTA_FILE = Path("/sys/fs/cgroup/cpu.max")
_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _IdleCoreWatch:
    """Answers whether a core is idle, from the CPU time the machine and this process have
    used since the last look (see `a_core_is_idle`)."""

    def __init__(self) -> None:
        # When last looked, the machine's busy CPU seconds then, this process's, the answer.
        self._last: tuple[float, float, float, bool] | None = None

    def __call__(self) -> bool:
        now = time.monotonic()
        last = self._last
        if last is not None and now - last[0] < _MIN_WINDOW:
            return last[3]
        busy = _machine_busy_seconds()
        if busy is None:  # no /proc/stat (macOS, Windows): the last minute's load instead
            return _idle_by_load_average()
        own = time.process_time()
        if last is None or now - last[0] > _MAX_WINDOW:
            idle = _idle_now()
        else:
            # Cores other processes kept busy since the last look; one is this query's.
            others = ((busy - last[1]) - (own - last[2])) / (now - last[0])
            idle = others <= _CORES - 1.5
        self._last = (now, busy, own, idle)
        return idle


def _machine_busy_seconds() -> float | None:
    """CPU seconds all cores have spent on anything but idling since boot (Linux)."""
    try:
        with open("/proc/stat", encoding="ascii") as file:
            fields = file.readline().split()
        if len(fields) < 9 or fields[0] != "cpu":
            return None
        user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[1:9])
    except (OSError, ValueError):  # unreadable, or not the layout Linux writes
        return None
    return (user + nice + system + irq + softirq + steal) / _TICKS_PER_SECOND


def _idle_now() -> bool:
    """At a first look, with no earlier one to compare: the threads running or ready to run
    on the machine now (/proc/loadavg, which counts the caller) against its cores."""
    try:
        with open("/proc/loadavg", encoding="ascii") as file:
            running = int(file.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return False
    return running < _CORES


def _idle_by_load_average() -> bool:
    """Without /proc: the last minute's load average against the machine's cores."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # none to read (Windows): assume a busy machine
        return False
    # This process counts 1 while it runs; half a core more must be unused.
    return _CORES - load >= 0.5


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


#: Whether the machine has a core idle beside the calling thread, judged on other processes'
#: use of the cores over the last quarter of a second or more.
a_core_is_idle = _IdleCoreWatch()
