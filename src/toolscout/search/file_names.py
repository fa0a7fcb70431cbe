"""File names in a request: a request that names a file needs a tool that works on files.

"Write a comparison to compare.md" or "show me what's inside config.yaml" never says "file",
and the tools that write or read one say little else: `write_file`, "Read the complete
contents of a file". `with_file_words` adds the word after each file name it finds, so that
every engine but regex sees it.
"""

from __future__ import annotations

import re

#: Extensions that name a file whatever precedes them: documents, data, configuration, code,
#: images, archives. Not `js` nor `ts`, which end the names of frameworks ("Node.js").
FILE_EXTENSIONS: frozenset[str] = frozenset(
    """txt md markdown rst csv tsv json jsonl ndjson yaml yml toml ini cfg conf env log xml html
    htm pdf doc docx odt rtf xls xlsx ods ppt pptx odp epub png jpg jpeg gif svg webp bmp tiff
    mp3 wav mp4 mov py ipynb sh bash sql db sqlite parquet zip tar gz tgz 7z""".split()  # noqa: SIM905
)

# The end of a file name: a dot and an extension, then neither more of a word nor another
# extension (`notes.md`, `q3.final.PDF`, not `x.mdx` nor `notes.md-draft`). Starting with the
# dot lets the scan jump from dot to dot: a request that names no file costs a microsecond.
_NAME_END = re.compile(
    r"\.(?:" + "|".join(sorted(FILE_EXTENSIONS, key=len, reverse=True)) + r")(?![\w@-]|\.\w)",
    re.IGNORECASE,
)
# What a file name or path is made of besides letters and digits, read back from its dot.
_NAME_PUNCTUATION = frozenset("_~/.-")


def with_file_words(request: str) -> str:
    """`request` with "file" after each file name in it ("save it to notes.md" → "save it to
    notes.md file"); the request itself when it names none. A name in an e-mail address
    (`ann@notes.md`) is not a file's."""
    pieces: list[str] = []
    done = 0  # where the request is copied up to
    examined = 0  # where the last name read back ends
    in_address = False
    for match in _NAME_END.finditer(request):
        start = match.start()
        if start == 0 or not (request[start - 1].isalnum() or request[start - 1] == "_"):
            continue  # a bare extension, or a sentence's end
        # Read the name back from its dot, no further than the last name read: one that
        # reaches it is part of the same run of characters (`a.md/b.md`), with its verdict.
        # Each character is read once, however many names a hostile request strings together.
        while start > examined and (
            request[start - 1].isalnum() or request[start - 1] in _NAME_PUNCTUATION
        ):
            start -= 1
        if start != examined or examined == 0:
            in_address = start > 0 and request[start - 1] == "@"
        examined = match.end()
        if in_address:
            continue
        pieces += [request[done : match.end()], " file"]
        done = match.end()
    if not pieces:
        return request
    pieces.append(request[done:])
    return "".join(pieces)
