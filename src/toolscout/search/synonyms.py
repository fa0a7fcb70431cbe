"""A small table of the verbs and nouns tool names and requests use for the same thing.

Written from how APIs name operations (CRUD verbs, messaging, scheduling, media), not from any
benchmark's queries. Synonym matches score below exact ones (`BM25Options.synonym_weight`).
"""

from __future__ import annotations

from collections.abc import Iterable

from toolscout.search.analysis import Analyzer

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    # verbs
    ("create", "add", "new", "make", "insert", "generate", "register"),
    ("delete", "remove", "erase", "destroy", "drop", "discard"),
    ("get", "fetch", "read", "list", "show", "retrieve", "obtain", "display", "view"),
    ("update", "edit", "set", "modify", "change", "alter", "patch"),
    ("send", "post", "notify", "dispatch", "publish", "deliver"),
    ("find", "search", "lookup", "query", "locate", "look"),
    ("calculate", "compute", "evaluate", "determine", "estimate"),
    ("run", "execute", "invoke", "launch", "start", "trigger"),
    ("stop", "halt", "terminate", "kill", "end", "cancel"),
    ("book", "reserve", "schedule"),
    ("buy", "purchase", "order"),
    ("convert", "transform", "translate"),
    ("upload", "attach"),
    ("download", "export"),
    ("check", "verify", "validate", "test"),
    ("play", "stream"),
    # nouns
    ("email", "mail", "e-mail", "inbox"),
    ("message", "chat", "dm", "text"),
    ("user", "account", "profile", "member", "person"),
    ("file", "document", "doc"),
    ("image", "picture", "photo"),
    ("movie", "film"),
    ("song", "music", "track"),
    ("car", "vehicle", "auto"),
    ("price", "cost", "fee", "rate"),
    ("weather", "forecast", "temperature"),
    ("location", "place", "address"),
    ("meeting", "event", "appointment"),
    ("calendar", "agenda"),
    ("ticket", "issue", "bug"),
    ("directory", "folder"),
    ("doctor", "physician"),
    ("stock", "share", "equity"),
)


def synonym_table(
    analyzer: Analyzer, groups: Iterable[Iterable[str]] = SYNONYM_GROUPS
) -> dict[str, tuple[str, ...]]:
    """Index term → the other index terms of its groups, analysed like tool text, in the
    order the groups name them (a set's order would change from one process to the next,
    and with it the order of a hit's matched terms)."""
    table: dict[str, dict[str, None]] = {}
    for group in groups:
        # One-letter pieces ("e" of "e-mail") would make every such letter a synonym.
        terms = [term for word in group for term in analyzer.terms(word) if len(term) > 1]
        for term in terms:
            table.setdefault(term, {}).update(
                dict.fromkeys(other for other in terms if other != term)
            )
    return {term: tuple(others) for term, others in table.items()}
