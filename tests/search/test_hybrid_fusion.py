"""How hybrid search fuses BM25 and the model: a tool the request names, or one whose text
the model cannot read, is never buried by the model; scores read the same way down the
ranking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from toolscout.catalog import Tool
from toolscout.search import CallableEmbedder, HybridOptions, SemanticOptions, ToolIndex
from toolscout.search.hybrid import latin_share

from .conftest import make_tool, names

# A model that is sure of the wrong tool: every text mentioning "report" points one way, all
# others the other way, and so does every query.
_MISLED = ("report",)


def misled_vectors(texts: list[str]) -> np.ndarray:
    """Vectors of a model that finds every query closest to the tools about reports."""
    vectors = np.zeros((len(texts), 2), dtype=np.float32)
    for row, text in enumerate(texts):
        is_query = text.startswith("query: ")
        vectors[row] = (1.0, 0.0) if is_query or any(w in text for w in _MISLED) else (0.0, 1.0)
    return vectors


def hybrid_index(tools: list[Tool], folder: Path, **options: object) -> ToolIndex:
    semantic = SemanticOptions(
        CallableEmbedder(misled_vectors, model_id="misled"),
        cache_path=folder / "vectors.sqlite3",
        query_prefix="query: ",
        progress=False,
    )
    return ToolIndex(
        tools, engine="hybrid", semantic=semantic, hybrid=HybridOptions(**options), threshold=0
    )  # type: ignore[arg-type]


TOOLS = [
    make_tool("create_issue", "Open a ticket in the tracker."),
    make_tool("file_report", "File a report about a problem."),
    make_tool("send_report", "Send a report by email."),
]


class TestTheModelNeverBuries:
    def test_a_tool_the_request_names(self, tmp_path: Path) -> None:
        index = hybrid_index(TOOLS, tmp_path)
        assert names(index.search("create an issue for the login bug"))[0] == "create_issue"

    def test_a_request_naming_one_word_of_a_name_is_the_model_s_to_rank(
        self, tmp_path: Path
    ) -> None:
        # One word is not a name: "issue" alone could mean anything.
        index = hybrid_index(TOOLS, tmp_path)
        assert names(index.search("an issue with the login"))[0] != "create_issue"

    @pytest.mark.parametrize(
        ("readability", "first"), [("default", "查询天气"), (None, "file_report")]
    )
    def test_a_tool_the_model_cannot_read(
        self, tmp_path: Path, readability: str | None, first: str
    ) -> None:
        tools = [*TOOLS, make_tool("查询天气", "查询指定城市的实时天气和未来天气预报。")]
        options = {} if readability == "default" else {"readability": readability}
        index = hybrid_index(tools, tmp_path, **options)
        # With the default, the Chinese tool keeps what BM25 makes of it; a model trusted
        # with every script (`None`) puts its own favourite first.
        assert names(index.search("北京天气预报"))[0] == first


def test_the_score_is_the_normalized_score_and_never_rises(tmp_path: Path) -> None:
    index = hybrid_index(TOOLS, tmp_path)
    hits = index.search("create an issue report", k=3)
    assert [hit.score for hit in hits] == [hit.normalized_score for hit in hits]
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("Get the weather forecast for a city", 1.0),
        ("Café au lait, déjà vu", 1.0),  # Latin-1 letters are Latin
        ("1234 — ++", 1.0),  # no letters: nothing the model cannot read
        ("查询天气 weather", 7 / 11),
        ("天气", 0.0),
    ],
)
def test_the_share_of_a_text_an_english_model_reads_counts_latin_letters(
    text: str, share: float
) -> None:
    assert latin_share(text) == pytest.approx(share)


@pytest.mark.parametrize("readability", ["default", None])
def test_each_tool_text_is_made_once_and_embedded_as_made(
    tmp_path: Path, readability: str | None
) -> None:
    made: list[str] = []
    embedded: list[str] = []

    def text(tool: Tool) -> str:
        made.append(tool.name)
        return f"{tool.name}: {tool.description}"

    def vectors(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        return misled_vectors(texts)

    semantic = SemanticOptions(
        CallableEmbedder(vectors, model_id="counted"), cache=False, text=text, progress=False
    )
    options = {} if readability == "default" else {"readability": readability}
    index = ToolIndex(TOOLS, engine="hybrid", semantic=semantic, hybrid=HybridOptions(**options))  # type: ignore[arg-type]
    index.search("file a report", k=3)
    assert sorted(made) == sorted(tool.name for tool in TOOLS)  # the hybrid side reads it too
    # The tools' texts, then the query.
    # The tools (in any order: shortest first), then the query.
    assert sorted(embedded[:-1]) == sorted(f"{tool.name}: {tool.description}" for tool in TOOLS)
    assert embedded[-1] == "file a report"
