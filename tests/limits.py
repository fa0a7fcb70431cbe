"""How long a test waits before it calls a wait a hang.

Generous on purpose: the suite must pass on a busy two-core machine, where a process that
starts a gateway or loads the embedding model can take a minute to answer. A working run
never waits this long, so the bound costs nothing; it only stops a real hang.
"""

HANG = 300.0
