"""Text analysis for tool text: identifiers, Unicode, stopwords, stems, CJK.

Tool text mixes prose with identifiers (`sendSlackMessage`, `get_current_weather`, `v2-api`,
`math.factorial`). An identifier yields its parts (`send`, `slack`, `messag`) for matching
prose, and the whole identifier too, so that a query naming the tool exactly ranks it first.

Chinese, Japanese and Korean text has no spaces between words, so a run of their characters
yields each character and each two adjacent characters (`查询天气` → 查, 询, 天, 气, 查询, 询天,
天气): a query and a tool that share a word share its characters and their pairs, without a
dictionary, in every one of the three scripts.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

import Stemmer

# Distinct chunks remembered per analyzer; bounded because queries are user input.
_CACHE_LIMIT = 500_000

#: Longest text analysed per field: bounds the cost of a 1 MB description, and a stuffed
#: description gains nothing past it.
MAX_FIELD_CHARS = 20_000

# A chunk of word characters, possibly joined by the separators identifiers use. An English
# clitic stays on its word (don't, user's), so contractions meet the stopwords and leave no
# one-letter "t" or "s" term behind.
_CHUNK = re.compile(r"\w+(?:['\u2019](?:s|t|d|m|ll|re|ve)(?!\w))?(?:[._\-/:]\w+)*", re.IGNORECASE)
_SEPARATOR = re.compile(r"[._\-/:]+")
_SEPARATOR_CHARACTERS = frozenset("._-/:")
# camelCase and PascalCase boundaries: sendSlackMessage -> send|Slack|Message, HTTPServer ->
# HTTP|Server, getV2Data -> get|V2|Data; ipv4 and v2 stay whole, keeping versions intact.
_CASE_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_LATIN_ACCENTS = re.compile(r"(?<=[A-Za-z])[\u0300-\u036f]+")
#: English phrasal verbs that tools write as one word: "log in" is `login`, "set up" `setup`.
#: Joined in tool text and requests alike, whatever the verb's ending ("signed up", "backing
#: up"), so "log in to GitHub" finds a `login` tool and not every tool that writes logs, and
#: "back up the database" a `backup` tool. Left out are joins whose words mostly mean something
#: else in a request: to "check in" or "check out" a file is to look at it, to "work out" a sum
#: is no `workout`, a "time out" of the day no `timeout`.
PHRASAL_COMPOUNDS: frozenset[str] = frozenset(
    """backup breakdown cleanup cutoff dropdown fallback followup handoff layout login logoff
    logon logout lookup payout pickup playback popup rollback rollout setup shutdown signin signoff
    signout signup teardown walkthrough""".split()  # noqa: SIM905
)
_PARTICLES = frozenset({"in", "on", "up", "out", "down", "off", "back", "through"})
# "log into" and "log onto" are "log in" and "log on".
_PARTICLE_OF = {"into": "in", "onto": "on"} | {particle: particle for particle in _PARTICLES}
# The verbs of `PHRASAL_COMPOUNDS` in their regular forms (log, logs, logged, logging), as
# written in lower case, capitalised or in capitals: most texts have none of them, and then no
# phrasal verb to look for. A look-up of each word as it is, without casefolding it first.
_PHRASAL_VERB_FORMS = frozenset(
    written
    for compound in PHRASAL_COMPOUNDS
    for particle in _PARTICLES
    if compound.endswith(particle)
    for verb in (compound.removesuffix(particle),)
    for ending in ("", "s", "ed", "ing", verb[-1] + "ed", verb[-1] + "ing")
    for written in (verb + ending, (verb + ending).capitalize(), (verb + ending).upper())
)
# A word, then a particle ("log in", "signed up"); possessive, so a word that is not followed
# by one is given up at once.
_PHRASAL_VERB = re.compile(
    rf"(?<![A-Za-z])([A-Za-z]++)\s++({'|'.join(sorted(_PARTICLE_OF))})(?![A-Za-z])",
    re.IGNORECASE,
)
# Stems that Snowball gives words of unrelated senses, and the stem of the words of the sense
# that tools name apart: an animation is no animal, an experiment no experience, a presentation
# (slides) is not what "present" mostly says in tool text (a value present or not), a position
# is not positive.
_SENSE_STEMS = {
    "anim": "animat",
    "experi": "experiment",
    "present": "presentat",
    "posit": "position",
}
#: Han ideographs, kana and Hangul, as a character class: scripts written without spaces
#: between words.
CJK_CHARACTERS = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
)
#: A run of Chinese, Japanese or Korean characters.
CJK_RUN = re.compile(f"[{CJK_CHARACTERS}]+")
_CJK_SPLIT = re.compile(f"([{CJK_CHARACTERS}]+)")

#: Single characters of Chinese and Japanese that carry no meaning about a tool (particles,
#: pronouns, "please"): never terms on their own, though the pairs they are part of are.
CJK_STOPWORDS: frozenset[str] = frozenset(
    "的了是在和与及或把被我你他她它们这那吗呢吧啊个之也就都而请帮给对从到于为以のはをにがでともへや"
)

#: English function words that carry no meaning about what a tool does. Verbs tools are
#: named after (get, set, list, show, make, find, call...) are deliberately absent.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    please let lets i'd i'm i've you're it's can't don't also would like want need""".split()  # noqa: SIM905
)


