"""Real parts for the semantic tests: a counting embedding function and a local server that
speaks the OpenAI embeddings API."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from toolscout.search import CallableEmbedder

DIMENSION = 64


def hashed_vectors(texts: list[str], dimension: int = DIMENSION) -> np.ndarray:
    """A bag-of-words vector per text: each lowercased word adds 1 at a hash of it. Texts
    that share words point the same way, which is all the cache and update tests need."""
    vectors = np.zeros((len(texts), dimension), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.lower().split():
            digest = hashlib.blake2b(word.strip(".,:()").encode(), digest_size=4).digest()
            vectors[row, int.from_bytes(digest, "little") % dimension] += 1.0
    return vectors


@dataclass
class CountingFunction:
    """An embedding function that records every text it was asked to embed."""

    embedded: list[str] = field(default_factory=list)
    calls: int = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.embedded.extend(texts)
        return hashed_vectors(texts)


def counting_embedder(
    model_id: str = "hashed-words-v1",
) -> tuple[CallableEmbedder, CountingFunction]:
    function = CountingFunction()
    return CallableEmbedder(function, model_id=model_id), function


@dataclass
class EmbeddingsServer:
    """What the local server saw and how it should answer."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """Answers to give before the next successful one: (status, JSON body)."""


@contextmanager
def embeddings_server() -> Iterator[EmbeddingsServer]:
    """An HTTP server on 127.0.0.1 answering `POST /v1/embeddings` as OpenAI does: the
    vectors in `data`, each with its `index`, listed in reverse order to check that clients
    sort by index."""
    state = EmbeddingsServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            state.headers.append({key.lower(): value for key, value in self.headers.items()})
            if self.path != "/v1/embeddings":
                self._answer(404, {"error": {"message": f"no route {self.path}"}})
            elif state.failures:
                self._answer(*state.failures.pop(0))
            else:
                dimension = body.get("dimensions", DIMENSION)
                vectors = hashed_vectors(list(body["input"]), dimension)
                data = [
                    {"object": "embedding", "index": i, "embedding": vector.tolist()}
                    for i, vector in enumerate(vectors)
                ]
                self._answer(
                    200,
                    {
                        "object": "list",
                        "data": data[::-1],
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

        def _answer(self, status: int, payload: dict[str, Any]) -> None:
            encoded = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(encoded)))
            if status == 429 or status >= 500:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(encoded)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
