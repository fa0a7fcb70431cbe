"""Requests with several needs: each need's tool reaches the top k; one need is unchanged."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscout import Catalog, Tool, ToolIndex
from toolscout.errors import EmbeddingError
from toolscout.search import SemanticOptions
from toolscout.search.analysis import CJK_CHARACTERS
from toolscout.search.needs import (
    MAX_NEEDS,
    _split_several,
    is_step_list,
    may_have_several_needs,
    split_needs,
)
from toolscout.search.semantic import SemanticEngine

from .conftest import make_index, names
from .embedding_support import counting_embedder, hashed_vectors

SEMANTIC = ("bm25", "hybrid")


class TestSplitting:
    @pytest.mark.parametrize(
        ("request_text", "needs"),
        [
            (
                "Get the weather in Paris and then book a table for two at 8pm",
                ["Get the weather in Paris", "book a table for two at 8pm"],
            ),
            (
                "find the trending posts on two sites, make a word cloud, write a PDF",
                ["find the trending posts on two sites", "make a word cloud", "write a PDF"],
            ),
            (
                "1. fetch the page\n2. summarise it in three lines\n3. email it to Alice",
                ["fetch the page", "summarise it in three lines", "email it to Alice"],
            ),
            (
                "What is the weather in Boston? Also convert 100 USD to EUR.",
                ["What is the weather in Boston?", "convert 100 USD to EUR"],
            ),
            (
                "Get the weather in Paris THEN book a table for two at 8pm",
                ["Get the weather in Paris", "book a table for two at 8pm"],
            ),
            (
                "What is the weather in Boston?\tConvert 100 USD to EUR.",
                ["What is the weather in Boston?", "Convert 100 USD to EUR"],
            ),
            (
                "Réserve une table à Zürich; envoie un e-mail à Chloé",
                ["Réserve une table à Zürich", "envoie un e-mail à Chloé"],
            ),
            (  # sentences end the same in every script that puts a space after them
                "Какая погода в Париже? Забронируй столик на двоих.",
                ["Какая погода в Париже?", "Забронируй столик на двоих"],
            ),
            (
                "서울 날씨 어때? 부산행 기차표 예매해줘.",
                ["서울 날씨 어때?", "부산행 기차표 예매해줘"],
            ),
            (  # an action and its object are a need, short as they are
                "Find the email from the accountant, download it, and convert it to markdown.",
                ["Find the email from the accountant", "download it", "convert it to markdown"],
            ),
            (
                "add a slide with the chart to the deck and save it",
                ["add a slide with the chart to the deck", "save it"],
            ),
            (  # a clause of context belongs to the step after it
                "In the browser, open the checkout page, then list the network requests",
                ["In the browser, open the checkout page", "list the network requests"],
            ),
            (
                "If the build fails, post the log to #ci and open an issue",
                ["If the build fails, post the log to #ci", "open an issue"],
            ),
            (  # "check tomorrow's weather in Shanghai, then plan a drive from Pudong airport"
                "查一下上海明天的天气，然后规划从浦东机场到人民广场的驾车路线",
                ["查一下上海明天的天气", "规划从浦东机场到人民广场的驾车路线"],
            ),
            (  # "how is the weather in Beijing? book me a train ticket to Shanghai."
                "北京今天天气怎么样？帮我订一张去上海的火车票。",
                ["北京今天天气怎么样", "帮我订一张去上海的火车票"],
            ),
            (  # "translate the report into English, and then email it to the boss"
                "把报告翻译成英文，再发邮件给老板",
                ["把报告翻译成英文", "发邮件给老板"],
            ),
            (  # a list of two steps of three characters each
                "1. 查天气\n2. 订酒店",
                ["查天气", "订酒店"],
            ),
        ],
    )
    def test_a_task_is_cut_into_its_steps(self, request_text: str, needs: list[str]) -> None:
        assert split_needs(request_text) == needs

    @pytest.mark.parametrize(
        "request_text",
        [
            "weather in Paris, France",
            "search for salt and pepper shakers",
            "density of a substance with a mass of 45 kg, a volume of 15 m3",
            'send "lunch, then a walk and a talk" to Bob',
            "get_current_weather",
            "",
            "北京到天津开车多远",  # how far is the drive from Beijing to Tianjin
            "打开文档的最后一页",  # open the document's last page: "last" is no step
            "天安门的经纬度是多少",  # the coordinates of Tiananmen
        ],
    )
    def test_one_need_stays_whole(self, request_text: str) -> None:
        assert split_needs(request_text) == [request_text]

    @pytest.mark.parametrize(
        ("needs", "steps"),
        [
            (["Find the sales files", "make a bar chart", "write a PDF report"], True),
            (["Check the weather in Lisbon", "Email Bob about it"], True),
            (["The files are in /data", "make a bar chart"], False),
            (["What's the weather in Paris?", "book a table for two"], False),
            (["get the weather", "today is 2023.10.1"], False),
            (["get the weather", "..."], False),
        ],
    )
    def test_a_list_of_steps_opens_every_need_with_an_action(
        self, needs: list[str], steps: bool
    ) -> None:
        assert is_step_list(needs) is steps

    @pytest.mark.parametrize(
        "request_text",
        [
            "List the books by J.K. Rowling from the collection called 'library'",
            "Find the lawsuits involving Mr. John Doe in San Francisco county",
            "Show my checking account at U.S. Bank for October 2019",
            "Find a family therapist in St. Helena, CA",
            "Find a movie with Sterling K. Brown as an actor",
            "Search the news of big cities, e.g. Paris or Rome",
        ],
    )
    def test_an_initial_or_a_title_ends_no_sentence(self, request_text: str) -> None:
        assert split_needs(request_text) == [request_text]

    @pytest.mark.parametrize(
        ("request_text", "needs"),
        [
            (
                "Find the court cases of Mr. X in New York. Then email the list to Ann.",
                ["Find the court cases of Mr. X in New York", "email the list to Ann"],
            ),
            (
                "Heat 2 kg of substance A. The heat capacity is 4.18 J/K. Find the entropy change.",
                [
                    "Heat 2 kg of substance A",
                    "The heat capacity is 4.18 J/K",
                    "Find the entropy change",
                ],
            ),
            (
                "Find a movie with Sterling K. Brown. Book two tickets for it.",
                ["Find a movie with Sterling K. Brown", "Book two tickets for it"],
            ),
        ],
    )
    def test_a_sentence_may_still_end_with_an_initial(
        self, request_text: str, needs: list[str]
    ) -> None:
        assert split_needs(request_text) == needs

    def test_a_request_of_hundreds_of_steps_is_cut_into_a_few(self) -> None:
        request = "; ".join(f"send message number {i} to the team" for i in range(500))
        needs = split_needs(request)
        assert len(needs) == MAX_NEEDS
        assert needs[0] == "send message number 0 to the team"


# Requests built from the pieces splitting looks at: action words, joiners, breaks, quotes,
# NULs and digits (what quoted text hides behind), and characters of other scripts.
_REQUEST_PIECES = ["send", "get", "weather", "and", "then", "also,", ";", ".", "?", "\n", "1."]
_REQUEST_PIECES += ["-", " ", '"', "'", "“", "”", "0", "12", "\x00", "\x000\x00", "é", "天气"]
_REQUEST_PIECES += ["，", "。", "？", "然后", "再", "查天气", "J.", "Mr.", "The"]
_request_piece = st.sampled_from(_REQUEST_PIECES)
_requests = st.one_of(st.text(max_size=60), st.lists(_request_piece, max_size=30).map("".join))


# A word, or one character of a script written without spaces, which a need may end within.
_WORD_OR_CJK_CHARACTER = re.compile(f"[{CJK_CHARACTERS}]|[^\\W{CJK_CHARACTERS}]+")


def _word_counts(texts: list[str]) -> Counter[str]:
    return Counter(word for text in texts for word in _WORD_OR_CJK_CHARACTER.findall(text))


class TestHostileRequests:
    @settings(max_examples=300, deadline=None)
    @given(_requests)
    def test_splitting_never_fails_nor_invents_text(self, request_text: str) -> None:
        needs = split_needs(request_text)
        assert needs and len(needs) <= MAX_NEEDS
        assert _word_counts(needs) <= _word_counts([request_text])

    def test_a_request_holding_placeholder_like_text_keeps_its_own_words(self) -> None:
        request = 'send "the report" to Bob \x005\x00, then email \x000\x00 to Alice'
        needs = split_needs(request)
        assert _word_counts(needs) <= _word_counts([request])
        assert "the report" in needs[0]

    @settings(max_examples=300, deadline=None)
    @given(_requests)
    def test_the_quick_look_agrees_with_the_full_split(self, request_text: str) -> None:
        request_text = request_text.replace("\x00", " ")  # as split_needs does first
        if not may_have_several_needs(request_text):
            assert split_needs(request_text) == _split_several(request_text)


def _catalog(**descriptions: str) -> Catalog:
    return Catalog(Tool(name=name, description=text) for name, text in descriptions.items())


def _plans_catalog() -> Catalog:
    """A weather, a restaurant, an e-mail tool, and a holiday tool that says "Friday"."""
    return _catalog(
        get_weather="Current weather and forecast for a city.",
        book_table="Book a table at a restaurant.",
        send_email="Send an email to a recipient.",
        list_holidays="Public holidays of a country, with the weekday of each (Monday to Friday).",
    )


class TestSearch:
    @pytest.mark.parametrize("engine", SEMANTIC)
    def test_every_need_has_its_tool_in_the_top_k(self, engine: str) -> None:
        index = make_index(engine=engine)
        request = (
            "Check the weather forecast for Lisbon this week, then create a calendar event "
            "for the trip and send an email to my manager about it"
        )
        found = names(index.search(request, k=5, threshold=0))
        assert {"get_forecast", "create_calendar_event", "send_email"} <= set(found)

    def test_a_long_shot_need_does_not_push_out_a_need_a_tool_serves(self) -> None:
        # No tool reads a calendar: the first need's best is a weak match on "Friday". The
        # needs' best tools come in order of how well they match, so k=3 holds the three
        # tools that serve their needs, each showing its own score.
        request = (
            "Check my calendar for Friday, then get the weather in Paris, book a table for "
            "two and email Bob the plan"
        )
        index = ToolIndex(_plans_catalog(), engine="bm25")
        assert len(split_needs(request)) == 4
        hits = index.search(request, k=3, threshold=0)
        assert set(names(hits)) == {"get_weather", "book_table", "send_email"}
        assert min(hit.normalized_score for hit in hits) > 0.5
        assert names(index.search(request, k=4, threshold=0))[3] == "list_holidays"

    def test_a_sentence_of_context_comes_after_the_request_s_tools(self) -> None:
        # "Today is November 25th, 2024" is a need to the splitter, and its best tool, the
        # calendar's, matches "today" weakly: far under the whole request's best, so its turn
        # comes after the car rental tools, not before the third of them. Late, not gone.
        index = ToolIndex(
            _catalog(
                search_car_rentals="Search car rentals: the cars available at a pick-up place "
                "and time, with their prices.",
                search_car_location="Find a car rental location (an airport, a station, a "
                "hotel) by its name.",
                vehicle_details="Details of a rental car: seats, doors, luggage, extras such "
                "as a child seat.",
                create_calendar_event="Create a calendar event for today or another day.",
            ),
            engine="bm25",
        )
        request = (
            "Today is November 25th, 2024. I want to rent a car at Adelaide Airport. Compare "
            "the prices of the rental cars for a pick-up tomorrow at 9 AM."
        )
        assert split_needs(request)[0] == "Today is November 25th, 2024"
        assert names(index.search(request, k=4, threshold=0)) == [
            "search_car_rentals",
            "search_car_location",
            "vehicle_details",
            "create_calendar_event",
        ]

    def test_a_tool_with_words_of_every_step_does_not_come_first_in_a_list_of_steps(
        self,
    ) -> None:
        # `sales_overview` has words of every step, so the whole request ranks it first. In a
        # list of steps it takes its turn among the steps' own tools; beside a sentence of
        # details, the whole request's best still comes first.
        index = ToolIndex(
            _catalog(
                search_files="Find files by name in a folder.",
                create_chart="Make a bar chart.",
                write_report="Write a PDF report.",
                sales_overview="Sales totals from files, charts and reports.",
            ),
            engine="bm25",
        )
        steps = "Find the sales files, make a bar chart of the totals, and write a PDF report"
        assert set(names(index.search(steps, k=2, threshold=0))) == {
            "write_report",
            "create_chart",
        }
        details = (
            "The sales files are in the shared folder. Make a bar chart of the totals and "
            "write a PDF report"
        )
        assert names(index.search(details, k=1, threshold=0)) == ["sales_overview"]

    def test_the_threshold_judges_each_need_by_its_own_best(self) -> None:
        # The trip need's best tool scores about 0.26, under a third of the weather tool's:
        # judged with the weather need it would be cut, judged on its own it stays.
        index = ToolIndex(_plans_catalog(), engine="bm25")
        request = (
            "Get the current weather forecast for Paris, then plan a trip for Friday with the "
            "kids and grandparents"
        )
        assert names(index.search(request, threshold=0.2)) == ["get_weather", "list_holidays"]
        assert names(index.search(request, threshold=0.3)) == ["get_weather"]

    def test_each_hit_says_which_need_found_it(self) -> None:
        index = make_index()
        hits = index.search("read the file notes.txt; then open a GitHub issue about the bug")
        needs = {hit.tool.name: hit.need for hit in hits}
        assert needs["create_github_issue"] in (None, "open a GitHub issue about the bug")
        assert all(hit.rank == position for position, hit in enumerate(hits, start=1))

    @pytest.mark.parametrize(
        "query", ["weather in Paris", "send an email to Bob and Alice", "create_github_issue"]
    )
    def test_one_need_gives_the_same_hits_as_without_splitting(self, query: str) -> None:
        split, whole = make_index(), make_index(split_needs=False)
        assert [(h.tool.id, h.score, h.need) for h in split.search(query, threshold=0)] == [
            (h.tool.id, h.score, None) for h in whole.search(query, threshold=0)
        ]

    def test_patterns_are_never_split(self) -> None:
        index = make_index(engine="regex")
        assert not index.split_needs
        assert names(index.search("send_email; then read_file")) == []

    def test_the_threshold_and_filter_hold_for_every_need(self) -> None:
        index = make_index()
        request = "delete the file old.txt, then send an email to Bob"
        hits = index.search(request, filter=lambda tool: tool.name != "delete_file")
        assert "delete_file" not in names(hits)
        assert "send_email" in names(hits)
        assert all(hit.normalized_score >= index.threshold / 2 for hit in hits)
        assert hits[0].normalized_score >= index.threshold

    def test_nothing_found_keeps_the_notice(self) -> None:
        results = make_index().search("tell me a joke; then sing me a song please")
        assert results == [] and results.notice


class TestModelCalls:
    REQUEST = "Get the weather in Paris and then book a table for two at 8pm"

    @pytest.mark.parametrize("engine", ["semantic", "hybrid"])
    def test_a_request_and_its_needs_go_to_the_model_in_one_call(self, engine: str) -> None:
        embedder, function = counting_embedder()
        index = make_index(engine=engine, semantic=SemanticOptions(embedder, cache=False))
        index.refresh()
        calls, embedded = function.calls, len(function.embedded)
        index.search(self.REQUEST, threshold=0)
        assert function.calls == calls + 1
        assert function.embedded[embedded:] == [self.REQUEST, *split_needs(self.REQUEST)]

    @pytest.mark.parametrize("engine", ["semantic", "hybrid"])
    def test_needs_rank_as_when_each_is_embedded_alone(
        self, engine: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def hits() -> list[tuple[str, float, str | None]]:
            embedder, _ = counting_embedder()
            index = make_index(engine=engine, semantic=SemanticOptions(embedder, cache=False))
            return [(h.tool.id, h.score, h.need) for h in index.search(self.REQUEST, threshold=0)]

        together = hits()
        monkeypatch.setattr(SemanticEngine, "prefetch", lambda self, queries: None)
        assert hits() == together

    def test_a_model_that_answers_fewer_vectors_is_a_clear_error(self) -> None:
        class OneShortForQueries:
            """A model of its own (no CallableEmbedder checks) that answers a batch of queries
            with one vector too few."""

            model_id, dimension = "one-short", 64

            def embed(self, texts: Sequence[str]) -> np.ndarray:
                vectors = hashed_vectors(list(texts))
                return vectors[:-1] if len(texts) == 3 else vectors

        index = make_index(
            engine="hybrid", semantic=SemanticOptions(OneShortForQueries(), cache=False)
        )
        with pytest.raises(EmbeddingError, match="returned 2 vectors for 3 queries"):
            index.search(self.REQUEST)
