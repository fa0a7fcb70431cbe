"""How requests speak of messages, in words that mislead a ranking.

- English makes verbs of the ways a message travels ("email the plan to Dana", "text Bob",
  "message the team"). Tools name the act, `send_email`, `send_message`, while the e-mail
  tools that read, flag or archive say "email" as often as the one that sends.
  `with_send_words` puts "send" before each such verb.
- An e-mail address names a person or a team, not a tool: "email the numbers to
  finance@example.com" is no request for finance data. `without_addresses` says "email"
  instead of each address.
- A "#name" is where chat messages go ("post it in #ops", "what is new in #support"), and
  chat tools say "channel", a word such requests leave out. `with_channel_words` adds it.

Every engine but regex ranks the request as these leave it.
"""

from __future__ import annotations

import re

#: Ways a message travels that English uses as verbs: "send" is what they ask of a tool.
SENDING_VERBS: frozenset[str] = frozenset(
    "email e-mail mail message text dm sms tweet".split()  # noqa: SIM905
)

# A verb starts a clause: the request's start, a punctuation mark, or a word that comes before
# an action ("and", "then", "please", "to", "can you"...). Elsewhere the word is a noun ("the
# email of a customer", "extract text").
_BEFORE_VERB = frozenset(
    "and then also please to you can could will would should must i".split()  # noqa: SIM905
)
# Who or what is sent follows the verb: a pronoun, a determiner, or a name. "email address",
# "text file" and "message history" are nouns.
_AFTER_VERB = frozenset(
    """me myself him her them us it you everyone everybody all the a an my our your his their
    its this that these those each every""".split()  # noqa: SIM905
)
_VERB = re.compile(
    r"\b(?:" + "|".join(sorted(SENDING_VERBS, key=len, reverse=True)) + r")\s+(\w+)",
    re.IGNORECASE,
)
# The verbs that hold no other ("e-mail" holds "mail"): a request holding none of them has no
# sending verb, which a substring check tells before any pattern is tried.
_VERB_STEMS = tuple(
    sorted(
        verb for verb in SENDING_VERBS if not any(o != verb and o in verb for o in SENDING_VERBS)
    )
)
# A request that names its "#name"s already: as channels, or as tags (a social network's
# hashtags, a note's tags).
_CHANNEL_OR_TAG_WORD = re.compile(r"\b(?:channels?|(?:hash)?tag(?:s|ged)?)\b", re.IGNORECASE)
# "#" and a name as chat services spell channels (ASCII letters first, then letters, digits, "-"
# and "_"), after no word character, "&" or "#".
_CHANNEL_NAME = re.compile(r"(?<![\w&#])#[A-Za-z][A-Za-z0-9_-]*")
_HEX_COLOUR = re.compile(r"#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})", re.IGNORECASE)
_PREVIOUS_WORD = re.compile(r"(\w+)\W*$")
_LOOK_BACK = 24
# An e-mail address, starting where a run of its characters starts (so a long run without
# "@" is read once), and not the user@host of an ssh remote or URL (`git@github.com:org/repo`).
_ADDRESS = re.compile(
    r"(?<![\w.+%-])[\w.+%-]+@[^\W_](?:[\w-]*[^\W_])?(?:\.[^\W_](?:[\w-]*[^\W_])?)*"
    r"\.[^\W\d_]{2,}(?![\w@:/-]|\.\w)"
)


def without_addresses(request: str) -> str:
    """`request` with "email" for each e-mail address in it ("send it to finance@example.com"
    → "send it to email"); the request itself when it has none."""
    if "@" not in request:
        return request
    return _ADDRESS.sub("email", request)


def with_send_words(request: str) -> str:
    """`request` with "send" before each message named as a verb ("email her the list" →
    "send email her the list"); the request itself when it has none."""
    lowered = request.lower()
    if not any(verb in lowered for verb in _VERB_STEMS):  # most requests: a few C scans
        return request
    pieces: list[str] = []
    done = 0
    for match in _VERB.finditer(request):
        verb_start, following = match.start(), match.group(1)
        if not (following.lower() in _AFTER_VERB or following[0].isupper()):
            continue
        # What comes just before is enough (the longest word of `_BEFORE_VERB` and some
        # space), and reading no further keeps a request of many verbs linear.
        before = request[max(0, verb_start - _LOOK_BACK) : verb_start].rstrip()
        previous = _PREVIOUS_WORD.search(before)
        if before and not (
            before[-1] in ",;:.!?\n(" or (previous and previous.group(1).lower() in _BEFORE_VERB)
        ):
            continue
        pieces += [request[done:verb_start], "send "]
        done = verb_start
    if not pieces:
        return request
    pieces.append(request[done:])
    return "".join(pieces)


def with_channel_words(request: str) -> str:
    """`request` with "channel" after each "#name" in it ("post it in #ops" → "post it in #ops
    channel"); the request itself when it has none, says "channel" already, or calls its
    "#name"s tags ("my notes tagged #recipes", "tweets with the hashtag #ai"). A "#" after a
    word or "&" (`C#`, a URL's `page#part`, `&#39;`), before a number (an issue, `#42`) or in
    a colour (`#ff0000`) names no channel."""
    if "#" not in request or _CHANNEL_OR_TAG_WORD.search(request):
        return request
    return _CHANNEL_NAME.sub(_with_channel_word, request)


def _with_channel_word(match: re.Match[str]) -> str:
    name = match.group()
    return name if _HEX_COLOUR.fullmatch(name) else f"{name} channel"
