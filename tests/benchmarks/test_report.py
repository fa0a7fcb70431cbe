"""Where a benchmark run writes its tables: into the docs page's results section, or a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.report import RESULTS_END, RESULTS_START, Table, write_results
from benchmarks.run import DOCS_PAGE

TABLES = [Table(title="Speed", columns=["engine", "p50 ms"], rows=[["toolscout bm25", "0.07"]])]
PAGE = f"""# Benchmarks

How they are run.

{RESULTS_START}

## Results

Old figures.

{RESULTS_END}

## After the results

Kept.
"""


class TestWriteResults:
    def test_a_page_gets_the_tables_between_its_markers_and_keeps_the_rest(
        self, tmp_path: Path
    ) -> None:
        page = tmp_path / "benchmarks.md"
        page.write_text(PAGE, encoding="utf-8")
        write_results(page, TABLES, heading="Results", preamble=["One run."])
        text = page.read_text(encoding="utf-8")
        assert "Old figures." not in text
        assert text.startswith("# Benchmarks\n\nHow they are run.\n\n" + RESULTS_START)
        assert text.endswith(RESULTS_END + "\n\n## After the results\n\nKept.\n")
        assert "## Results\n\nOne run.\n\n### Speed\n" in text
        assert "| toolscout bm25 | 0.07 |" in text

    def test_a_second_run_replaces_the_first(self, tmp_path: Path) -> None:
        page = tmp_path / "benchmarks.md"
        page.write_text(PAGE, encoding="utf-8")
        write_results(page, TABLES, heading="Results", preamble=["First run."])
        write_results(page, TABLES, heading="Results", preamble=["Second run."])
        text = page.read_text(encoding="utf-8")
        assert "First run." not in text
        assert text.count("### Speed") == 1 and text.count(RESULTS_START) == 1

    def test_a_file_without_markers_becomes_the_report(self, tmp_path: Path) -> None:
        report = tmp_path / "results" / "latest.md"
        write_results(report, TABLES, heading="Results", preamble=["One run."])
        assert report.read_text(encoding="utf-8").startswith("# Results\n\nOne run.\n\n## Speed\n")

    def test_a_start_marker_without_its_end_is_refused(self, tmp_path: Path) -> None:
        page = tmp_path / "benchmarks.md"
        page.write_text(f"# Benchmarks\n\n{RESULTS_START}\n\nOld figures.\n", encoding="utf-8")
        with pytest.raises(ValueError, match="has no"):
            write_results(page, TABLES, heading="Results", preamble=[])
        assert "Old figures." in page.read_text(encoding="utf-8")

    def test_the_docs_page_marks_the_section_a_run_rewrites(self) -> None:
        text = DOCS_PAGE.read_text(encoding="utf-8")
        assert text.count(RESULTS_START) == text.count(RESULTS_END) == 1
        assert text.index(RESULTS_START) < text.index(RESULTS_END)
