"""A separate process for the store tests: saves tool ids into a store that other processes
use at the same time.

    python writer.py sqlite PATH WORKER COUNT
    python writer.py redis URL KEY_PREFIX WORKER COUNT

It prints "ready" once its store is open and waits for a line on standard input, so that
every writer starts together. Then, for i in 0..COUNT-1, it saves `w{WORKER}-{i}` and
`common-{i}` (which every writer saves) to the thread "shared", and `w{WORKER}-{i}` to the
thread "own-{WORKER}". It prints "done" at the end.
"""

from __future__ import annotations

import sys

from toolscout.state import RedisStore, SQLiteStore, ThreadStore


def main(arguments: list[str]) -> None:
    kind, *target, worker, count = arguments
    store: ThreadStore
    if kind == "sqlite":
        (path,) = target
        store = SQLiteStore(path)
    else:
        url, key_prefix = target
        store = RedisStore(url, key_prefix=key_prefix)
    with store:
        print("ready", flush=True)
        sys.stdin.readline()
        for i in range(int(count)):
            store.save("shared", [f"w{worker}-{i}", f"common-{i}"])
            store.save(f"own-{worker}", [f"w{worker}-{i}"])
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
