"""A BERT sentence encoder in numpy: what `LocalEmbedder` runs, with no deep-learning framework.

The forward pass of a sentence-transformers BERT model (all-MiniLM-L6-v2 by default):
embeddings, encoder layers of self-attention and feed-forward, then mean or CLS pooling and
normalisation. Weights are mapped from `model.safetensors` and text is tokenised by
`tokenizers`, so nothing beyond numpy and that runs (and `threadpoolctl`, to hold BLAS to one
thread per batch when batches share the cores), and nothing is ever fetched. The vectors equal
those of sentence-transformers on torch to within float32 rounding.
"""

from __future__ import annotations

import json
import mmap
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError
from toolscout.search._machine_load import a_core_is_idle, usable_cores

_Array = npt.NDArray[np.float32]

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

# Texts are encoded in batches spread over the cores, each batch on one core from start to
# end: its matrix products run on one BLAS thread, its element-wise steps in blocks small
# enough to stay in that core's cache. No core waits for another within a batch, which
# matters on a busy machine: on 2 cores shared with other work (load 12-15), BLAS threads
# spread over each product made a catalog 3-4x slower to embed and a query 10x slower.
# A lone batch (a query) has no other batch to share the cores with: when the machine has
# a core to spare as it starts, BLAS spreads its products over the cores, as torch does (a
# query's p50 17 -> 11 ms on 2 idle cores; beside two busy processes, one thread keeps 29 ms
# at p50 and 50 at p90, where two took 41 and 315).
_THREADS = usable_cores()
_pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="toolscout-bert")
# About 256 kB of float32 per element-wise block: it stays in a core's L2 cache across the
# dozen numpy passes of GELU or layer normalisation, which made them 3x faster than passes
# over the whole batch.
_BLOCK_ELEMENTS = 65_536
# A batch holds texts of at most this many times its shortest text's tokens.
_MAX_PADDING_RATIO = 2


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


# The safetensors names of the element types an encoder can compute with (float32, or
# converted to it); the format stores them little-endian.
_SAFETENSORS_FLOATS: dict[str, np.dtype[Any]] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "F64": np.dtype("<f8"),
}


