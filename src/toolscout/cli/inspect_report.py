"""What `toolscout inspect` prints: namespaces, token cost, name collisions and lint."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence, Sized
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolscout.catalog.lint import LINT_CODES, lint_tools, name_collisions
from toolscout.catalog.tokens import catalog_tokens, tool_tokens

if TYPE_CHECKING:
    from toolscout.catalog import Tool
    from toolscout.catalog.lint import LintCode, LintIssue

_LARGEST_SHOWN = 5
_EXAMPLES_PER_CODE = 3


def print_report(tools: list[Tool], *, show_all: bool) -> None:
    """The report on `tools`, on stdout; `show_all` lists every lint issue."""
    openai_tokens = {tool.id: tool_tokens(tool, "openai_chat") for tool in tools}
    namespaces = Counter(tool.namespace or "(none)" for tool in tools)
    collisions = name_collisions(tools)
    console = Console()
    console.print(
        Text(f"{_count(tools, 'tool')} in {_count(namespaces, 'namespace')}", style="bold")
    )
    console.print(_namespaces_table(namespaces))
    console.print(Text("Tokens to send every tool (o200k_base)", style="bold"))
    console.print(
        _token_cost_table(
            tool_count=len(tools),
            openai_chat=sum(openai_tokens.values()),
            anthropic=catalog_tokens(tools, "anthropic"),
        )
    )
    if tools:
        console.print(Text("Largest tools (OpenAI chat format)", style="bold"))
        console.print(_largest_tools_table(openai_tokens))
    console.print(Text(f"Names used in several namespaces: {len(collisions)}", style="bold"))
    if collisions:
        console.print(_collisions_table(collisions))
    for line in _lint_report(lint_tools(tools), show_all=show_all):
        console.print(line)


def _namespaces_table(namespaces: Counter[str]) -> Table:
    table = Table()
    table.add_column("namespace")
    table.add_column("tools", justify="right")
    for namespace, count in sorted(namespaces.items(), key=lambda item: (-item[1], item[0])):
        table.add_row(Text(namespace), str(count))
    return table


def _token_cost_table(*, tool_count: int, openai_chat: int, anthropic: int) -> Table:
    table = Table()
    table.add_column("format")
    table.add_column("tokens", justify="right")
    table.add_column("per tool", justify="right")
    for label, total in (("OpenAI chat", openai_chat), ("Anthropic", anthropic)):
        table.add_row(label, f"{total:,}", f"{total / max(tool_count, 1):,.0f}")
    return table


def _largest_tools_table(tokens_by_tool: dict[str, int]) -> Table:
    total = sum(tokens_by_tool.values())
    largest = sorted(tokens_by_tool.items(), key=lambda item: -item[1])[:_LARGEST_SHOWN]
    table = Table()
    table.add_column("tool")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    for tool_id, tokens in largest:
        table.add_row(Text(tool_id), f"{tokens:,}", f"{tokens / max(total, 1):.1%}")
    return table


def _collisions_table(collisions: dict[str, list[Tool]]) -> Table:
    table = Table()
    table.add_column("name")
    table.add_column("tools")
    for name, group in collisions.items():
        table.add_row(Text(name), Text(", ".join(tool.id for tool in group)))
    return table


def _lint_report(issues: Sequence[LintIssue], *, show_all: bool) -> list[Text]:
    if not issues:
        return [Text("Lint: no issues.", style="green")]
    by_code: defaultdict[LintCode, list[LintIssue]] = defaultdict(list)
    for issue in issues:
        by_code[issue.code].append(issue)
    lines = [Text(f"Lint: {_count(issues, 'issue')}", style="bold")]
    for code in LINT_CODES:
        found = by_code.get(code, [])
        if not found:
            continue
        lines.append(Text(f"{code}: {len(found)}", style="bold yellow"))
        shown = found if show_all else found[:_EXAMPLES_PER_CODE]
        lines += [
            Text.assemble("  ", (issue.tool_id, "cyan"), f": {issue.message}") for issue in shown
        ]
        if len(found) > len(shown):
            lines.append(
                Text(f"  ... and {len(found) - len(shown)} more (--all lists them)", style="dim")
            )
    return lines


def _count(items: Sized, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"
