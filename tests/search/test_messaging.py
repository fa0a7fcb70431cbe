"""How requests speak of messages: "email her the list" asks to send one, an e-mail address
names a person, not a tool, and a "#name" is a chat channel."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscout.search import ToolIndex
from toolscout.search.messaging import (
    SENDING_VERBS,
    with_channel_words,
    with_send_words,
    without_addresses,
)

TOOLS = [
    {"name": "send_email", "description": "Send an email to one or more recipients."},
    {"name": "archive_emails", "description": "Move emails out of the inbox into the archive."},
    {"name": "mark_emails_as_read", "description": "Mark emails in the inbox as read."},
    {"name": "forward_email", "description": "Forward an email you received to someone."},
    {"name": "get_finance_report", "description": "Quarterly finance numbers of a company."},
    {"name": "clone_repository", "description": "Clone a git repository."},
]


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("email the plan to my partner", "send email the plan to my partner"),
        (
            "create the meeting and email her the invite",
            "create the meeting and send email her the invite",
        ),
        ("Text Bob the address", "send Text Bob the address"),
        ("please message the team on Slack", "please send message the team on Slack"),
        ("I want to email Ann; then dm them", "I want to send email Ann; then send dm them"),
    ],
)
def test_a_message_named_as_a_verb_asks_to_send(request_text: str, expected: str) -> None:
    assert with_send_words(request_text) == expected


@pytest.mark.parametrize("verb", sorted(SENDING_VERBS))
def test_every_sending_verb_is_found(verb: str) -> None:
    assert with_send_words(f"{verb} them the report") == f"send {verb} them the report"


@pytest.mark.parametrize(
    "request_text",
    [
        "what is the email address of Ann",  # nouns
        "update the name and email of a customer",
        "extract text the way it is",
        "read the text file",
        "show the message history",
        "",
    ],
)
def test_a_message_named_as_a_noun_is_left_alone(request_text: str) -> None:
    assert with_send_words(request_text) == request_text


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("email the numbers to finance@example.com", "email the numbers to email"),
        ("cc ann.lee+q3@mail.example.org and bob@x.io.", "cc email and email."),
    ],
)
def test_an_address_becomes_the_word_email(request_text: str, expected: str) -> None:
    assert without_addresses(request_text) == expected


@pytest.mark.parametrize(
    "request_text",
    [
        "clone git@github.com:org/repo.git",  # an ssh remote
        "open https://user:pw@host.example.com/x",  # a URL's credentials
        "the password is P@ssw0rd!",
        "user@localhost",
        "a@b.c",
    ],
)
def test_what_is_not_an_address_is_left_alone(request_text: str) -> None:
    assert without_addresses(request_text) == request_text


@given(st.text(alphabet=st.sampled_from("ab.@-_: \n"), max_size=40))
def test_an_address_is_only_ever_replaced(request_text: str) -> None:
    rewritten = without_addresses(request_text)
    assert rewritten == request_text or "email" in rewritten


@pytest.mark.parametrize(
    "request_text",
    [
        "a" * 4_000 + "@",
        "x@" + "ab." * 1_300 + "1",
        "a.b@c." * 600,
        "email them " * 350,
        "#a" * 2_000,
        "#" + "a-" * 2_000,
        "&#" * 2_000,
    ],
)
def test_hostile_requests_are_read_in_one_pass(request_text: str) -> None:
    # A pattern that backtracked over them would take seconds at the query length cap.
    assert with_channel_words(without_addresses(with_send_words(request_text)))


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        (
            "what have people been saying in #support today",
            "what have people been saying in #support channel today",
        ),
        ("post it in #jp-team and #ops", "post it in #jp-team channel and #ops channel"),
        ("#random: any news?", "#random channel: any news?"),
    ],
)
def test_a_hash_name_is_a_channel(request_text: str, expected: str) -> None:
    assert with_channel_words(request_text) == expected


@pytest.mark.parametrize(
    "request_text",
    [
        "tell the #general channel that the office is closed",  # says "channel" itself
        "find my notes tagged #recipes",
        "search posts with the hashtag #ai",
        "a C# tutorial",
        "open https://example.com/guide#setup",
        "close issue #42",
        "make the header #ff0000 and the text #FFF",
        "it&#39;s done",
        "## Release notes",
    ],
)
def test_what_is_not_a_channel_is_left_alone(request_text: str) -> None:
    assert with_channel_words(request_text) == request_text


@given(st.text(alphabet=st.sampled_from("ab1#&-_ \n"), max_size=40))
def test_channel_words_are_only_ever_added(request_text: str) -> None:
    assert with_channel_words(request_text).replace(" channel", "") == request_text


CHAT_AND_WEB_TOOLS = [
    {"name": "slack_get_channel_history", "description": "Get recent messages from a channel."},
    {"name": "slack_post_message", "description": "Post a new message to a Slack channel."},
    {"name": "web_search", "description": "Search the web for recent pages and news on a topic."},
    {"name": "ask", "description": "Ask a question and get an answer with sources from the web."},
]


@pytest.mark.parametrize("engine", ["bm25", "hybrid"])
def test_a_request_about_a_hash_name_finds_the_chat_tools(engine: str) -> None:
    index = ToolIndex(CHAT_AND_WEB_TOOLS, engine)  # type: ignore[arg-type]
    hits = index.search("what have people been saying in #support today", 1, threshold=0)
    assert [hit.tool.name for hit in hits] == ["slack_get_channel_history"]


@pytest.mark.parametrize("engine", ["bm25", "hybrid"])
def test_an_emailed_request_finds_the_tool_that_sends(engine: str) -> None:
    index = ToolIndex(TOOLS, engine)  # type: ignore[arg-type]
    hits = index.search("email the quarterly numbers to finance@example.com", 1, threshold=0)
    assert [hit.tool.name for hit in hits] == ["send_email"]


def test_the_results_keep_the_request_as_it_was_asked() -> None:
    request = "email the numbers to finance@example.com"
    results = ToolIndex(TOOLS, "bm25").search(request, 3, threshold=0)
    assert results.query == request


def test_a_regex_pattern_is_searched_as_it_is() -> None:
    results = ToolIndex(TOOLS, "regex").search(r"ann@example\.com|clone", 3)
    assert [hit.tool.name for hit in results] == ["clone_repository"]
