"""Result tables, rendered for the terminal (rich) and as markdown: the results section of
the docs' benchmarks page, or a file of their own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.table import Table as RichTable


@dataclass
class Table:
    """One table of results: cells are already formatted text."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Sentences printed under the table: what a column means, what was capped."""


def to_rich(table: Table) -> RichTable:
    rendered = RichTable(title=table.title, title_justify="left", caption_justify="left")
    for position, column in enumerate(table.columns):
        # The first column names the row; the numbers line up on the right.
        rendered.add_column(column, justify="left" if position == 0 else "right")
    for row in table.rows:
        rendered.add_row(*row)
    if table.notes:
        rendered.caption = "\n".join(table.notes)
    return rendered


RESULTS_START = "<!-- BENCHMARK TABLES -->"
RESULTS_END = "<!-- /BENCHMARK TABLES -->"
"""The markers around the part of a page that a benchmark run rewrites."""


def to_markdown(
    tables: Sequence[Table], *, heading: str, preamble: Sequence[str] = (), level: int = 1
) -> str:
    """The tables under `heading`, a heading of this `level`, each table a level below."""
    lines = [f"{'#' * level} {heading}", "", *preamble]
    for table in tables:
        lines += ["", f"{'#' * (level + 1)} {table.title}", ""]
        lines.append("| " + " | ".join(table.columns) + " |")
        lines.append(
            "|" + "|".join(":--" if i == 0 else "--:" for i in range(len(table.columns))) + "|"
        )
        lines += [
            "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in table.rows
        ]
        if table.notes:
            lines += ["", *(f"- {note}" for note in table.notes)]
    return "\n".join(lines) + "\n"


def write_results(
    path: Path, tables: Sequence[Table], *, heading: str, preamble: Sequence[str]
) -> None:
    """Write the tables to `path`. A page that marks a results section (`RESULTS_START` ...
    `RESULTS_END`, such as docs/benchmarks.md) gets them there, under a second-level heading,
    and keeps the rest as it is; any other file becomes the report alone."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if RESULTS_START not in text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(to_markdown(tables, heading=heading, preamble=preamble), encoding="utf-8")
        return
    before, _, rest = text.partition(RESULTS_START)
    if RESULTS_END not in rest:
        raise ValueError(f"{path}: {RESULTS_START} has no {RESULTS_END} after it")
    after = rest.partition(RESULTS_END)[2]
    section = to_markdown(tables, heading=heading, preamble=preamble, level=2)
    path.write_text(f"{before}{RESULTS_START}\n\n{section}\n{RESULTS_END}{after}", encoding="utf-8")
