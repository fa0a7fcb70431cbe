"""A sentence-transformers BERT model's folder: its configuration and its weights.

What `toolscout.search._bert_graph` builds the encoder's graph from, read without any
deep-learning framework: the JSON files, and `model.safetensors` mapped into memory.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from toolscout.errors import EmbeddingError

_Array = npt.NDArray[np.float32]


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
        if not isinstance(config, dict):
            raise EmbeddingError(f"{directory}: config.json is not a JSON object")
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
        try:
            self.hidden_size = int(config["hidden_size"])
            self.layers = int(config["num_hidden_layers"])
            self.heads = int(config["num_attention_heads"])
            self.layer_norm_eps = float(config.get("layer_norm_eps", 1e-12))
            self.max_tokens = min(
                int(sentence.get("max_seq_length", 512)),
                int(config.get("max_position_embeddings", 512)),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise EmbeddingError(f"{directory}: config.json lacks or garbles {error}") from None
        if min(self.hidden_size, self.layers, self.heads, self.max_tokens) < 1 or (
            self.hidden_size % self.heads
        ):
            raise EmbeddingError(
                f"{directory}: config.json's shape is impossible: hidden_size "
                f"{self.hidden_size} in {self.heads} attention heads, {self.layers} layers, "
                f"{self.max_tokens} tokens"
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


def read_safetensors(path: Path) -> dict[str, _Array]:
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
