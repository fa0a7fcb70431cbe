"""File names in a request: "file" is added after each, so that a request that names a file
finds the tools that work on files, though it never says the word."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscout.search import ToolIndex
from toolscout.search.file_names import with_file_words

TOOLS = [
    {"name": "write_file", "description": "Create a new file or overwrite an existing one."},
    {"name": "read_file", "description": "Read the contents of a file."},
    {"name": "compare_values", "description": "Generate a chart that compares values."},
    {"name": "send_message", "description": "Send a message to a channel."},
]


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("write a comparison to compare.md", "write a comparison to compare.md file"),
        ("read data/sales.csv and chart it", "read data/sales.csv file and chart it"),
        ("see README.md, then config.yaml.", "see README.md file, then config.yaml file."),
        ("open ~/reports/q3.final.PDF", "open ~/reports/q3.final.PDF file"),
        ("get https://example.com/report.pdf now", "get https://example.com/report.pdf file now"),
        ("summarise 报告.docx", "summarise 报告.docx file"),
    ],
)
def test_a_file_name_is_followed_by_the_word(request_text: str, expected: str) -> None:
    assert with_file_words(request_text) == expected


@pytest.mark.parametrize(
    "request_text",
    [
        "install Node.js and Vue.js",  # frameworks, not files
        "mail ann@notes.md",  # an e-mail address
        "ann@" + "x.md/" * 1_000,  # names strung onto one (each read back once)
        "visit example.com",  # a site
        "release v1.2 today. md is a country code",
        "x.mdx and notes.md-draft",  # not the extension
        ".md alone",
        "",
    ],
)
def test_what_is_not_a_file_name_is_left_alone(request_text: str) -> None:
    assert with_file_words(request_text) == request_text


@given(st.text(alphabet=st.sampled_from("ab.md/_@- \n"), max_size=40))
def test_only_ever_adds_the_word(request_text: str) -> None:
    assert with_file_words(request_text).replace(" file", "") == request_text.replace(" file", "")


@pytest.mark.parametrize("engine", ["bm25", "hybrid"])
def test_a_request_naming_a_file_finds_the_file_tools(engine: str) -> None:
    index = ToolIndex(TOOLS, engine)  # type: ignore[arg-type]
    hits = index.search("show me what is inside config.yaml", 2, threshold=0)
    assert hits[0].tool.name == "read_file"
    hits = index.search("write a comparison to compare.md", 1, threshold=0)
    assert [hit.tool.name for hit in hits] == ["write_file"]


def test_the_results_keep_the_request_as_it_was_asked() -> None:
    request = "read config.yaml, then send a message to the team channel"
    results = ToolIndex(TOOLS, "bm25").search(request, 3, threshold=0)
    assert results.query == request
    assert {hit.need for hit in results} <= {
        None,
        "read config.yaml",
        "send a message to the team channel",
    }


def test_a_regex_pattern_is_searched_as_it_is() -> None:
    results = ToolIndex(TOOLS, "regex").search(r"read_file", 3)
    assert [hit.tool.name for hit in results] == ["read_file"]
