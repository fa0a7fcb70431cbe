"""The documentation runs: `examples/quickstart.py`, and every example in README.md and in the
pages of docs/ (docs/**/*.md, the docs site).

- Each ```python block runs on its own. When a ```text block follows it directly, the code
  must print exactly that text. A block marked ```python {.no-run} (it needs an API key or a
  framework's model) is not run; any other mark after `python` is refused, so that a typo
  cannot leave a block unrun.
- Each `$ toolscout ...` line of a ```console block is run as the page shows it, on a
  terminal 100 columns wide, and must print exactly the lines under it (up to the next `$`).
- Each ```yaml block is a configuration `load_config` reads (a gateway's when it lists
  servers), and each ```json block is JSON.
- docs/search.md's quote of the `SearchHit.normalized_score` docstring is that docstring, and
  the defaults it states (k1, b, field weights, threshold, regex limits...) are the code's.
- The site builds with `mkdocs build --strict`: no broken link, page or docstring.

So the docs can only show output the code gives. After a change that alters the output (a
new ranking, a reworded notice), rewrite the outputs with
`.venv/bin/python -m tests.test_docs --update` (from the checkout) and read the diff.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import itertools
import json
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
import yaml
from typer.testing import CliRunner

from tests.limits import HANG
from toolscout.cli import app
from toolscout.config import ToolScoutConfig, load_config
from toolscout.gateway import GatewayConfig
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
DOCS = ROOT / "docs"
SEARCH_PAGE = DOCS / "search.md"
QUICKSTART = ROOT / "examples" / "quickstart.py"
TERMINAL_COLUMNS = "100"
NOT_RUN = "python {.no-run}"
"""The mark of a Python block that is shown but not run."""
DOCUMENTS = [README, *sorted(DOCS.rglob("*.md"))]

_QUOTE_INTRODUCTION = "Its definition, from `SearchHit.normalized_score`:\n\n"
_BLOCK_QUOTE = re.compile(r"(?:^>.*\n)+", re.MULTILINE)

_FENCED_BLOCK = re.compile(
    r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL
)


@dataclass(frozen=True)
class DocExample:
    """A ```python block, one command of a ```console block, or a ```yaml or ```json block,
    and the output shown for it."""

    path: Path
    """The page: README.md or a page of docs/."""
    kind: Literal["python", "console", "yaml", "json"]
    line: int
    """Line of the page where the code or command is."""
    source: str
    """The Python code, the command line without its `$ `, or the YAML or JSON."""
    shown_output: str | None
    """The output the page shows; None for a block with no output after it."""
    output_span: tuple[int, int] | None
    """Where `shown_output` is in the page's text, for `--update`."""

    @property
    def label(self) -> str:
        return f"{_shown(self.path)}:{self.line} ({self.kind})"


def doc_examples(path: Path) -> list[DocExample]:
    """The examples of one page, in page order."""
    text = path.read_text(encoding="utf-8")
    blocks = list(_FENCED_BLOCK.finditer(text))
    examples: list[DocExample] = []
    for block, following in zip(blocks, [*blocks[1:], None][: len(blocks)], strict=True):
        info = block["info"].strip()
        if info in ("yaml", "json"):
            examples.append(
                DocExample(
                    path, info, _line_of(text, block.start("body")), block["body"], None, None
                )
            )
        elif info == "python":
            output = None
            if (
                following is not None
                and following["info"].strip() == "text"
                and not text[block.end() : following.start()].strip()
            ):
                output = following
            examples.append(
                DocExample(
                    path,
                    "python",
                    _line_of(text, block.start("body")),
                    block["body"],
                    output["body"] if output else None,
                    output.span("body") if output else None,
                )
            )
        elif info == "console":
            examples += _console_commands(path, text, block.start("body"), block["body"])
        elif info.startswith("python") and info != NOT_RUN:
            raise AssertionError(
                f"{_shown(path)}:{_line_of(text, block.start())}: unknown mark "
                f"{info!r}; a Python block is ```python (run) or ```{NOT_RUN}"
            )
    return examples


def _console_commands(path: Path, text: str, start: int, body: str) -> Iterator[DocExample]:
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
        yield DocExample(
            path,
            "console",
            _line_of(text, offsets[prompt]),
            lines[prompt][2:].strip(),
            text[output_start:output_end],
            (output_start, output_end),
        )


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def run_example(example: DocExample) -> str:
    """What the example prints; Python blocks run in a fresh namespace and an empty folder.
    A YAML block is read as a configuration and a JSON block parsed; they print nothing."""
    if example.kind == "console":
        return _run_command(example.source)
    if example.kind == "yaml":
        _load_configuration(example.source)
        return ""
    if example.kind == "json":
        json.loads(example.source)
        return ""
    output = io.StringIO()
    code = compile(example.source, example.label, "exec")
    with (
        tempfile.TemporaryDirectory() as folder,
        contextlib.chdir(folder),
        contextlib.redirect_stdout(output),
    ):
        exec(code, {"__name__": "__main__"})
    return output.getvalue()


def _load_configuration(text: str) -> None:
    """Read a YAML block as `load_config` reads a file: a gateway's when it lists servers.
    The `${VAR}`s it names are set, as a user's environment would set them."""
    variables = {name: "set-by-the-test" for name in re.findall(r"\$\{(\w+)", text)}
    parsed = yaml.safe_load(text)
    model = GatewayConfig if {"servers", "mcpServers"} & set(parsed) else ToolScoutConfig
    with tempfile.TemporaryDirectory() as folder, _environment(variables):
        path = Path(folder) / "config.yaml"
        path.write_text(text, encoding="utf-8")
        load_config(path, model)


