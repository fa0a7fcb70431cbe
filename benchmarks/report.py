"""Result tables, rendered for the terminal (rich) and for `results/latest.md` (markdown)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

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


def to_markdown(tables: Sequence[Table], *, heading: str, preamble: Sequence[str] = ()) -> str:
    lines = [f"# {heading}", "", *preamble]
    for table in tables:
        lines += ["", f"## {table.title}", ""]
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
