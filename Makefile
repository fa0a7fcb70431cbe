# One virtual environment, installed once from pyproject.toml; every target uses it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# The BFCL data behind the demo catalog and the benchmarks. --no-deps: the package's own
# dependencies (torch with CUDA, a dozen model SDKs) are not needed to read its data files.
BFCL := bfcl-eval==2026.3.23
# torch's CPU build, installed before the semantic extra so that nothing pulls the CUDA one.
TORCH := torch==2.13.0

.PHONY: demo test lint bench clean

# A search in the terminal, then the dashboard on the bundled catalog (Ctrl-C stops it).
demo: $(INSTALLED)
	$(BIN)/toolscout search demo "what's the weather like in Paris tomorrow"
	$(BIN)/toolscout dashboard demo --open

test: $(INSTALLED) lint
	$(BIN)/pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(INSTALLED)
	$(BIN)/python -m benchmarks.run

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[dev,bench,semantic,redis,mcp,dashboard,pydantic-ai,langchain,openai-agents]"
	$(BIN)/python -m pip install --quiet --no-deps "$(BFCL)"
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
