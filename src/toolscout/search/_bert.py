"""A BERT sentence encoder in numpy: what `LocalEmbedder` runs, with no deep-learning framework.

The forward pass of a sentence-transformers BERT model (all-MiniLM-L6-v2 by default):
embeddings, encoder layers of self-attention and feed-forward, then mean or CLS pooling and
normalisation. Weights are read from `model.safetensors` and text is tokenised by `tokenizers`,
so nothing beyond numpy, scipy and those two runs, and nothing is ever fetched. The vectors
equal those of sentence-transformers on torch to within float32 rounding.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError

_Array = npt.NDArray[np.float32]

# Where a padding token sits, its attention score is this: softmax gives it no weight.
_MASKED = np.float32(np.finfo(np.float32).min)

# erf(x) as a ratio of odd and even polynomials on [-4, 4] (beyond it erf is ±1 in float32),
# within 5e-7 of the exact value: Eigen's float32 erf, which PyTorch's CPU kernels also use.
# scipy's erf is exact but computes in double precision, taking half the model's time.
_ERF_NUMERATOR = tuple(
    np.float32(c)
    for c in (
        -2.72614225801306e-10,
        2.77068142495902e-08,
        -2.10102402082508e-06,
        -5.69250639462346e-05,
        -7.34990630326855e-04,
        -2.95459980854025e-03,
        -1.60960333262415e-02,
    )
)
_ERF_DENOMINATOR = tuple(
    np.float32(c)
    for c in (
        -1.45660718464996e-05,
        -2.13374055278905e-04,
        -1.68282697438203e-03,
        -7.37332916720468e-03,
        -1.42647390514189e-02,
    )
)

# Element-wise work (GELU) is split over the cores in row blocks; numpy releases the GIL for
# it, and matrix products already use every core through BLAS.
_THREADS = max(1, min(4, os.cpu_count() or 1))
_MIN_ELEMENTS_PER_THREAD = 65_536
_pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="toolscout-bert")


class ModelConfig:
    """What `LocalEmbedder` reads from a model directory before loading any weights."""

    def __init__(self, directory: Path) -> None:
        for needed in ("config.json", "model.safetensors", "tokenizer.json"):
            if not (directory / needed).exists():
                raise EmbeddingError(f"{directory} has no {needed}: not a model directory")
        try:
            config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
            pooling = _optional_json(
                directory / "1_Pooling" / "config.json", {"pooling_mode_mean_tokens": True}
            )
            sentence = _optional_json(directory / "sentence_bert_config.json", {})
        except (OSError, ValueError) as error:
            raise EmbeddingError(
                f"{directory} is not a readable model directory: {error}"
            ) from None
        if config.get("model_type") != "bert":
            raise EmbeddingError(
                f"{directory}: LocalEmbedder runs BERT-family models, not "
                f"{config.get('model_type')!r}"
            )
        if pooling.get("pooling_mode_cls_token"):
            self.pooling: Literal["mean", "cls"] = "cls"
        elif pooling.get("pooling_mode_mean_tokens"):
            self.pooling = "mean"
        else:
            raise EmbeddingError(f"{directory}: only mean or CLS pooling is supported")
        activation = config.get("hidden_act", "gelu")
        if activation not in ("gelu", "gelu_new", "gelu_pytorch_tanh"):
            raise EmbeddingError(f"{directory}: unsupported activation {activation!r}")
        self.tanh_gelu = activation != "gelu"
        self.hidden_size = int(config["hidden_size"])
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.layer_norm_eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_tokens = min(
            int(sentence.get("max_seq_length", 512)),
            int(config.get("max_position_embeddings", 512)),
        )


def _optional_json(path: Path, default: dict[str, Any]) -> dict[str, Any]:
    if not path.exists():
        return default
    loaded = json.loads(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else default


_encoders_lock = threading.Lock()
_encoders: dict[Path, BertEncoder] = {}


def load_encoder(directory: Path) -> BertEncoder:
    """The loaded model of a directory: loaded once per process."""
    with _encoders_lock:
        encoder = _encoders.get(directory)
        if encoder is None:
            encoder = _encoders[directory] = BertEncoder(directory)
        return encoder


class _Layer:
    """One encoder layer's weights, laid out for `x @ weight` (input features first)."""

    def __init__(self, weights: dict[str, _Array], prefix: str) -> None:
        def get(name: str) -> _Array:
            return weights[f"{prefix}{name}"]

        parts = ("query", "key", "value")
        # One product computes the query, key and value projections together.
        self.qkv = np.ascontiguousarray(
            np.concatenate([get(f"attention.self.{p}.weight") for p in parts]).T
        )
        self.qkv_bias = np.concatenate([get(f"attention.self.{p}.bias") for p in parts])
        self.attention_out = np.ascontiguousarray(get("attention.output.dense.weight").T)
        self.attention_out_bias = get("attention.output.dense.bias")
        self.attention_norm = (
            get("attention.output.LayerNorm.weight"),
            get("attention.output.LayerNorm.bias"),
        )
        self.intermediate = np.ascontiguousarray(get("intermediate.dense.weight").T)
        self.intermediate_bias = get("intermediate.dense.bias")
        self.output = np.ascontiguousarray(get("output.dense.weight").T)
        self.output_bias = get("output.dense.bias")
        self.output_norm = (get("output.LayerNorm.weight"), get("output.LayerNorm.bias"))


