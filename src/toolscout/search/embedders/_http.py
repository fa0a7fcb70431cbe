"""`OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint, over httpx."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError, require_extra

if TYPE_CHECKING:
    import httpx


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
