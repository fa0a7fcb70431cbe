"""Text analysis: how tool text and queries become index terms, and how matches are highlighted."""

from __future__ import annotations

import pytest

from toolscout.search import Analyzer, highlight_spans
from toolscout.search.analysis import ENGLISH_STOPWORDS, MAX_FIELD_CHARS, normalize, word_pairs

from .conftest import make_index, make_tool


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


def words(analyzer: Analyzer, text: str) -> list[str]:
    return [query_term.word for query_term in analyzer.query_terms(text)]


class TestIdentifierSplitting:
    @pytest.mark.parametrize(
        ("identifier", "parts"),
        [
            ("sendSlackMessage", ["send", "slack", "message"]),
            ("get_current_weather", ["get", "current", "weather"]),
            ("HTTPServer", ["http", "server"]),
            ("v2-api", ["v2", "api"]),
            ("math.factorial", ["math", "factorial"]),
            ("getHTTPResponseCode", ["get", "http", "response", "code"]),
            ("github/create-issue", ["github", "create", "issue"]),
            ("weather__get_forecast", ["weather", "get", "forecast"]),
        ],
    )
    def test_identifier_yields_its_parts_then_itself(
        self, analyzer: Analyzer, identifier: str, parts: list[str]
    ) -> None:
        assert words(analyzer, identifier) == [*parts, identifier.casefold()]

    def test_whole_identifier_is_kept_unstemmed(self, analyzer: Analyzer) -> None:
        terms = analyzer.terms("sendSlackMessage")
        assert "messag" in terms  # the part is stemmed like prose
        assert terms[-1] == "sendslackmessage"

    def test_versions_stay_whole(self, analyzer: Analyzer) -> None:
        assert words(analyzer, "ipv4") == ["ipv4"]
        assert words(analyzer, "getV2Data") == ["get", "v2", "data", "getv2data"]

    def test_plain_word_is_not_doubled(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("weather") == ["weather"]

    def test_identifiers_inside_prose_are_split(self, analyzer: Analyzer) -> None:
        assert words(analyzer, "Call sendSlackMessage now") == [
            "call",
            "send",
            "slack",
            "message",
            "sendslackmessage",
            "now",
        ]

    def test_query_naming_a_tool_produces_the_same_whole_term_as_its_name(
        self, analyzer: Analyzer
    ) -> None:
        assert analyzer.terms("get_current_weather")[-1] in analyzer.terms(
            "Use get_current_weather for today's weather."
        )


class TestQueriesAndToolTextAgree:
    @pytest.mark.parametrize(
        "text",
        [
            "Lakers beat the Clippers 112-104 on Jan 28, 2021",
            "getWeather in São Paulo from the HTTPServer's v2-api",
            "DON'T cancel the user’s ﬁle upload",
        ],
    )
    @pytest.mark.parametrize("query_first", [True, False], ids=["query first", "tool first"])
    def test_a_query_analyses_to_the_terms_of_the_same_tool_text(
        self, text: str, query_first: bool
    ) -> None:
        analyzer = Analyzer()  # fresh: whichever runs first fills caches the other reads
        if query_first:
            query_terms = [query_term.term for query_term in analyzer.query_terms(text)]
            assert analyzer.terms(text) == query_terms
        else:
            tool_terms = analyzer.terms(text)
            assert [query_term.term for query_term in analyzer.query_terms(text)] == tool_terms


class TestUnicode:
    def test_fullwidth_letters_fold_to_ascii(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("ＷＥＡＴＨＥＲ") == analyzer.terms("weather")

    def test_casefolding_expands_sharp_s(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("Straße") == analyzer.terms("STRASSE") == analyzer.terms("strasse")

    def test_latin_accents_are_dropped(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("café") == analyzer.terms("cafe") == analyzer.terms("CAFÉ")
        assert normalize("naïve résumé") == "naive resume"

    def test_decomposed_and_composed_accents_agree(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("cafe\u0301") == analyzer.terms("caf\u00e9")

    def test_compatibility_characters_normalise(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("ﬁle") == analyzer.terms("file")  # the fi ligature
        assert analyzer.terms("①") == ["1"]

    @pytest.mark.parametrize("text", ["Москва погода", "ترجمة النص", "לוח שנה"])
    def test_other_scripts_keep_their_letters(self, analyzer: Analyzer, text: str) -> None:
        terms = analyzer.terms(text)
        assert terms
        assert "".join(terms).replace(" ", "") == "".join(text.casefold().split())

    def test_emoji_alone_yields_no_terms(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("🎉🎂") == []
        assert analyzer.terms("party 🎉") == ["parti"]


class TestCJK:
    def test_a_run_of_chinese_yields_its_characters_and_their_pairs(
        self, analyzer: Analyzer
    ) -> None:
        assert analyzer.terms("查询天气") == ["查", "询", "天", "气", "查询", "询天", "天气"]

    def test_particles_are_no_terms_alone_but_stay_in_pairs(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("北京的天气") == [
            "北",
            "京",
            "天",
            "气",
            "北京",
            "京的",
            "的天",
            "天气",
        ]
        assert "の" not in analyzer.terms("東京の天気")
        assert "京の" in analyzer.terms("東京の天気")

    @pytest.mark.parametrize(
        ("text", "pair"), [("東京の天気", "天気"), ("날씨 예보", "예보"), ("データベース", "ベー")]
    )
    def test_japanese_and_korean_are_paired_too(
        self, analyzer: Analyzer, text: str, pair: str
    ) -> None:
        assert pair in analyzer.terms(text)

    def test_latin_words_beside_cjk_are_analysed_as_usual(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("天气API") == ["天", "气", "天气", "api"]
        assert analyzer.terms("get_天气 sendMessages") == [
            "get",
            "天",
            "气",
            "天气",
            "send",
            "messag",
            "sendmessages",
        ]

    def test_cjk_terms_make_no_word_pairs(self, analyzer: Analyzer) -> None:
        assert word_pairs(analyzer.terms("天气 current weather 预报")) == ["current weather"]

    def test_a_query_analyses_like_tool_text(self, analyzer: Analyzer) -> None:
        text = "获取指定城市的天气预报"
        assert [term.term for term in analyzer.query_terms(text)] == analyzer.terms(text)


class TestPhrasalVerbs:
    @pytest.mark.parametrize(
        ("text", "terms"),
        [
            ("Log in to GitHub", ["login", "git", "hub", "github"]),
            ("I signed up yesterday", ["signup", "yesterday"]),
            ("backing up the database", ["backup", "databas"]),
            ("Logged out of Slack", ["logout", "slack"]),
            ("look up the weather", ["lookup", "weather"]),
            ("log into my account", ["login", "account"]),
            ("logging onto the VPN", ["logon", "vpn"]),
        ],
    )
    def test_a_phrasal_verb_is_the_one_word_tools_write(
        self, analyzer: Analyzer, text: str, terms: list[str]
    ) -> None:
        assert analyzer.terms(text) == terms
        assert [term.term for term in analyzer.query_terms(text)] == terms

    @pytest.mark.parametrize(
        ("identifier", "terms"),
        [
            ("sign_up", ["signup", "sign_up"]),
            ("user_log_in", ["user", "login", "user_log_in"]),
            ("signUpUser", ["signup", "user", "signupuser"]),
            ("logIn", ["login"]),
        ],
    )
    def test_identifiers_join_their_phrasal_verbs_too(
        self, analyzer: Analyzer, identifier: str, terms: list[str]
    ) -> None:
        assert analyzer.terms(identifier) == terms

    @pytest.mark.parametrize(
        ("text", "terms"),
        [
            # Joins of another sense stay apart: to check out a page is to look at it.
            ("check out this page", ["check", "page"]),
            ("work out the total", ["work", "total"]),
            ("write a log", ["write", "log"]),
            ("log, in short", ["log", "short"]),
            ("lo gin", ["lo", "gin"]),
        ],
    )
    def test_other_words_stay_apart(self, analyzer: Analyzer, text: str, terms: list[str]) -> None:
        assert analyzer.terms(text) == terms

    def test_only_english_joins_them(self) -> None:
        assert "login" not in Analyzer("german").terms("log in")


class TestStopwords:
    def test_function_words_are_dropped(self, analyzer: Analyzer) -> None:
        assert words(analyzer, "what is the weather in Paris") == ["weather", "paris"]

    def test_verbs_tools_are_named_after_are_kept(self, analyzer: Analyzer) -> None:
        for verb in ("get", "set", "list", "show", "make", "find", "call", "send"):
            assert verb not in ENGLISH_STOPWORDS
            assert analyzer.terms(verb), verb

    def test_query_of_only_stopwords_has_no_terms(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("the and of it") == []

    def test_stopword_parts_of_an_identifier_are_dropped_but_the_identifier_stays(
        self, analyzer: Analyzer
    ) -> None:
        assert words(analyzer, "is_admin") == ["admin", "is_admin"]

    @pytest.mark.parametrize("text", ["don't", "DON'T", "can't", "it's", "it\u2019s", "I've"])
    def test_contractions_in_the_stopword_list_are_dropped_whole(
        self, analyzer: Analyzer, text: str
    ) -> None:
        assert analyzer.terms(text) == []

    def test_possessives_leave_no_one_letter_term(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("the user's calendar") == ["user", "calendar"]
        assert analyzer.terms("Bob\u2019s files") == ["bob", "file"]

    def test_a_name_with_an_apostrophe_is_still_split(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("O'Reilly") == ["o", "reilli"]

    def test_custom_stopwords(self) -> None:
        analyzer = Analyzer(stopwords={"weather"})
        assert analyzer.terms("the weather") == ["the"]


class TestStemming:
    @pytest.mark.parametrize(
        ("variants"),
        [
            ("running", "runs", "run"),
            ("files", "file"),
            ("emails", "emailing", "email"),
            ("searches", "searching", "searched", "search"),
            ("animation", "animations", "animated"),
            ("experiment", "experiments", "experimental"),
            ("presentation", "presentations"),
            ("position", "positions", "positioned"),
        ],
    )
    def test_inflections_share_a_stem(self, analyzer: Analyzer, variants: tuple[str, ...]) -> None:
        assert len({tuple(analyzer.terms(word)) for word in variants}) == 1

    @pytest.mark.parametrize(
        ("word", "other"),
        [
            ("animation", "animal"),
            ("experiment", "experience"),
            ("presentation", "present"),
            ("position", "positive"),
        ],
    )
    def test_words_of_unrelated_senses_keep_stems_apart(
        self, analyzer: Analyzer, word: str, other: str
    ) -> None:
        # Snowball gives each pair one stem.
        assert analyzer.terms(word) != analyzer.terms(other)

    def test_stem_of_one_word(self, analyzer: Analyzer) -> None:
        assert analyzer.stem("messages") == "messag"


class TestNumbers:
    def test_numbers_are_kept_verbatim(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("error 404 in 2024") == ["error", "404", "2024"]

    def test_dates_and_decimals_keep_their_parts_and_whole(self, analyzer: Analyzer) -> None:
        assert analyzer.terms("3.14") == ["3", "14", "3.14"]
        assert "2024-01-01" in analyzer.terms("2024-01-01")

    def test_a_number_finds_the_tool_that_mentions_it(self) -> None:
        index = make_index(
            [
                make_tool("http_get", "Fetch a URL; fails with error 404 when missing."),
                make_tool("http_post", "Send a form; fails with error 500 on server faults."),
            ]
        )
        assert [hit.tool.name for hit in index.search("404", threshold=0)] == ["http_get"]


class TestLongText:
    def test_text_past_the_field_limit_is_not_analysed(self, analyzer: Analyzer) -> None:
        text = "lorem " * (MAX_FIELD_CHARS // 6 + 10) + "zebra"
        assert "zebra" not in analyzer.terms(text)
        assert "lorem" in analyzer.terms(text)


class TestHighlightSpans:
    def test_spans_cover_whole_words_including_identifiers(self) -> None:
        text = "Send a message with sendSlackMessage. Messages are queued."
        spans = highlight_spans(text, ["messag"])
        assert [text[start:end] for start, end in spans] == [
            "message",
            "sendSlackMessage",
            "Messages",
        ]

    def test_spans_point_into_the_original_text(self) -> None:
        text = "ＷＥＡＴＨＥＲ today, café tomorrow"
        assert [text[s:e] for s, e in highlight_spans(text, ["weather", "cafe"])] == [
            "ＷＥＡＴＨＥＲ",
            "café",
        ]

    def test_no_terms_no_spans(self) -> None:
        assert highlight_spans("anything at all", []) == []

    def test_unmatched_text_has_no_spans(self) -> None:
        assert highlight_spans("Delete a file", ["weather"]) == []

    def test_matched_terms_of_a_hit_highlight_its_name_and_description(self) -> None:
        index = make_index()
        (hit,) = index.search("slack messages", k=1)
        index_terms = [term.index_term for term in hit.matched_terms]
        name_spans = highlight_spans(hit.tool.name, index_terms)
        assert name_spans == [(0, len("sendSlackMessage"))]
        description = hit.tool.description
        highlighted = [description[s:e] for s, e in highlight_spans(description, index_terms)]
        assert "message" in highlighted
        assert "Slack" in highlighted

    def test_a_phrasal_verb_is_highlighted_whole(self) -> None:
        text = "Log in to the site, then log the result."
        assert [text[s:e] for s, e in highlight_spans(text, ["login"])] == ["Log in"]
        # "Log in" was indexed as `login`: its "Log" is no match of `log`.
        assert [text[s:e] for s, e in highlight_spans(text, ["log"])] == ["log"]

    def test_an_identifier_holding_a_phrasal_verb_is_highlighted_once(self) -> None:
        text = "Call user_log_in first."
        assert [text[s:e] for s, e in highlight_spans(text, ["login"])] == ["user_log_in"]

    def test_custom_analyzer_is_used(self) -> None:
        analyzer = Analyzer(stopwords=())
        assert highlight_spans("the end", ["the"], analyzer) == [(0, 3)]
