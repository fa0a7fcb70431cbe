"""A BERT sentence encoder run by onnxruntime: what `LocalEmbedder` runs, with no
deep-learning framework.

The forward pass of a sentence-transformers BERT model (all-MiniLM-L6-v2 by default) is built
as an ONNX graph from the weights of `model.safetensors` (`toolscout.search._bert_graph`) and
run by onnxruntime on the CPU; text is tokenised by `tokenizers`. Nothing is ever fetched. The
vectors equal those of sentence-transformers on torch to within float32 rounding.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError
from toolscout.search._bert_graph import SENTENCE_VECTORS, TOKEN_IDS, TOKEN_MASK, build_graph
from toolscout.search._bert_model import ModelConfig, read_safetensors

_Array = npt.NDArray[np.float32]

# A batch holds texts of at most this many times its shortest text's tokens: the rest of a
# batch is padded to its longest text, and padding is computed like any token.
_MAX_PADDING_RATIO = 2


_encoders_lock = threading.Lock()
_encoders: dict[tuple[Path, int], BertEncoder] = {}


def load_encoder(directory: Path, threads: int) -> BertEncoder:
    """The loaded model of a directory, run on `threads` threads: loaded once per process."""
    with _encoders_lock:
        encoder = _encoders.get((directory, threads))
        if encoder is None:
            encoder = _encoders[directory, threads] = BertEncoder(directory, threads)
        return encoder


class BertEncoder:
    """A BERT encoder with sentence pooling: tokenised by `tokenizers`, weights mapped from
    `model.safetensors`, the forward pass an ONNX graph run by onnxruntime (float32)."""

    def __init__(self, directory: Path, threads: int) -> None:
        # tokenizers reads the tokenizer from the model's folder and never reaches for a hub;
        # these keep any Hugging Face library loaded later in the process offline too, unless
        # the user set them.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import onnxruntime
        from tokenizers import Tokenizer

        self.config = config = ModelConfig(directory)
        try:
            self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        except Exception as error:  # tokenizers raises plain Exceptions for a bad file
            raise EmbeddingError(
                f"{directory}: tokenizer.json is not a readable tokenizer: {error}"
            ) from None
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(config.max_tokens)
        weights = {
            key.removeprefix("bert."): value
            for key, value in read_safetensors(directory / "model.safetensors").items()
        }
        try:
            graph = build_graph(weights, config)
        except KeyError as error:
            raise EmbeddingError(f"{directory}: weight {error} is missing") from None
        # The arrays, and onnxruntime's views of them, must outlive the session, which reads
        # them in place.
        self._weights = graph.weights
        options = onnxruntime.SessionOptions()
        # Each text batch is spread over the threads. Threads that wait for work sleep
        # rather than spin: spinning made queries faster on an idle machine
        # (2.6 against 3.6 ms) but slower beside busy processes (8.8 against 6.6), and a
        # library should not burn cores between searches.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Its own log stays silent: a failure is raised as an EmbeddingError instead.
        options.log_severity_level = 4
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._initializers = {
            name: onnxruntime.OrtValue.ortvalue_from_numpy(array)
            for name, array in graph.weights.items()
        }
        options.add_external_initializers(
            list(self._initializers), list(self._initializers.values())
        )
        try:
            self._session = onnxruntime.InferenceSession(
                graph.model, options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own, unexported exception types
            raise EmbeddingError(f"{directory}: the model cannot be run: {error}") from None

    def encode(self, texts: list[str], batch_size: int) -> _Array:
        """Normalised sentence vectors of `texts`, batched by token length so that little
        padding is computed."""
        token_ids = [encoding.ids for encoding in self._tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda index: len(token_ids[index]))
        batches: list[list[int]] = []
        for index in order:
            # A text much longer than its batch's first would have it padded to its length:
            # a request and its short needs make two batches.
            if (
                batches
                and len(batches[-1]) < batch_size
                and len(token_ids[index]) <= _MAX_PADDING_RATIO * len(token_ids[batches[-1][0]])
            ):
                batches[-1].append(index)
            else:
                batches.append([index])
        out = np.empty((len(texts), self.config.hidden_size), dtype=np.float32)
        for rows in batches:
            out[rows] = self._forward([token_ids[row] for row in rows])
        return out

    def _forward(self, texts: list[list[int]]) -> _Array:
        """The pooled, normalised vectors of a batch of tokenised texts."""
        width = max(len(tokens) for tokens in texts)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.float32)
        for row, tokens in enumerate(texts):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        try:
            (vectors,) = self._session.run([SENTENCE_VECTORS], {TOKEN_IDS: ids, TOKEN_MASK: mask})
        except Exception as error:  # onnxruntime's own exception types, out of memory...
            raise EmbeddingError(
                f"the model failed on a batch of {len(texts)} texts: {error}"
            ) from None
        result: _Array = np.asarray(vectors, dtype=np.float32)
        return result
