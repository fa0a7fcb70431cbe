"""Small MCP servers the gateway tests and benchmarks run as real subprocesses."""
