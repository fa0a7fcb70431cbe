"""The documentation runs: `examples/quickstart.py`, and every example in README.md.

- Each ```python block of the README runs on its own. When a ```text block follows it directly,
  the code must print exactly that text.
- Each `$ toolscout ...` line of a ```console block is run as the README shows it, on a
  terminal 100 columns wide, and must print exactly the lines under it (up to the next `$`).
- The README's quote of the `SearchHit.normalized_score` docstring is that docstring, and the
  defaults it states (k1, b, field weights, threshold, regex limits...) are the code's.

So the README can only show output the code gives. After a change that alters the output (a
new ranking, a reworded notice), rewrite the README's outputs with
`.venv/bin/python tests/test_docs.py --update` and read the diff.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import itertools
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from typer.testing import CliRunner

from tests.limits import HANG
from toolscout.cli import app
from toolscout.search import (
    DEFAULT_FIELD_WEIGHTS,
    DEFAULT_THRESHOLD,
    DEFAULT_THRESHOLDS,
    FIELDS,
    MAX_K,
    SYNONYM_GROUPS,
    BM25Options,
    HybridOptions,
    OpenAIEmbedder,
    RegexOptions,
    base,
)
from toolscout.search.semantic import PROGRESS_MIN_TEXTS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
QUICKSTART = ROOT / "examples" / "quickstart.py"
TERMINAL_COLUMNS = "100"

_QUOTE_INTRODUCTION = "Its definition, from `SearchHit.normalized_score`:\n\n"
_BLOCK_QUOTE = re.compile(r"(?:^>.*\n)+", re.MULTILINE)

_FENCED_BLOCK = re.compile(
    r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL
)


@dataclass(frozen=True)
class ReadmeExample:
    """A ```python block, or one command of a ```console block, and the output shown for it."""

    kind: Literal["python", "console"]
    line: int
    """Line of README.md where the code or command is."""
    source: str
    """The Python code, or the command line without its `$ `."""
    shown_output: str | None
    """The output the README shows; None for a Python block with no ```text block after it."""
    output_span: tuple[int, int] | None
    """Where `shown_output` is in README.md's text, for `--update`."""

    @property
    def label(self) -> str:
        return f"{self.kind} at line {self.line}"


def readme_examples(text: str) -> list[ReadmeExample]:
    blocks = list(_FENCED_BLOCK.finditer(text))
    examples: list[ReadmeExample] = []
    for block, following in zip(blocks, [*blocks[1:], None], strict=True):
        info = block["info"].strip()
        if info == "python":
            output = None
            if (
                following is not None
                and following["info"].strip() == "text"
                and not text[block.end() : following.start()].strip()
            ):
                output = following
            examples.append(
                ReadmeExample(
                    "python",
                    _line_of(text, block.start("body")),
                    block["body"],
                    output["body"] if output else None,
                    output.span("body") if output else None,
                )
            )
        elif info == "console":
            examples += _console_commands(text, block.start("body"), block["body"])
    return examples


def _console_commands(text: str, start: int, body: str) -> Iterator[ReadmeExample]:
    """Each `$ ` line of a console block, with the lines under it up to the next `$ ` line,
    blank lines at the end left out."""
    lines = body.splitlines(keepends=True)
    offsets = [start + sum(len(line) for line in lines[:index]) for index in range(len(lines))]
    prompts = [index for index, line in enumerate(lines) if line.startswith("$ ")]
    for prompt, next_prompt in zip(prompts, [*prompts[1:], len(lines)], strict=True):
        last = next_prompt
        while last > prompt + 1 and not lines[last - 1].strip():
            last -= 1
        output_start = offsets[prompt] + len(lines[prompt])
        output_end = output_start + sum(len(line) for line in lines[prompt + 1 : last])
        yield ReadmeExample(
            "console",
            _line_of(text, offsets[prompt]),
            lines[prompt][2:].strip(),
            text[output_start:output_end],
            (output_start, output_end),
        )


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def run_example(example: ReadmeExample) -> str:
    """What the example prints; Python blocks run in a fresh namespace and an empty folder."""
    if example.kind == "console":
        return _run_command(example.source)
    output = io.StringIO()
    code = compile(example.source, f"README.md, {example.label}", "exec")
    with (
        tempfile.TemporaryDirectory() as folder,
        contextlib.chdir(folder),
        contextlib.redirect_stdout(output),
    ):
        exec(code, {"__name__": "__main__"})
    return output.getvalue()


def _run_command(command: str) -> str:
    program, *args = shlex.split(command)
    assert program == "toolscout", f"README console examples run toolscout, not {program!r}"
    result = CliRunner().invoke(app, args, env={"COLUMNS": TERMINAL_COLUMNS})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    # Rich pads table titles to the terminal width; the README has no trailing spaces.
    return "".join(line.rstrip() + "\n" for line in result.output.splitlines())


def _default(cls: type, name: str) -> object:
    """The default of an argument of `cls`'s constructor."""
    return inspect.signature(cls).parameters[name].default


def normalized_score_docstring() -> str:
    """The docstring of `SearchHit.normalized_score`, which only the source holds."""
    tree = ast.parse(Path(inspect.getfile(base)).read_text(encoding="utf-8"))
    (hit_class,) = (
        node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "SearchHit"
    )
    for statement, following in itertools.pairwise(hit_class.body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "normalized_score"
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
        ):
            return inspect.cleandoc(following.value.value)
    raise AssertionError("SearchHit.normalized_score has no docstring")


def readme_quote(text: str) -> re.Match[str]:
    """The README's block quote of the `normalized_score` docstring."""
    start = text.index(_QUOTE_INTRODUCTION) + len(_QUOTE_INTRODUCTION)
    quote = _BLOCK_QUOTE.match(text, start)
    assert quote is not None, "README.md: no block quote after the normalized_score introduction"
    return quote


def as_block_quote(docstring: str) -> str:
    paragraphs = [" ".join(paragraph.split()) for paragraph in docstring.split("\n\n")]
    wrapped = [textwrap.fill(paragraph, width=98) for paragraph in paragraphs]
    return "".join(f"> {line}".rstrip() + "\n" for line in "\n\n".join(wrapped).splitlines())


def update_readme() -> None:
    """Rewrite every output the README shows with what its example prints now, and its quote
    of the `normalized_score` docstring with the docstring."""
    text = README.read_text(encoding="utf-8")
    examples = [example for example in readme_examples(text) if example.output_span]
    for example in sorted(examples, key=lambda example: example.line, reverse=True):
        assert example.output_span is not None
        start, end = example.output_span
        text = text[:start] + run_example(example) + text[end:]
    quote = readme_quote(text)
    text = (
        text[: quote.start()] + as_block_quote(normalized_score_docstring()) + text[quote.end() :]
    )
    README.write_text(text, encoding="utf-8")


EXAMPLES = readme_examples(README.read_text(encoding="utf-8"))


class TestReadme:
    def test_has_examples_with_their_output(self) -> None:
        python = [example for example in EXAMPLES if example.kind == "python"]
        assert len(python) >= 5
        assert sum(example.shown_output is not None for example in python) >= 3
        assert any(example.kind == "console" for example in EXAMPLES)

    @pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.label)
    def test_example_prints_what_the_readme_shows(self, example: ReadmeExample) -> None:
        printed = run_example(example)
        if example.shown_output is not None:
            assert printed == example.shown_output, (
                f"README.md shows other output for the {example.label} than it prints; "
                f"run `python tests/test_docs.py --update` and check the diff. It prints:\n"
                f"{printed}"
            )

    def test_quotes_the_normalized_score_docstring(self) -> None:
        quote = readme_quote(README.read_text(encoding="utf-8"))[0]
        quoted = " ".join(line.removeprefix(">") for line in quote.splitlines())
        assert quoted.split() == normalized_score_docstring().split(), (
            "README.md's quote of SearchHit.normalized_score differs from the docstring; run "
            "`python tests/test_docs.py --update`"
        )

    def test_states_the_defaults_of_the_code(self) -> None:
        bm25, regex, hybrid = BM25Options(), RegexOptions(), HybridOptions()
        readme = " ".join(README.read_text(encoding="utf-8").split())
        for fact in (
            f"`BM25Options(k1={bm25.k1}, b={bm25.b})`",
            "| " + " | ".join(str(DEFAULT_FIELD_WEIGHTS[field]) for field in FIELDS) + " |",
            f"table of {len(SYNONYM_GROUPS)} groups",
            f"(`synonym_weight={bm25.synonym_weight}`)",
            f"(`prefix_weight={bm25.prefix_weight}`)",
            f"words of {bm25.min_prefix_length} or more characters",
            f"at most {bm25.max_prefix_expansions} completions",
            f"`ToolIndex(catalog, threshold={DEFAULT_THRESHOLD})`",
            f"from 1 to {MAX_K} (default 5)",
            f"at most {regex.max_pattern_length} characters (`max_pattern_length`)",
            f"{regex.time_budget:g} s per search (`time_budget`)",
            f"{regex.max_memory >> 20} MiB per compiled pattern (`max_memory`)",
            f"bm25 {DEFAULT_THRESHOLDS['bm25']}, semantic {DEFAULT_THRESHOLDS['semantic']}, "
            f"hybrid {DEFAULT_THRESHOLDS['hybrid']}",
            f"`semantic_weight={hybrid.semantic_weight}`",
            f"`depth={hybrid.depth}`",
            f"When at least {PROGRESS_MIN_TEXTS} tools need embedding",
            f"batches of `batch_size` ({_default(OpenAIEmbedder, 'batch_size')})",
            f"retried {_default(OpenAIEmbedder, 'max_retries')} times".replace("2 times", "twice"),
        ):
            assert fact in readme, f"README.md should say {fact!r}, as the code does"


class TestQuickstart:
    def test_runs_and_shows_each_feature(self) -> None:
        finished = subprocess.run(
            [sys.executable, str(QUICKSTART)],
            capture_output=True,
            text=True,
            timeout=HANG,
            check=False,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
        assert finished.returncode == 0, finished.stderr
        for expected in (
            "github__create_issue",  # an MCP tool in a namespace
            "1. get_forecast",  # a Python function, found by search
            "1. book_flight",  # an Anthropic tool
            "(synonym: ",  # an explanation
            "No tool is relevant enough",  # a threshold no tool reaches
            "engine: ",  # which engine `auto` chose, and why
            "1. github__create_issue",  # a filter
            "1. get_air_quality",  # a tool added while the index is in use
            "'sms' in description, tags",  # a replaced tool, searched by its new text
            "(pattern: create_) in name",  # a regex match
            "invalid or unsupported",  # a pattern RE2 refuses
        ):
            assert expected in finished.stdout


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_docs.py --update   (rewrites README.md's outputs)")
    update_readme()
