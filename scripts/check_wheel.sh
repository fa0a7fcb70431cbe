#!/usr/bin/env bash
# Build the sdist and wheel, install the wheel alone into a fresh virtual environment, and use
# it as a new user would: the version, a search of the demo catalog, and an import that loads
# no optional dependency. Run by `make check-wheel` (and CI).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
rm -rf dist
"$python" -m build --outdir dist . >/dev/null
ls dist
env=$(mktemp -d)
trap 'rm -rf "$env"' EXIT
"$python" -m venv "$env"
"$env/bin/python" -m pip install --quiet dist/toolscout-*.whl
"$env/bin/toolscout" --version
"$env/bin/toolscout" search demo "what's the weather like in Paris tomorrow" -k 3
"$env/bin/python" - <<'PY'
import sys

import toolscout

optional = {
    "tokenizers", "safetensors", "torch", "mcp", "fastmcp", "starlette", "uvicorn", "redis",
    "httpx", "pydantic_ai", "langchain", "agents",
}
loaded = sorted(optional & set(sys.modules))
assert not loaded, f"import toolscout loaded optional dependencies: {loaded}"
print(f"import toolscout {toolscout.__version__}: no optional dependency loaded")
PY