class QueryTerm(NamedTuple):
    """A query word and the index term it becomes (a named tuple: queries make many)."""

    word: str
    """The word as typed, casefolded (or a whole identifier)."""
    term: str
    """The analysed term (stemmed), as stored in the index."""


class Analyzer:
    """Turns text into index terms. One instance per index; caches per distinct word."""

    def __init__(self, language: str = "english", *, stopwords: Iterable[str] | None = None):
        self.language = language
        self.stopwords = frozenset(ENGLISH_STOPWORDS if stopwords is None else stopwords)
        # No PyStemmer cache (size 0): `_stems` is the cache, and each word reaching the stemmer
        # is new, which PyStemmer's own cache only slows down.
        self._stemmer = Stemmer.Stemmer(language, 0)
        self._stems: dict[str, str] = {}
        self._chunk_cache: dict[str, tuple[QueryTerm, ...]] = {}
        self._chunk_terms_cache: dict[str, tuple[str, ...]] = {}

    def terms(self, text: str) -> list[str]:
        """The index terms of `text`, in order, with repeats (term frequency counts)."""
        # The indexing hot path: same result as `query_terms`, without building QueryTerms.
        chunks = self._chunks(text)
        analysed = list(map(self._chunk_terms_cache.get, chunks))  # most are known: one C pass
        if None in analysed:
            analysed = [
                self._terms_of_chunk(chunk) if terms is None else terms
                for chunk, terms in zip(chunks, analysed, strict=True)
            ]
        return list(itertools.chain.from_iterable(analysed))  # type: ignore[arg-type]

    def query_terms(self, text: str) -> list[QueryTerm]:
        """Words of `text` with their index terms, in order, with repeats."""
        chunks = self._chunks(text)
        analysed = list(map(self._chunk_cache.get, chunks))
        if None in analysed:
            analysed = [
                self._query_terms_of_chunk(chunk) if terms is None else terms
                for chunk, terms in zip(chunks, analysed, strict=True)
            ]
        return list(itertools.chain.from_iterable(analysed))  # type: ignore[arg-type]

    def _chunks(self, text: str) -> list[str]:
        """The words and identifiers of `text`, each phrasal verb one word ("log in" → `login`,
        see `PHRASAL_COMPOUNDS`)."""
        text = normalize(text[:MAX_FIELD_CHARS])
        chunks: list[str] = _CHUNK.findall(text)
        if self.language == "english" and not _PHRASAL_VERB_FORMS.isdisjoint(chunks):
            chunks = _CHUNK.findall(_PHRASAL_VERB.sub(self._phrasal_compound, text))
        return chunks

    def phrasal_compound(self, verb: str, particle: str) -> str | None:
        """The word of `PHRASAL_COMPOUNDS` that `verb` and `particle` make ("signed", "up" →
        `signup`), if they make one."""
        particle = _PARTICLE_OF.get(particle.casefold(), "")
        if self.language != "english" or not particle:
            return None
        compound = self._term(verb.casefold()) + particle
        return compound if compound in PHRASAL_COMPOUNDS else None

    def _phrasal_compound(self, match: re.Match[str]) -> str:
        return self.phrasal_compound(*match.groups()) or match.group()

    def _terms_of_chunk(self, chunk: str) -> tuple[str, ...]:
        terms = tuple(query_term.term for query_term in self._query_terms_of_chunk(chunk))
        if len(self._chunk_terms_cache) < _CACHE_LIMIT:
            self._chunk_terms_cache[chunk] = terms
        return terms

    def _query_terms_of_chunk(self, chunk: str) -> tuple[QueryTerm, ...]:
        cached = self._chunk_cache.get(chunk)
        if cached is None:
            cached = self._analyse_chunk(chunk)
            if len(self._chunk_cache) < _CACHE_LIMIT:
                self._chunk_cache[chunk] = cached
        return cached

    def stem(self, word: str) -> str:
        """The stem of one casefolded word."""
        stem = str(self._stemmer.stemWord(word))
        # A word of another sense than the rest of its stem's words keeps a stem of its own.
        sense = _SENSE_STEMS.get(stem) if self.language == "english" else None
        return sense if sense is not None and word.startswith(sense) else stem

    def _analyse_chunk(self, chunk: str) -> tuple[QueryTerm, ...]:
        if not chunk.isascii() and CJK_RUN.search(chunk):
            return self._analyse_mixed_chunk(chunk)
        if chunk.isalnum() and (chunk.islower() or _CASE_BOUNDARY.search(chunk) is None):
            # Most chunks are one plain word: no separator, apostrophe or case boundary.
            word = chunk.casefold()
            return () if word in self.stopwords else (QueryTerm(word, self._term(word)),)
        parts = [
            part.casefold()
            for piece in _SEPARATOR.split(chunk.replace("\u2019", "'"))
            # Most pieces are plain lowercase words with no case boundary to find.
            for part in ((piece,) if piece.islower() else _CASE_BOUNDARY.split(piece))
        ]
        parts = [p for p in parts if p]
        words = self._with_phrasal_verbs_joined(parts)
        terms = [
            QueryTerm(p, self._term(p.split("'")[0]))  # user's -> user
            for p in words
            if p not in self.stopwords and p.split("'")[0] not in self.stopwords
        ]
        whole = chunk.casefold()
        if len(parts) > 1 and words != [whole]:  # `logIn` is the one word `login`
            terms.append(QueryTerm(whole, whole))
        return tuple(terms)

    def _with_phrasal_verbs_joined(self, parts: list[str]) -> list[str]:
        """The parts of an identifier, each phrasal verb one part (`sign_up`, `logIn`)."""
        joined: list[str] = []
        for part in parts:
            if (
                joined
                and part in _PARTICLE_OF
                and (compound := self.phrasal_compound(joined[-1], part))
            ):
                joined[-1] = compound
            else:
                joined.append(part)
        return joined

    def _analyse_mixed_chunk(self, chunk: str) -> tuple[QueryTerm, ...]:
        """A chunk with CJK characters: each CJK run as characters and pairs of them, the
        rest (`API` of `天气API`, `get` of `get_天气`) as any other chunk."""
        terms: list[QueryTerm] = []
        for position, piece in enumerate(_CJK_SPLIT.split(chunk)):
            if position % 2:  # the runs of CJK characters are the odd pieces
                terms += [QueryTerm(c, c) for c in piece if c not in CJK_STOPWORDS]
                pairs = map("".join, itertools.pairwise(piece))
                terms += [QueryTerm(pair, pair) for pair in pairs]
            elif piece := piece.strip("._-/:'\u2019"):
                terms += self._analyse_chunk(piece)
        return tuple(terms)

    def _term(self, word: str) -> str:
        if word.isdigit():
            return word
        stem = self._stems.get(word)
        if stem is None:
            stem = self.stem(word)
            if len(self._stems) < _CACHE_LIMIT:
                self._stems[word] = stem
        return stem


