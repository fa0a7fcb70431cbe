"""A small table of the verbs and nouns tool names and requests use for the same thing.

Written from how APIs name operations (CRUD verbs, messaging, scheduling, media), not from any
benchmark's queries. Synonym matches score below exact ones (`BM25Options.synonym_weight`).
"""

from __future__ import annotations

from collections.abc import Iterable

from toolscout.search.analysis import Analyzer

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    # Each group holds words of one sense. A word of several senses joins a group for each
    # (`fetch` retrieves, and `download`s), and two words in no group together are not
    # synonyms, though both are synonyms of a third: `list` is `show`, `show` is `view`, but a
    # tool that lists is not one that fetches. Words that tool text mostly uses as nouns of
    # another sense are left out: a `query` to run, a sort `order`, an `end` time, an email
    # `address`, a `text` field, a `test`.
    # verbs
    ("create", "add", "new", "make", "insert", "generate", "register"),
    ("delete", "remove", "erase", "destroy", "drop", "discard"),
    ("get", "fetch", "retrieve", "obtain"),
    ("read", "retrieve", "view"),
    ("show", "display", "view", "list"),
    ("download", "fetch"),
    ("download", "export"),
    ("update", "edit", "set", "modify", "change", "alter", "patch"),
    ("send", "post", "notify", "dispatch", "publish", "deliver"),
    ("find", "search", "lookup", "locate", "look"),
    ("calculate", "compute", "evaluate", "determine", "estimate"),
    ("run", "execute", "invoke", "launch", "start", "trigger"),
    ("stop", "halt", "terminate", "kill", "abort"),
    ("cancel", "abort"),
    ("book", "reserve"),
    ("schedule", "plan", "arrange"),
    ("buy", "purchase"),
    ("convert", "transform"),
    ("upload", "attach"),
    ("check", "verify", "validate"),
    # Phrasal verbs are one word by then (`PHRASAL_COMPOUNDS`): "sign in" is `signin`.
    ("login", "signin", "logon"),
    ("logout", "signout", "logoff"),
    ("signup", "register"),
    ("play", "stream"),
    ("save", "write", "store"),
    # nouns
    ("email", "mail", "e-mail", "inbox"),
    ("message", "chat", "dm"),
    ("user", "account", "profile", "member", "person"),
    ("file", "document", "doc"),
    ("presentation", "slides", "slide deck", "slideshow", "powerpoint", "ppt"),
    ("image", "picture", "photo"),
    ("movie", "film"),
    ("song", "music", "tune"),
    ("car", "vehicle", "automobile"),
    ("price", "cost", "fee"),
    ("weather", "forecast", "temperature"),
    ("location", "place"),
    ("meeting", "event", "appointment"),
    ("calendar", "agenda"),
    ("alert", "warning"),
    ("ticket", "issue", "bug"),
    ("directory", "folder"),
    ("doctor", "physician"),
    ("stock", "share", "equity"),
    ("url", "link", "web page", "webpage"),
    ("website", "site"),
    ("repository", "repo"),
    ("database", "db"),
    # Abbreviations that prefix matching cannot complete: "pr" does not begin "pull request",
    # nor "msg" "message".
    ("pull request", "pr", "merge request"),
    ("message", "msg"),
    ("image", "img"),
    ("kubernetes", "k8s"),
    ("time zone", "timezone", "tz"),
)


def synonym_table(
    analyzer: Analyzer, groups: Iterable[Iterable[str]] = SYNONYM_GROUPS
) -> dict[str, tuple[str, ...]]:
    """Index term → the other index terms of its groups, analysed like tool text, in the
    order the groups name them (a set's order would change from one process to the next,
    and with it the order of a hit's matched terms)."""
    table: dict[str, dict[str, None]] = {}
    for group in groups:
        terms = [term for word in group for term in _entry_terms(analyzer, word)]
        for term in terms:
            table.setdefault(term, {}).update(
                dict.fromkeys(other for other in terms if other != term)
            )
    return {term: tuple(others) for term, others in table.items()}


def _entry_terms(analyzer: Analyzer, entry: str) -> list[str]:
    """The index terms of one entry of a group: a word's, or for two words ("web page") the
    word pair the index holds for them."""
    if " " in entry.strip():
        terms = analyzer.terms(entry)
        return [" ".join(terms)] if len(terms) == 2 else []
    # One-letter pieces ("e" of "e-mail") would make every such letter a synonym.
    return [term for term in analyzer.terms(entry) if len(term) > 1]
