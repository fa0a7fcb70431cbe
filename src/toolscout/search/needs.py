"""Requests with several needs: split a task into the tools it needs, one search each.

Agents send whole tasks ("find the trending posts on two sites, make a word cloud, then write
a PDF"). Ranked as one text, the need with the most words, or the rarest ones, takes every
slot. `split_needs` cuts a request at the places people join separate steps: sentences, list
items, semicolons, "then" / "and then" / "also", and "and" or commas followed by an action
("..., make a word cloud") unless what comes before is context ("In the browser, go to...");
in Chinese at 。！？；, 然后 ("then") and the like. `ToolIndex` searches the whole request and
each need, and interleaves the rankings, so every need's best tools reach the top k.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolscout.search.analysis import CJK_CHARACTERS

#: The most needs one request is split into; the rest of a longer request stays in the last.
#: Each need is one more search, and a request of hundreds of clauses must not fan out.
MAX_NEEDS = 6

#: A need has at least this many words; shorter pieces stay with the piece before them
#: ("Paris, France" is one place, not two needs)...
MIN_NEED_WORDS = 3
#: ...but an action and its object are a need in two ("save it", "email Bob").
MIN_ACTION_NEED_WORDS = 2
#: In Chinese, Japanese or Korean, written without spaces, a need has this many characters
#: (查天气, "check the weather").
MIN_CJK_NEED_CHARACTERS = 3

#: Verbs that open a step of a task, in the imperative: where one follows a comma or "and",
#: a new need starts. What people ask tools to do, not any benchmark's wording.
ACTION_WORDS: frozenset[str] = frozenset(
    """add analyse analyze archive book buy calculate call cancel change chart check click
    clone close commit compare compute convert copy count create delete deploy describe detect
    download draft draw edit email estimate evaluate export extract fetch fill find fix forecast
    format forward generate get give go identify import install invite label list load locate
    log look make merge message monitor move navigate notify open order pay plot post predict
    print publish pull push put query read record recommend register reload remove rename
    render reply report request reserve reset restart retrieve return review run save scan
    schedule scroll search select send set share show sort start stop store summarise
    summarize sync take tell track transcribe transfer translate tweet update upload validate
    verify view visit visualise visualize wait watch write""".split()  # noqa: SIM905
)

#: Words that open a clause of context rather than a step ("In the browser, go to the
#: checkout page", "If the build fails, post the log"): such a clause, first in its step,
#: belongs to the action after it.
CONTEXT_OPENERS: frozenset[str] = frozenset(
    """in on at for from using with within inside after before during via if when once
    while""".split()  # noqa: SIM905
)

# Quoted text is one piece: what a user quotes is a name or a message, never two needs.
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|'[^'\n]{2,}'(?!\w)")
# A full stop that mostly ends no sentence: after an initial or a title ("J.K. Rowling",
# "U.S. Bank", "Mr. John Doe", "St. Helena"), and "e.g.", "i.e." and "vs.". Case-sensitive:
# "a." ends sentences.
_ABBREVIATION = (
    r"(?-i:(?<=\b[A-Z]\.)|(?<=\b(?:Mr|Ms|Dr|St|Mt|Jr|Sr|vs)\.)|(?<=\b(?:Mrs|e\.g|i\.e)\.)"
    r"|(?<=\bProf\.))"
)
#: Words that open a sentence, besides the action words: after an initial or a title, a full
#: stop followed by one of them ends a sentence ("...of substance A. The experiment begins").
SENTENCE_OPENERS: frozenset[str] = frozenset(
    """a an the this that these those it its i we you he she they my our your his her their
    there here what which who whose when where why how is are was were do does did can could
    would should will may might must please also then however but so and or if after before
    now next finally lastly first second third""".split()  # noqa: SIM905
)
_OPENER = "|".join(sorted(SENTENCE_OPENERS | ACTION_WORDS))
# Where one step ends and the next begins, strongest first. Each keeps its own words out of
# the pieces it separates. Every break starts with a space, a semicolon or a comma, or in
# Chinese with a full-width stop or comma or a word that joins steps: the leading lookahead
# turns every other position away at once (twice as fast as trying each alternative there).
_STEP_BREAKS = re.compile(
    rf"""
    (?=[\s;,，；。！？]|然后|接着|随后)
    (?:
      \s*\n+\s*(?:(?:\d{{1,2}}[.)]|[-*•])\s+)?       # a new line, or a list item
      | (?<=[.!?])(?!{_ABBREVIATION})\s+(?=[\w"“'(])       # the end of a sentence,
      | {_ABBREVIATION}\s+(?=[("“']?(?:{_OPENER})\b)       # or of one with an abbreviation
      | \s*;\s*                                     # a semicolon
      | ,?\s+(?:and\s+then|and\s+also|then|after\s+that|afterwards|finally|also)\s+
      | [。！？；]\s*                                # Chinese: the end of a sentence,
      | [，,]?\s*(?:然后|接着|随后)[，,]?\s*         # "then",
      | [，,]\s*(?:最后|并且|并|再|同时|另外)[，,]?\s*  # or after a comma "finally", "and"...
    )
    """,
    re.VERBOSE | re.IGNORECASE,
)
# What every step break holds: a newline, a semicolon, a sentence's end, or one of these words.
# A regex split tries its pattern at each space, where these alternatives cost much more than
# a plain search of the request for them: most requests have none, and are not split.
_STEP_WORDS = ("then", "also", "after", "finally")
_SENTENCE_END = re.compile(r"[.!?]\s")
# Weaker: a comma or "and" starts a new need only when an action follows it ("..., then get
# the fibonacci series", "...and book a hotel"); elsewhere it joins a request's details
# ("with a mass of 45 kg, a volume of 15 m³"). The lookahead is `_STEP_BREAKS`'s.
_CLAUSE_BREAKS = re.compile(r"(?=[\s,])(,\s*(?:and\s+)?|\s+and\s+)", re.IGNORECASE)

# The breaks of `_CLAUSE_BREAKS`, each with the first word after it (past punctuation) looked
# at without being taken, so that every break is found where the split finds it.
_CLAUSE_NEXT_WORD = re.compile(r"(?=[\s,])(?:,\s*(?:and\s+)?|\s+and\s+)(?=\W*(\w+))", re.IGNORECASE)
# Words that open a piece only to join it to the one before ("Also convert...").
_LEADING_JOINERS = re.compile(
    r"^\s*(?:(?:\d{1,2}[.)]|[-*•])\s+)?(?:(?:and|also|then|finally|next)\b[\s,]*)*",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
_CJK_CHARACTER = re.compile(f"[{CJK_CHARACTERS}]")
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")


def split_needs(request: str) -> list[str]:
    """The needs of a request, in order: one piece when it asks for one thing.

    >>> split_needs("Get the weather in Paris and then book a table for two at 8pm")
    ['Get the weather in Paris', 'book a table for two at 8pm']
    >>> split_needs("weather in Paris, France")
    ['weather in Paris, France']
    """
    # Quoted text hides behind NUL-delimited placeholders while the request is cut; a NUL of
    # the request's own would pass for one of them, and says nothing about what is asked.
    request = request.replace("\x00", " ")
    if not may_have_several_needs(request):
        return [_LEADING_JOINERS.sub("", request).strip(" ,.") or request]
    return _split_several(request)


def _split_several(request: str) -> list[str]:
    """`split_needs` for a request, with no NUL, that may have several needs."""
    quoted: list[str] = []

    def hide(match: re.Match[str]) -> str:
        quoted.append(match.group())
        return f"\x00{len(quoted) - 1}\x00"

    masked = _QUOTED.sub(hide, request)
    pieces = _STEP_BREAKS.split(masked) if _may_have_step_breaks(masked) else [masked]
    steps = [step for step in pieces if step and step.strip()]
    needs: list[str] = []
    for step in steps:
        needs += _clauses(step)
    needs = _joined_short(needs)
    if len(needs) > MAX_NEEDS:
        needs = [*needs[: MAX_NEEDS - 1], " ".join(needs[MAX_NEEDS - 1 :])]

    def unhide(text: str) -> str:
        return _PLACEHOLDER.sub(lambda match: quoted[int(match.group(1))], text)

    cleaned = [unhide(_LEADING_JOINERS.sub("", need).strip(" ,.")) for need in needs]
    return [need for need in cleaned if need] or [request]


def may_have_several_needs(request: str) -> bool:
    """False when `request` asks for one thing for certain, as most requests do: then
    `split_needs` answers with the request alone, without the full split. A quick look for
    step breaks, and for a comma or "and" followed by an action word (counting the words
    that quotes would hide: hiding takes breaks away, never adds one)."""
    return _may_have_step_breaks(request) or not ACTION_WORDS.isdisjoint(
        map(str.casefold, _CLAUSE_NEXT_WORD.findall(request))
    )


def is_step_list(needs: Sequence[str]) -> bool:
    """Whether every need opens with an action word: a list of steps ("find the sales files,
    make a chart of the totals, write a PDF report"), rather than a request with a sentence
    of details or a question beside its need ("... today is 2023.10.1")."""
    return all(map(_opens_with_action, needs))


def _opens_with_action(text: str) -> bool:
    return _first_word(text) in ACTION_WORDS


def _first_word(text: str) -> str:
    """The first word of `text`, casefolded; empty without one."""
    first = _WORD.search(text)
    return first.group().casefold() if first is not None else ""


def _may_have_step_breaks(text: str) -> bool:
    """False when `text` has no step break for certain; a quick look for what each holds."""
    if not text.isascii():
        return True  # case-insensitive matching knows more letters than `str.lower` does
    lowered = text.lower()
    return (
        "\n" in text
        or ";" in text
        or any(word in lowered for word in _STEP_WORDS)
        or _SENTENCE_END.search(text) is not None
    )


def _clauses(step: str) -> list[str]:
    """A step cut where a comma or "and" is followed by an action word, but not after a first
    clause of context ("In the browser, go to...")."""
    # With its group, the split keeps each separator between the pieces it separated.
    pieces = _CLAUSE_BREAKS.split(step)
    clauses = [pieces[0]]
    context = _first_word(pieces[0]) in CONTEXT_OPENERS
    for separator, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        action = _opens_with_action(piece)
        if action and not context:
            clauses.append(piece)
        else:
            context = context and not action
            clauses[-1] += separator + piece  # not a new step: the text as it was
    return clauses


def _joined_short(pieces: list[str]) -> list[str]:
    """Pieces too short to be a need joined to the piece before them (or after, first)."""
    joined: list[str] = []
    for piece in pieces:
        if joined and not (_is_need(piece) and _is_need(joined[-1])):
            joined[-1] = f"{joined[-1]} {piece}"
        else:
            joined.append(piece)
    return joined


def _is_need(piece: str) -> bool:
    """Whether a piece has words enough to be a need of its own."""
    text = _PLACEHOLDER.sub(" quoted ", _LEADING_JOINERS.sub("", piece))
    words = _WORD.findall(text)
    if len(words) >= MIN_NEED_WORDS or len(_CJK_CHARACTER.findall(text)) >= MIN_CJK_NEED_CHARACTERS:
        return True
    return len(words) >= MIN_ACTION_NEED_WORDS and words[0].casefold() in ACTION_WORDS