def identifier_words(identifier: str) -> list[str]:
    """The words of an identifier, case kept: `sendSlackMessage` → `send Slack Message`,
    `get_current_weather` → `get current weather`, `math.factorial` → `math factorial`."""
    if identifier.islower():  # no capital letter: no case boundary to look for
        return [part for part in _SEPARATOR.split(identifier) if part]
    return [
        part
        for piece in _SEPARATOR.split(identifier)
        for part in _CASE_BOUNDARY.split(piece)
        if part
    ]


def single_words(query_terms: Iterable[QueryTerm], *, ascii_only: bool = False) -> list[QueryTerm]:
    """The query terms that are words, not whole identifiers (`get_current_weather`,
    `v2-api`) nor CJK characters, in order with repeats: the words that pair up, as
    `word_pairs` pairs them. `ascii_only` says the terms come from ASCII text, which has no
    CJK characters to leave out."""
    words = [query_term for query_term in query_terms if _no_separator(query_term.term)]
    if not ascii_only and not "".join([query_term.term for query_term in words]).isascii():
        words = [query_term for query_term in words if not is_cjk(query_term.term)]
    return words


def word_pairs(terms: Sequence[str]) -> list[str]:
    """Each two adjacent terms as one `"first second"` term, skipping whole identifiers
    (their parts are already in the sequence) and CJK characters (paired already):
    `current weather`, `area triangl`."""
    words = [term for term in terms if _no_separator(term)]
    if not "".join(words).isascii():  # one pass in C: most tool text is ASCII
        words = [term for term in words if not is_cjk(term)]
    return [f"{first} {second}" for first, second in itertools.pairwise(words)]


