"""Reworded requests: what users type, in their words rather than the tools', over a small
catalog of real MCP servers' tools, and requests that no tool of it serves.

A default threshold has two jobs that pull apart: to keep the right tool when a request
shares few or no words with it ("how much is 100 dollars in euros" for `convert_currency`), and
to answer nothing to a request no tool serves ("tell me a joke"). This set measures both, with
each engine's default settings, on the 41 tools of `benchmarks.senses.CATALOG`. The requests
were written for it and are not the ones `benchmarks.senses` uses; `split_of` their text puts
about half in the dev split, which the hybrid threshold was chosen on, and half in the test
split, which is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from benchmarks.bfcl import Split, split_of
from benchmarks.metrics import recall_at
from benchmarks.peers import AbstainingSearcher, Engine, Searcher
from benchmarks.report import Table
from benchmarks.senses import CATALOG


@dataclass(frozen=True, slots=True)
class Rewording:
    text: str
    relevant: frozenset[str]
    """Names of the tools that serve the request; empty when none does."""
    split: Split


def _request(text: str, relevant: str = "") -> Rewording:
    # Tools are named as the engines answer: by name, unique in this catalog.
    names = frozenset(tool_id.split("__", 1)[1] for tool_id in relevant.split())
    return Rewording(text, names, split_of(text))


REQUESTS: tuple[Rewording, ...] = (
    # time
    _request("is it morning or evening in Sydney right now", "time__get_current_time"),
    _request("what's the clock saying in Berlin", "time__get_current_time"),
    _request("if it's 9 in the morning in Paris, what hour is it in Chicago", "time__convert_time"),
    _request("my call is at 14:00 Tokyo time, when is that for me in Madrid", "time__convert_time"),
    # fetch
    _request("pull the text of https://example.com/pricing", "fetch__fetch"),
    _request("grab what this link says: https://news.example.org/a/1", "fetch__fetch"),
    _request("read that blog post for me and give me the gist", "fetch__fetch"),
    # git
    _request("anything uncommitted in my working copy?", "git__git_status"),
    _request("which files did I touch since the last snapshot", "git__git_status"),
    _request("show me what I'm about to check in", "git__git_diff_staged"),
    _request("record this work with the message 'fix typo'", "git__git_commit"),
    _request("put readme.md into the next commit", "git__git_add"),
    _request("who changed what over the last ten commits", "git__git_log"),
    _request("start a separate line of work called hotfix", "git__git_create_branch"),
    _request("go back to the main branch", "git__git_checkout"),
    # sqlite
    _request("how many customers signed up in March, from the db", "sqlite__read_query"),
    _request("pull every order over 100 dollars out of the database", "sqlite__read_query"),
    _request("delete the test accounts from the users table", "sqlite__write_query"),
    _request("raise every price in the products table by 5 percent", "sqlite__write_query"),
    _request(
        "set up storage for invoices with id, amount and date columns", "sqlite__create_table"
    ),
    _request("what data do we keep in this database", "sqlite__list_tables"),
    _request("what columns does the payments table have", "sqlite__describe_table"),
    _request("note down that sales dip every August", "sqlite__append_insight"),
    # weather
    _request("do I need an umbrella in Boston this weekend", "weather__get_forecast"),
    _request("how warm will it get in Austin on Friday", "weather__get_forecast"),
    _request("are there any hurricane or flood warnings for Florida", "weather__get_alerts"),
    # maps
    _request("coordinates of 10 Downing Street", "maps__maps_geocode"),
    _request("which town is at 40.7, -74.0", "maps__maps_reverse_geocode"),
    _request("coffee shops near the train station", "maps__maps_search_places"),
    _request("opening hours and phone number of that bakery", "maps__maps_place_details"),
    _request("how do I drive from Lyon to Geneva", "maps__maps_directions"),
    _request("best walking route from the hotel to the museum", "maps__maps_directions"),
    # github
    _request("report that the login page crashes on Safari", "github__create_issue"),
    _request("what bugs are still unresolved in the project", "github__list_issues"),
    _request("reply on bug 42 that it's fixed in the next release", "github__add_issue_comment"),
    _request("propose merging my feature branch into main", "github__create_pull_request"),
    _request("show me the package.json in that repo", "github__get_file_contents"),
    # calendar
    _request("block Tuesday 10am for a dentist visit", "calendar__create_event"),
    _request("set up a lunch with Sara next Thursday at noon", "calendar__create_event"),
    _request("am I free on Monday afternoon", "calendar__list_events"),
    _request("what do I have going on tomorrow", "calendar__list_events"),
    _request("push the standup back by half an hour", "calendar__update_event"),
    _request("rename tomorrow's sync to 'planning'", "calendar__update_event"),
    _request("drop the 4pm call from my schedule", "calendar__delete_event"),
    # flights
    _request("what planes go from Lisbon to Rome on the 3rd", "flights__search_flights"),
    _request("cheapest way to fly to Oslo next week", "flights__search_flights"),
    _request("get me on the 8am departure to Chicago, seat for two", "flights__book_flight"),
    # email
    _request("write to Tom that the meeting moved", "email__send_email"),
    _request("let the team know by mail that the build is green", "email__send_email"),
    _request("open the message from HR about benefits", "email__read_email"),
    _request("find the invoices Acme sent me last month", "email__search_emails"),
    _request("prepare a note to the landlord but don't send it yet", "email__draft_email"),
    # currency
    _request("what's 250 pounds in dollars", "currency__convert_currency"),
    _request("turn 1,000 yen into euros", "currency__convert_currency"),
    _request("how strong is the franc against other money today", "currency__get_exchange_rates"),
    _request("today's rates for the Canadian dollar", "currency__get_exchange_rates"),
    # nothing serves these
    _request("tell me a joke"),
    _request("how are you today"),
    _request("write a haiku about autumn"),
    _request("what is the square root of 144"),
    _request("who won the world cup in 1998"),
    _request("summarise the plot of Hamlet"),
    _request("translate good morning into Italian"),
    _request("turn off the living room lights"),
    _request("play some jazz"),
    _request("order a pizza"),
    _request("call my mother"),
    _request("take a photo"),
    _request("set a timer for ten minutes"),
    _request("what's a good name for a cat"),
    _request("explain how photosynthesis works"),
    _request("thanks, that's all"),
)


@dataclass(frozen=True, slots=True)
class RewordingRow:
    engine: str
    recall1: float
    recall5: float
    abstention: float
    """Share of the requests no tool serves that are answered with nothing."""


def measure_rewordings(label: str, searcher: Searcher, split: Split) -> RewordingRow:
    """One engine with its default settings on one split's requests."""
    served = [r for r in REQUESTS if r.split == split and r.relevant]
    unserved = [r for r in REQUESTS if r.split == split and not r.relevant]
    rankings = [searcher.search(r.text, 5) for r in served]
    pairs = list(zip(rankings, served, strict=True))
    return RewordingRow(
        engine=label,
        recall1=fmean(recall_at(ranking, r.relevant, 1) for ranking, r in pairs),
        recall5=fmean(recall_at(ranking, r.relevant, 5) for ranking, r in pairs),
        abstention=fmean(not searcher.search(r.text, 5) for r in unserved),
    )