@contextlib.contextmanager
def _environment(variables: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run_command(command: str) -> str:
    program, *args = shlex.split(command)
    assert program == "toolscout", f"console examples run toolscout, not {program!r}"
    result = CliRunner().invoke(app, args, env={"COLUMNS": TERMINAL_COLUMNS})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    # Rich pads table titles to the terminal width; the pages have no trailing spaces.
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


def normalized_score_quote(text: str) -> re.Match[str]:
    """docs/search.md's block quote of the `normalized_score` docstring."""
    start = text.index(_QUOTE_INTRODUCTION) + len(_QUOTE_INTRODUCTION)
    quote = _BLOCK_QUOTE.match(text, start)
    assert quote is not None, "docs/search.md: no block quote after its introduction"
    return quote


def as_block_quote(docstring: str) -> str:
    paragraphs = [" ".join(paragraph.split()) for paragraph in docstring.split("\n\n")]
    wrapped = [textwrap.fill(paragraph, width=98) for paragraph in paragraphs]
    return "".join(f"> {line}".rstrip() + "\n" for line in "\n\n".join(wrapped).splitlines())


def update_docs() -> None:
    """Rewrite every output the pages show with what its example prints now, and the search
    page's quote of the `normalized_score` docstring with the docstring."""
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        examples = [example for example in doc_examples(path) if example.output_span]
        for example in sorted(examples, key=lambda example: example.line, reverse=True):
            assert example.output_span is not None
            start, end = example.output_span
            text = text[:start] + run_example(example) + text[end:]
        if path == SEARCH_PAGE:
            quote = normalized_score_quote(text)
            docstring = as_block_quote(normalized_score_docstring())
            text = text[: quote.start()] + docstring + text[quote.end() :]
        path.write_text(text, encoding="utf-8")


EXAMPLES = [example for path in DOCUMENTS for example in doc_examples(path)]


class TestExamples:
    def test_pages_have_examples_with_their_output(self) -> None:
        python = [example for example in EXAMPLES if example.kind == "python"]
        assert len(python) >= 5
        assert sum(example.shown_output is not None for example in python) >= 3
        assert any(example.kind == "console" for example in EXAMPLES)
        readme = [example for example in EXAMPLES if example.path == README]
        assert {"python", "console"} <= {example.kind for example in readme}

    def test_every_page_of_docs_is_read(self) -> None:
        pages = {example.path for example in EXAMPLES}
        for page in ("catalogs.md", "search.md", "protocol.md", "gateway.md", "cli.md"):
            assert DOCS / page in pages

    @pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.label)
    def test_example_prints_what_the_page_shows(self, example: DocExample) -> None:
        printed = run_example(example)
        if example.shown_output is not None:
            assert printed == example.shown_output, (
                f"{example.label}: the page shows other output than the example prints; "
                f"run `python -m tests.test_docs --update` and check the diff. It prints:\n"
                f"{printed}"
            )

    def test_an_unknown_mark_on_a_python_block_is_refused(self, tmp_path: Path) -> None:
        page = tmp_path / "page.md"
        page.write_text("```python no-run\nprint(1)\n```\n", encoding="utf-8")
        with pytest.raises(AssertionError, match="unknown mark"):
            doc_examples(page)


class TestSearchPage:
    def test_quotes_the_normalized_score_docstring(self) -> None:
        quote = normalized_score_quote(SEARCH_PAGE.read_text(encoding="utf-8"))[0]
        quoted = " ".join(line.removeprefix(">") for line in quote.splitlines())
        assert quoted.split() == normalized_score_docstring().split(), (
            "docs/search.md's quote of SearchHit.normalized_score differs from the docstring; "
            "run `python -m tests.test_docs --update`"
        )

    def test_states_the_defaults_of_the_code(self) -> None:
        bm25, regex, hybrid = BM25Options(), RegexOptions(), HybridOptions()
        page = " ".join(SEARCH_PAGE.read_text(encoding="utf-8").split())
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
            assert fact in page, f"docs/search.md should say {fact!r}, as the code does"


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


class TestSite:
    def test_builds_strictly(self, tmp_path: Path) -> None:
        """`mkdocs build --strict`, as `make docs` runs it: a broken link or anchor, a page
        left out of the navigation, a docstring mkdocstrings cannot read, a snippet that is
        not there, each fails the build. Every proxy points at a closed port, so a plugin
        that fetched anything (fonts, icons, analytics) would fail it too."""
        nowhere = "http://127.0.0.1:9"
        offline = {name: nowhere for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")}
        offline |= {name.lower(): nowhere for name in offline}
        built = subprocess.run(
            [Path(sys.executable).parent / "mkdocs", "build", "--strict", "--site-dir", tmp_path],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=HANG,
            check=False,
            env={
                **os.environ,
                **offline,
                "NO_PROXY": "",
                "no_proxy": "",
                "NO_MKDOCS_2_WARNING": "1",
            },
        )
        assert built.returncode == 0, built.stderr
        assert (tmp_path / "reference" / "search" / "index.html").is_file()


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.test_docs --update   (rewrites the docs' outputs)")
    update_docs()
