"""Questions ask to read: "what numbers are in the Summary sheet" wants `read_range`, not
`write_range`, which says "range" and "sheet" as well.

A request that opens with a question word and says no verb of change asks for something to
be read, found or worked out. A tool's name says what it does with its first verb:
`get_post_comments` reads, `slack_post_message` changes something. BM25, and hybrid search on
its fused score, score the tools that change something at
`BM25Options.question_change_weight` of their score for such a question.
"""

from __future__ import annotations

import re

#: Words that open a question. Not "can", "could", "would" nor "will", which open requests
#: ("could you book a table"), nor "do" and "have", which open orders ("do a web search").
QUESTION_WORDS: frozenset[str] = frozenset(
    "what which who whom whose where when why how is are was were does did".split()  # noqa: SIM905
)

#: Verbs by which a tool's name says it reads, finds or works something out.
READING_VERBS: frozenset[str] = frozenset(
    """get fetch retrieve obtain read view show display list find search lookup locate look
    check verify validate calculate compute describe count query browse""".split()  # noqa: SIM905
)

#: Verbs by which a request asks for a change, or a tool's name says it makes one.
CHANGING_VERBS: frozenset[str] = frozenset(
    """create add insert make generate register delete remove erase destroy drop discard
    update edit modify change alter set patch put send post notify dispatch publish deliver
    save write store upload attach move rename append replace clear cancel book reserve
    schedule buy purchase order invite share assign subscribe run execute launch start trigger
    stop halt terminate kill abort play submit commit merge push close archive reply
    forward""".split()  # noqa: SIM905
)

#: Question words that ask what happened: "did I send the invoice" asks to read the sent mail.
PAST_QUESTION_WORDS: frozenset[str] = frozenset({"did", "was", "were"})

_FIRST_WORD = re.compile(r"[\W\d_]*+([^\W\d_]+)")
_WORD = re.compile(r"[^\W\d_]+")


def asks_to_read(request: str) -> bool:
    """Whether `request` is a question that asks for no change: it opens with a question
    word, and asks what happened ("did I send the invoice") or says none of
    `CHANGING_VERBS` as such. A changing verb in another form is a question about changes
    ("who changed what", "which tickets are assigned to me", "what is running") or a noun
    ("the last ten commits"), not a request for one.

    >>> asks_to_read("who changed what over the last ten commits")
    True
    >>> asks_to_read("how do I delete a branch")
    False
    """
    first = _FIRST_WORD.match(request)
    opening = first.group(1).casefold() if first is not None else ""
    if opening not in QUESTION_WORDS:
        return False
    return opening in PAST_QUESTION_WORDS or CHANGING_VERBS.isdisjoint(
        _WORD.findall(request.casefold())
    )
