"""The `Embedder` protocol: what semantic search asks of whatever turns texts into vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt


class Embedder(Protocol):
    """Turns texts into vectors; semantic search compares them by cosine similarity.

    Two attributes are optional, for models unlike all-MiniLM-L6-v2 (`MultilingualEmbedder`
    has both): `embed_queries(texts)`, for a model that embeds queries otherwise than the
    texts they are compared with, and `cosine_range`, the cosine similarities that a
    normalized score maps to 0 (unrelated texts) and 1, `(0.1, 0.8)` if absent.
    """

    @property
    def model_id(self) -> str:
        """Names the model and anything else that changes the vectors: the embedding cache
        keys vectors by it, so two embedders with the same id must give the same vectors."""
        ...

    @property
    def dimension(self) -> int:
        """The length of each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One vector per text, in order: an array of shape `(len(texts), dimension)`."""
        ...


def is_embedder(candidate: object) -> bool:
    """Whether `candidate` has what the `Embedder` protocol asks, checked without reading its
    properties (an embedder may find its `dimension` by embedding a text)."""
    kind = type(candidate)
    attributes = getattr(candidate, "__dict__", {})
    return callable(getattr(candidate, "embed", None)) and all(
        hasattr(kind, name) or name in attributes for name in ("model_id", "dimension")
    )
