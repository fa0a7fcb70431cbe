"""`CallableEmbedder`: any function from a list of texts to their vectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError


class CallableEmbedder:
    """Any function from a list of texts to their vectors (a list of lists, or an array).

    Args:
        function: called with a list of texts; returns one vector per text, in order.
        model_id: names what the function computes. The embedding cache keys vectors by it:
            give a new id whenever the function would give different vectors.
        dimension: the length of the vectors; `None` finds out from the first call.
    """

    def __init__(
        self,
        function: Callable[[list[str]], Any],
        *,
        model_id: str,
        dimension: int | None = None,
    ) -> None:
        if not model_id:
            raise EmbeddingError("a CallableEmbedder needs a model_id, which the cache keys by")
        self.function = function
        self._model_id = model_id
        self._dimension = dimension

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed(["dimension"])
        assert self._dimension is not None
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        try:
            vectors = np.asarray(self.function(list(texts)), dtype=np.float32)
        except (TypeError, ValueError) as error:
            raise EmbeddingError(
                f"the embedding function of {self._model_id!r} did not return numbers: {error}"
            ) from error
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbeddingError(
                f"the embedding function of {self._model_id!r} returned shape "
                f"{vectors.shape} for {len(texts)} texts; expected ({len(texts)}, dimension)"
            )
        if self._dimension is not None and vectors.shape[1] != self._dimension:
            raise EmbeddingError(
                f"the embedding function of {self._model_id!r} returned vectors of length "
                f"{vectors.shape[1]}, not {self._dimension}"
            )
        self._dimension = vectors.shape[1]
        return vectors

    def __repr__(self) -> str:
        return f"CallableEmbedder({self._model_id!r})"