class BertEncoder:
    """A BERT encoder with sentence pooling: tokenised by `tokenizers`, weights read from
    safetensors, the forward pass in numpy (float32)."""

    def __init__(self, directory: Path) -> None:
        # tokenizers and safetensors read the model from its folder and never reach for a
        # hub; these keep any Hugging Face library loaded later in the process offline too,
        # unless the user set them.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.config = config = ModelConfig(directory)
        weights = {
            key.removeprefix("bert."): value.astype(np.float32, copy=False)
            for key, value in load_file(str(directory / "model.safetensors")).items()
        }
        try:
            self._word = weights["embeddings.word_embeddings.weight"]
            self._position = weights["embeddings.position_embeddings.weight"]
            self._token_type = weights["embeddings.token_type_embeddings.weight"][0]
            self._embedding_norm = (
                weights["embeddings.LayerNorm.weight"],
                weights["embeddings.LayerNorm.bias"],
            )
            self._layers = [_Layer(weights, f"encoder.layer.{i}.") for i in range(config.layers)]
        except KeyError as error:
            raise EmbeddingError(f"{directory}: weight {error} is missing") from None
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(config.max_tokens)

    def encode(self, texts: list[str], batch_size: int) -> _Array:
        """Normalised sentence vectors of `texts`, batched by token length so that little
        padding is computed."""
        encodings = self._tokenizer.encode_batch(texts)
        lengths = np.array([len(encoding.ids) for encoding in encodings])
        order = np.argsort(lengths, kind="stable")
        out = np.empty((len(texts), self.config.hidden_size), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            rows = order[start : start + batch_size]
            width = int(lengths[rows].max())
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=bool)
            for row, index in enumerate(rows.tolist()):
                tokens = encodings[index].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = True
            out[rows] = self._forward(ids, mask)
        return out

    def _forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_]) -> _Array:
        config = self.config
        batch, width = ids.shape
        size, heads = config.hidden_size, config.heads
        head_size = size // heads
        scale = np.float32(1 / np.sqrt(head_size))
        # Token vectors are kept as one (tokens, features) matrix, so that each dense layer is
        # one matrix product rather than one per text.
        hidden = self._word[ids].reshape(-1, size)  # a new array: safe to change in place
        hidden += np.tile(self._position[:width] + self._token_type, (batch, 1))
        hidden = self._layer_norm(hidden, self._embedding_norm)
        # Added to every attention score: 0 where the key is a real token, the lowest float
        # where it is padding.
        key_bias = np.where(mask, np.float32(0), _MASKED)[:, None, None, :]
        for layer in self._layers:
            qkv = (hidden @ layer.qkv + layer.qkv_bias).reshape(batch, width, 3, heads, head_size)
            query, key, value = qkv.transpose(2, 0, 3, 1, 4)  # each (batch, heads, width, head)
            scores = query @ key.transpose(0, 1, 3, 2)
            _in_parallel(partial(_softmax, scale=scale), scores, key_bias)
            attended = (scores @ value).transpose(0, 2, 1, 3).reshape(-1, size)
            attended = attended @ layer.attention_out
            attended += layer.attention_out_bias
            attended += hidden
            hidden = self._layer_norm(attended, layer.attention_norm)
            intermediate: _Array = hidden @ layer.intermediate
            intermediate += layer.intermediate_bias
            _in_parallel(self._gelu, intermediate)
            output: _Array = intermediate @ layer.output
            output += layer.output_bias
            output += hidden
            hidden = self._layer_norm(output, layer.output_norm)
        tokens = hidden.reshape(batch, width, size)
        if config.pooling == "cls":
            pooled = tokens[:, 0]
        else:
            weight = mask[:, :, None].astype(np.float32)
            pooled = (tokens * weight).sum(axis=1) / np.maximum(weight.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: _Array = (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
        return vectors

    def _layer_norm(self, x: _Array, weight_and_bias: tuple[_Array, _Array]) -> _Array:
        """Layer normalisation of a (tokens, features) array, in place, over the cores."""
        weight, bias = weight_and_bias
        epsilon = np.float32(self.config.layer_norm_eps)

        def normalise(block: _Array) -> None:
            block -= block.mean(axis=-1, keepdims=True)
            deviation = np.square(block).mean(axis=-1, keepdims=True)
            deviation += epsilon
            block /= np.sqrt(deviation)
            block *= weight
            block += bias

        _in_parallel(normalise, x)
        return x

    def _gelu(self, x: _Array) -> None:
        """GELU, in place."""
        if self.config.tanh_gelu:
            inner = np.float32(np.sqrt(2 / np.pi)) * (x + np.float32(0.044715) * x**3)
            x *= np.float32(0.5) * (1 + np.tanh(inner))
            return
        scaled = np.clip(x * np.float32(1 / np.sqrt(2)), -4, 4)
        squared = scaled * scaled
        numerator = _horner(_ERF_NUMERATOR, squared)
        numerator *= scaled
        numerator /= _horner(_ERF_DENOMINATOR, squared)
        numerator += 1  # 1 + erf(x / √2)
        numerator *= np.float32(0.5)
        x *= numerator


def _in_parallel(function: Callable[..., None], array: _Array, *companions: _Array) -> None:
    """Call `function`, which works in place element by element, on blocks of `array`'s
    first axis (with the same blocks of each companion array), on several cores."""
    threads = min(_THREADS, array.size // _MIN_ELEMENTS_PER_THREAD, len(array))
    if threads <= 1:
        function(array, *companions)
        return
    bounds = np.linspace(0, len(array), threads + 1).astype(int)
    blocks = [
        [part[start:end] for part in (array, *companions)]
        for start, end in itertools.pairwise(bounds)
    ]
    list(_pool.map(lambda block: function(*block), blocks))


def _softmax(scores: _Array, key_bias: _Array, *, scale: np.float32) -> None:
    """Attention weights from (batch, heads, query, key) scores, in place; `key_bias` masks
    padding keys."""
    scores *= scale
    scores += key_bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)


def _horner(coefficients: tuple[np.float32, ...], x: _Array) -> _Array:
    """The polynomial with these coefficients (highest power first) at x."""
    value = np.full_like(x, coefficients[0])
    for coefficient in coefficients[1:]:
        value *= x
        value += coefficient
    return value