def run_rewordings(engines: Sequence[Engine], splits: Sequence[Split]) -> Table:
    table = Table(
        title=(
            f"Reworded requests over {len(CATALOG)} tools of real MCP servers, default settings"
        ),
        columns=[
            *("engine", "split", "R@1", "R@5", "abstain %"),
            *("R@1, no threshold", "R@5, no threshold"),
        ],
    )
    for engine in engines:
        searcher = engine.build(CATALOG)
        for split in splits:
            row = measure_rewordings(engine.label, searcher, split)
            cells = [row.engine, split, f"{row.recall1:.3f}", f"{row.recall5:.3f}"]
            cells.append(f"{100 * row.abstention:.0f}")
            if isinstance(searcher, AbstainingSearcher):
                free = measure_rewordings(engine.label, searcher.without_threshold(), split)
                cells += [f"{free.recall1:.3f}", f"{free.recall5:.3f}"]
            else:
                cells += ["—", "—"]
            table.rows.append(cells)
    counts = {
        split: (
            sum(1 for r in REQUESTS if r.split == split and r.relevant),
            sum(1 for r in REQUESTS if r.split == split and not r.relevant),
        )
        for split in splits
    }
    table.notes = [
        "Requests written in a user's words for the tools of benchmarks/senses.py; "
        + "; ".join(
            f"{split}: {served} served, {unserved} that no tool serves"
            for split, (served, unserved) in counts.items()
        )
        + ".",
        "R@k over the served requests; abstain %: requests no tool serves answered with nothing "
        "(top 5). Each engine with its default settings (toolscout: engine auto's choice and its "
        "default threshold), then with its threshold off.",
    ]
    return table