_no_separator = _SEPARATOR_CHARACTERS.isdisjoint  # a whole identifier keeps its separators


def is_cjk(term: str) -> bool:
    """Whether an analysed term is made of CJK characters (one, or a pair)."""
    return not term.isascii() and CJK_RUN.match(term) is not None


def normalize(text: str) -> str:
    """NFKC, with accents dropped from Latin letters (café → cafe), other scripts intact."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", _LATIN_ACCENTS.sub("", decomposed))


@lru_cache(maxsize=8)
def default_analyzer(language: str = "english") -> Analyzer:
    """A shared analyzer per language (analyzers are stateless but for their caches)."""
    return Analyzer(language)


def highlight_spans(
    text: str, index_terms: Iterable[str], analyzer: Analyzer | None = None
) -> list[tuple[int, int]]:
    """Character spans of the words in `text` that analyse to one of `index_terms`.

    For highlighting matched terms (`MatchedTerm.index_term`) in a tool's name or description.
    A word matches when any of its analysed terms does: `getWeather` is highlighted whole
    for a match on `weather`.
    """
    wanted = set(index_terms)
    if not wanted:
        return []
    analyzer = analyzer or default_analyzer()
    # A phrasal verb is one term ("Log in" is `login`): its words are highlighted together,
    # or not at all. An identifier holding one (`user_log_in`) is a word like any other.
    compounds = [
        (match.span(), compound)
        for match in _PHRASAL_VERB.finditer(text)
        if (compound := analyzer.phrasal_compound(*match.groups()))
    ]
    word_spans = [
        match.span()
        for match in _CHUNK.finditer(text)
        if not any(_within(match.span(), span) for span, _ in compounds)
        and not wanted.isdisjoint(analyzer.terms(match.group()))
    ]
    phrasal_spans = [
        span
        for span, compound in compounds
        if not wanted.isdisjoint(analyzer.terms(compound))
        and not any(_within(span, word_span) for word_span in word_spans)
    ]
    return sorted(word_spans + phrasal_spans)


def _within(span: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1]
