"""toolscout's benchmark suite: retrieval quality on BFCL and speed at scale, beside its peers.

Run `python -m benchmarks.run` from the repository root (see `benchmarks/run.py`).
"""