def _read_safetensors(path: Path) -> dict[str, _Array]:
    """The floating-point tensors of a safetensors file, as float32 arrays.

    Float32 tensors are read-only views of a memory map of the file, so loading reads
    nothing: a page is read when a product first touches it, and the word embeddings (half of
    all-MiniLM-L6-v2's 90 MB) only where a text's tokens are. Reading the file with the
    `safetensors` package took 0.1 s of a CLI search. The format: the header's length in 8
    bytes, a JSON header giving each tensor's type, shape and byte range, then the data.
    """
    try:
        with path.open("rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        header_length = int.from_bytes(mapped[:8], "little")
        if not 2 <= header_length <= len(mapped) - 8:
            raise ValueError(f"a header of {header_length} bytes in a file of {len(mapped)}")
        header = json.loads(mapped[8 : 8 + header_length])
        data = np.frombuffer(mapped, dtype=np.uint8, offset=8 + header_length)
        tensors: dict[str, _Array] = {}
        for name, entry in header.items():
            if name == "__metadata__" or entry["dtype"][0] in "IU" or entry["dtype"] == "BOOL":
                continue  # integer buffers (position ids) that the forward pass never reads
            if entry["dtype"] not in _SAFETENSORS_FLOATS:
                raise EmbeddingError(
                    f"{path}: {name} is stored as {entry['dtype']}; LocalEmbedder reads "
                    "float32, float16 or float64 weights"
                )
            start, end = entry["data_offsets"]
            values = data[start:end].view(_SAFETENSORS_FLOATS[entry["dtype"]])
            tensors[name] = values.reshape(entry["shape"]).astype(np.float32, copy=False)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise EmbeddingError(f"{path} is not a readable safetensors file: {error}") from None
    return tensors


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

    def __init__(self, weights: dict[str, _Array], prefix: str, config: ModelConfig) -> None:
        def get(name: str) -> _Array:
            return weights[f"{prefix}{name}"]

        parts = ("query", "key", "value")
        # One product computes the query, key and value projections together. The query's
        # part is scaled by 1/√(head size), as attention scores are, so the scores need no
        # pass of their own to be scaled.
        self.qkv = np.concatenate([get(f"attention.self.{p}.weight") for p in parts]).T.copy()
        self.qkv_bias = np.concatenate([get(f"attention.self.{p}.bias") for p in parts])
        scale = np.float32(1 / np.sqrt(config.hidden_size // config.heads))
        self.qkv[:, : config.hidden_size] *= scale
        self.qkv_bias[: config.hidden_size] *= scale
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
    """A BERT encoder with sentence pooling: tokenised by `tokenizers`, weights mapped from
    `model.safetensors`, the forward pass in numpy (float32)."""

    def __init__(self, directory: Path) -> None:
        # tokenizers reads the tokenizer from the model's folder and never reaches for a hub;
        # these keep any Hugging Face library loaded later in the process offline too, unless
        # the user set them.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from tokenizers import Tokenizer

        self.config = config = ModelConfig(directory)
        weights = {
            key.removeprefix("bert."): value
            for key, value in _read_safetensors(directory / "model.safetensors").items()
        }
        try:
            self._word = weights["embeddings.word_embeddings.weight"]
            self._position = weights["embeddings.position_embeddings.weight"]
            self._token_type = weights["embeddings.token_type_embeddings.weight"][0]
            self._embedding_norm = (
                weights["embeddings.LayerNorm.weight"],
                weights["embeddings.LayerNorm.bias"],
            )
            self._layers = [
                _Layer(weights, f"encoder.layer.{i}.", config) for i in range(config.layers)
            ]
        except KeyError as error:
            raise EmbeddingError(f"{directory}: weight {error} is missing") from None
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(config.max_tokens)

    def encode(self, texts: list[str], batch_size: int) -> _Array:
        """Normalised sentence vectors of `texts`, batched by token length so that little
        padding is computed, the batches spread over the cores."""
        token_ids = [encoding.ids for encoding in self._tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda index: len(token_ids[index]))
        batches: list[list[int]] = []
        for index in order:
            # A text much longer than its batch's first would have it padded to its length:
            # a request and its short needs make two batches, encoded side by side.
            if (
                batches
                and len(batches[-1]) < batch_size
                and len(token_ids[index]) <= _MAX_PADDING_RATIO * len(token_ids[batches[-1][0]])
            ):
                batches[-1].append(index)
            else:
                batches.append([index])
        out = np.empty((len(texts), self.config.hidden_size), dtype=np.float32)

        def encode_batch(rows: list[int]) -> None:
            out[rows] = self._forward([token_ids[row] for row in rows])

        if len(batches) == 1 and _THREADS > 1 and _blas_threads_fit() and a_core_is_idle():
            encode_batch(batches[0])  # with the BLAS threads the user has set, all by default
            return out
        with _blas_on_one_thread():
            if len(batches) == 1:
                encode_batch(batches[0])  # a query: no thread to hand it to
            else:
                list(_pool.map(encode_batch, batches))
        return out

    def _forward(self, texts: list[list[int]]) -> _Array:
        """The pooled, normalised vectors of a batch of tokenised texts."""
        config = self.config
        size, heads = config.hidden_size, config.heads
        head_size = size // heads
        lengths = [len(tokens) for tokens in texts]
        batch, width = len(texts), max(lengths)
        ids = np.zeros((batch, width), dtype=np.int64)
        for row, text_ids in enumerate(texts):
            ids[row, : len(text_ids)] = text_ids
        # Token vectors are kept as one (tokens, features) matrix, so that each dense layer is
        # one matrix product rather than one per text. Rows past a text's end (padding) are
        # computed by the dense layers but never attended to nor pooled.
        hidden = self._word[ids].reshape(-1, size)  # a new array: safe to change in place
        hidden += np.tile(self._position[:width] + self._token_type, (batch, 1))
        self._in_blocks(self._layer_norm, hidden, norm=self._embedding_norm)
        for layer in self._layers:
            qkv = hidden @ layer.qkv
            qkv += layer.qkv_bias
            per_text = qkv.reshape(batch, width, 3, heads, head_size)
            attended = np.zeros((batch, width, size), dtype=np.float32)
            for row, length in enumerate(lengths):
                attended[row, :length] = _attention(per_text[row, :length])
            projected: _Array = attended.reshape(-1, size) @ layer.attention_out
            self._in_blocks(
                self._add_and_normalise,
                projected,
                hidden,
                bias=layer.attention_out_bias,
                norm=layer.attention_norm,
            )
            hidden = projected
            intermediate: _Array = hidden @ layer.intermediate
            self._in_blocks(self._activate, intermediate, bias=layer.intermediate_bias)
            output: _Array = intermediate @ layer.output
            self._in_blocks(
                self._add_and_normalise,
                output,
                hidden,
                bias=layer.output_bias,
                norm=layer.output_norm,
            )
            hidden = output
        tokens = hidden.reshape(batch, width, size)
        if config.pooling == "cls":
            pooled = tokens[:, 0]
        else:
            pooled = np.stack(
                [tokens[row, :length].mean(axis=0) for row, length in enumerate(lengths)]
            )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: _Array = (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
        return vectors

    @staticmethod
    def _in_blocks(
        step: Callable[..., None], array: _Array, *companions: _Array, **options: Any
    ) -> None:
        """Call `step`, which works in place row by row, on blocks of `array`'s rows (with
        the same rows of each companion) small enough to stay in the core's cache."""
        rows = max(1, _BLOCK_ELEMENTS // array.shape[1])
        for start in range(0, len(array), rows):
            step(*(part[start : start + rows] for part in (array, *companions)), **options)

    def _layer_norm(self, x: _Array, *, norm: tuple[_Array, _Array]) -> None:
        """Layer normalisation of (tokens, features) rows, in place."""
        weight, bias = norm
        x -= x.mean(axis=-1, keepdims=True)
        deviation = np.square(x).mean(axis=-1, keepdims=True)
        deviation += np.float32(self.config.layer_norm_eps)
        np.sqrt(deviation, out=deviation)
        x /= deviation
        x *= weight
        x += bias

    def _add_and_normalise(
        self, x: _Array, residual: _Array, *, bias: _Array, norm: tuple[_Array, _Array]
    ) -> None:
        """A dense layer's bias and the residual added, then layer normalisation, in place."""
        x += bias
        x += residual
        self._layer_norm(x, norm=norm)

    def _activate(self, x: _Array, *, bias: _Array) -> None:
        """The intermediate layer's bias added, then GELU, in place."""
        x += bias
        if self.config.tanh_gelu:
            inner = np.float32(np.sqrt(2 / np.pi)) * (x + np.float32(0.044715) * x**3)
            x *= np.float32(0.5) * (1 + np.tanh(inner))
            return
        scaled = x * np.float32(1 / np.sqrt(2))
        np.clip(scaled, -4, 4, out=scaled)
        squared = scaled * scaled
        numerator = _horner(_ERF_NUMERATOR, squared)
        numerator *= scaled
        numerator /= _horner(_ERF_DENOMINATOR, squared)
        numerator += 1  # 1 + erf(x / √2)
        numerator *= np.float32(0.5)
        x *= numerator


def _attention(qkv: _Array) -> _Array:
    """Self-attention of one text, without its padding: from its (tokens, 3, heads, head
    size) query, key and value projections (the query already scaled) to (tokens,
    features)."""
    length = qkv.shape[0]
    query, key, value = qkv.transpose(1, 2, 0, 3)  # each (heads, tokens, head size)
    scores = query @ key.transpose(0, 2, 1)
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    # Dividing the attended values by the softmax's sums, rather than the weights, is a
    # pass over tokens × head size instead of tokens × tokens.
    attended = scores @ value
    attended /= scores.sum(axis=-1, keepdims=True)
    result: _Array = attended.transpose(1, 0, 2).reshape(length, -1)
    return result


@contextmanager
def _blas_on_one_thread() -> Iterator[None]:
    """BLAS held to one thread while texts are encoded (see `_THREADS`); the limit is set
    by the first encoding to start and lifted by the last to finish."""
    global _parallel_encodings, _blas_limit
    with _blas_lock:
        if _parallel_encodings == 0:
            _blas_limit = _blas_controller().limit(limits=1, user_api="blas")
        _parallel_encodings += 1
    try:
        yield
    finally:
        with _blas_lock:
            _parallel_encodings -= 1
            if _parallel_encodings == 0 and _blas_limit is not None:
                _blas_limit.restore_original_limits()
                _blas_limit = None


_blas_lock = threading.Lock()
_parallel_encodings = 0
_blas_limit: Any = None


def _blas_threads_fit() -> bool:
    """Whether BLAS's own thread count is within the cores this process may use. It is not
    in a container with a CPU quota: BLAS counts the host's cores, and spreading a query
    over that many threads would stall it on the quota."""
    global _blas_own_threads
    if _blas_own_threads is None:
        with _blas_lock:
            if _parallel_encodings:  # BLAS held to one thread now: read its own count later
                return False
            libraries = _blas_controller().select(user_api="blas").info()
            _blas_own_threads = max((library["num_threads"] for library in libraries), default=1)
    return _blas_own_threads <= _THREADS


_blas_own_threads: int | None = None


@cache
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _horner(coefficients: tuple[np.float32, ...], x: _Array) -> _Array:
    """The polynomial with these coefficients (highest power first) at x."""
    value = np.full_like(x, coefficients[0])
    for coefficient in coefficients[1:]:
        value *= x
        value += coefficient
    return value
