"""Questions ask to read: the tools that change things give way to those that read, for a
question that names no change."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from toolscout.catalog import Tool
from toolscout.errors import SearchConfigError
from toolscout.search import BM25Options, CallableEmbedder, SemanticOptions, ToolIndex
from toolscout.search.questions import asks_to_read

SPREADSHEET_AND_CHAT = [
    Tool(name="write_range", description="Write values to a range of cells in a sheet."),
    Tool(name="read_range", description="Read values from a range of cells."),
    Tool(name="slack_post_message", description="Post a new message to a Slack channel."),
    Tool(name="slack_get_channel_history", description="Get recent messages from a channel."),
    Tool(name="get_post_comments", description="Get the comments of a post."),
]


def _first(query: str, **options: object) -> str:
    index = ToolIndex(SPREADSHEET_AND_CHAT, "bm25", bm25=BM25Options(**options))  # type: ignore[arg-type]
    return index.search(query, k=1, threshold=0)[0].tool.name


@pytest.mark.parametrize(
    "request_text",
    ["What numbers are in the Summary sheet?", "what's in the sheet", "¿Is it 3pm?", "how many"],
)
def test_a_question_word_opens_a_question(request_text: str) -> None:
    assert asks_to_read(request_text)


@pytest.mark.parametrize(
    "request_text",
    ["could you add a row", "do a web search", "show the sheet", "whatever", ""],
)
def test_requests_and_orders_are_not_questions(request_text: str) -> None:
    assert not asks_to_read(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "what values are in the sheet",
        "who changed what over the last ten commits",  # a change in the past, a noun
        "which Jira tickets are assigned to me",
        "what is running on port 8080",
        "did I send the invoice to ACME",  # what happened
        "were the old files deleted",
    ],
)
def test_a_question_about_what_is_or_was_asks_to_read(request_text: str) -> None:
    assert asks_to_read(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "how do I delete a branch",
        "what's the fastest way to send money",
        "could you tell me what changed",  # a request, not a question
        "delete the branch",
    ],
)
def test_a_question_that_asks_for_a_change_or_a_request_does_not(request_text: str) -> None:
    assert not asks_to_read(request_text)


def test_a_question_about_a_past_change_finds_the_tool_that_reads() -> None:
    question = "who changed the values in the range of the sheet"
    assert _first(question) == "read_range"
    assert _first(question, question_change_weight=1) == "write_range"


def test_a_question_finds_the_tool_that_reads() -> None:
    # Without the question, both tools match "values", "range" and "sheet" alike.
    assert _first("what values are in the range of the sheet") == "read_range"
    assert _first("what values are in the range of the sheet", question_change_weight=1) == (
        "write_range"
    )


def _writing_minded_vectors(texts: list[str]) -> np.ndarray:
    """Vectors of a model that finds every query a little closer to writing than to reading
    (cosine 0.7 against 0.6)."""

    def vector(text: str) -> tuple[float, float]:
        if text.startswith("query: "):
            return (1.0, 0.0)
        return (0.7, 0.51**0.5) if "Write" in text else (0.6, 0.8)

    return np.array([vector(text) for text in texts], dtype=np.float32)


def test_hybrid_weighs_the_tools_that_change_things_as_bm25_does(tmp_path: Path) -> None:
    semantic = SemanticOptions(
        CallableEmbedder(_writing_minded_vectors, model_id="writing-minded"),
        cache_path=tmp_path / "vectors.sqlite3",
        query_prefix="query: ",
        progress=False,
    )

    def first(query: str, weight: float) -> str:
        bm25 = BM25Options(question_change_weight=weight)
        index = ToolIndex(SPREADSHEET_AND_CHAT, "hybrid", semantic=semantic, bm25=bm25)
        return index.search(query, k=1, threshold=0)[0].tool.name

    question = "what values are in the range of the sheet"
    assert first(question, 0.5) == "read_range"
    assert first(question, 1) == "write_range"  # the model's choice, left alone
    assert first("values in the range of the sheet", 0.5) == "write_range"  # an order


def test_a_question_that_asks_for_a_change_keeps_the_tools_that_change() -> None:
    assert _first("how do I write values to a range of the sheet") == "write_range"


def test_an_order_is_ranked_as_it_always_was() -> None:
    query = "values in the range of the sheet"
    assert _first(query) == _first(query, question_change_weight=1) == "write_range"


def test_a_name_is_judged_by_its_first_verb() -> None:
    # `get_post_comments` reads comments of a post; `slack_post_message` posts.
    index = ToolIndex(SPREADSHEET_AND_CHAT, "bm25")
    hits = index.search("what are the comments and messages of the post", k=5, threshold=0)
    ranked = [hit.tool.name for hit in hits]
    assert ranked.index("get_post_comments") < ranked.index("slack_post_message")


def test_scores_still_never_rise_down_the_ranking() -> None:
    index = ToolIndex(SPREADSHEET_AND_CHAT, "bm25")
    hits = index.search("which messages and values are in the channel range", k=5, threshold=0)
    scores = [hit.normalized_score for hit in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(score > 0 for score in scores)


def test_other_languages_are_left_alone() -> None:
    options = BM25Options(language="german", question_change_weight=0.5)
    index = ToolIndex(SPREADSHEET_AND_CHAT, "bm25", bm25=options)
    plain = ToolIndex(
        SPREADSHEET_AND_CHAT, "bm25", bm25=BM25Options(language="german", question_change_weight=1)
    )
    query = "what values are in the range of the sheet"
    assert [h.score for h in index.search(query, threshold=0)] == [
        h.score for h in plain.search(query, threshold=0)
    ]


@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_the_weight_is_a_fraction(weight: float) -> None:
    with pytest.raises(SearchConfigError, match="question_change_weight"):
        BM25Options(question_change_weight=weight)
