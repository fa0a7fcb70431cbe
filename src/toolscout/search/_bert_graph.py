"""A BERT sentence encoder as an ONNX graph, built from its weights: what `BertEncoder` runs.

The graph is the forward pass of a sentence-transformers BERT model: embeddings, encoder layers
of self-attention and feed-forward, mean or CLS pooling, normalisation. It is built with the
`onnx` package's helpers at load time, from the tensors of `model.safetensors`: no exported
model file exists, and none is downloaded. The weights stay out of the graph's bytes: they are
handed to onnxruntime as external initializers, the arrays themselves, so building costs a few
dozen milliseconds rather than a 90 MB copy and parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from onnx import TensorProto, helper

from toolscout.search._bert_model import ModelConfig

_Array = npt.NDArray[np.float32]

#: The graph's inputs: token ids and a mask of the real tokens (1) against padding (0), both
#: (texts, tokens); and its output, (texts, features) unit vectors.
TOKEN_IDS, TOKEN_MASK, SENTENCE_VECTORS = "token_ids", "token_mask", "sentence_vectors"

# ONNX's standard operators as of opset 17, which has LayerNormalization. Spelling GELU and
# the residual layer norms with onnxruntime's own operators (com.microsoft Gelu,
# SkipLayerNormalization) gave the same vectors and ran no faster.
_OPSET = 17
# Added to the attention scores of padding: exp() of it is 0 in float32, so padding gets no
# weight, as if the text were alone.
_PADDING_SCORE = -10_000.0


@dataclass(frozen=True)
class BertGraph:
    """A serialised ONNX model and the weights it reads by name (external initializers)."""

    model: bytes
    weights: dict[str, _Array]


class _Builder:
    """Nodes, constants and weights of a graph being built; each operation names its output."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.constants: list[Any] = []
        self.weights: dict[str, _Array] = {}

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        output = f"{op_type.lower()}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], **attributes))
        return output

    def weight(self, name: str, array: _Array) -> str:
        self.weights[name] = np.ascontiguousarray(array, dtype=np.float32)
        return name

    def scalar(self, value: float) -> str:
        name = f"scalar_{len(self.constants)}"
        self.constants.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))
        return name

    def integers(self, *values: int) -> str:
        name = f"integers_{len(self.constants)}"
        self.constants.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def integer(self, value: int) -> str:
        name = f"integer_{len(self.constants)}"
        self.constants.append(helper.make_tensor(name, TensorProto.INT64, [], [value]))
        return name


def build_graph(weights: dict[str, _Array], config: ModelConfig) -> BertGraph:
    """The encoder of `config`'s shape over `weights` (named as in a BERT checkpoint, without
    the `bert.` prefix). Raises KeyError for a missing weight."""
    graph = _Builder()
    hidden = _embeddings(graph, weights, config)
    mask = TOKEN_MASK
    # (texts, 1, 1, tokens): every query position adds it to its scores over the keys.
    padding = graph.op(
        "Unsqueeze",
        graph.op("Mul", graph.op("Sub", graph.scalar(1.0), mask), graph.scalar(_PADDING_SCORE)),
        graph.integers(1, 2),
    )
    for layer in range(config.layers):
        hidden = _encoder_layer(graph, weights, config, f"encoder.layer.{layer}.", hidden, padding)
    if config.pooling == "cls":
        pooled = graph.op("Gather", hidden, graph.integer(0), axis=1)
    else:
        summed = graph.op(
            "ReduceSum",
            graph.op("Mul", hidden, graph.op("Unsqueeze", mask, graph.integers(2))),
            graph.integers(1),
            keepdims=0,
        )
        counts = graph.op("ReduceSum", mask, graph.integers(1), keepdims=1)
        pooled = graph.op("Div", summed, counts)
    graph.nodes.append(
        helper.make_node("LpNormalization", [pooled], [SENTENCE_VECTORS], axis=-1, p=2)
    )
    return BertGraph(_serialised(graph, config), graph.weights)


def _embeddings(graph: _Builder, weights: dict[str, _Array], config: ModelConfig) -> str:
    """Word, position and token-type embeddings, summed and normalised: (texts, tokens,
    features). Every token is of type 0, as sentence-transformers encodes one text."""
    words = graph.op(
        "Gather",
        graph.weight("word_embeddings", weights["embeddings.word_embeddings.weight"]),
        TOKEN_IDS,
    )
    length = graph.op("Gather", graph.op("Shape", TOKEN_IDS), graph.integer(1), axis=0)
    positions = graph.op(
        "Gather",
        graph.weight("position_embeddings", weights["embeddings.position_embeddings.weight"]),
        graph.op("Range", graph.integer(0), length, graph.integer(1)),
    )
    token_type = graph.weight(
        "token_type_embedding", weights["embeddings.token_type_embeddings.weight"][0]
    )
    summed = graph.op("Add", graph.op("Add", words, positions), token_type)
    return _layer_norm(graph, weights, config, "embeddings.LayerNorm.", summed)


def _encoder_layer(
    graph: _Builder,
    weights: dict[str, _Array],
    config: ModelConfig,
    prefix: str,
    hidden: str,
    padding: str,
) -> str:
    heads, head_size = config.heads, config.hidden_size // config.heads
    # The query's projection is scaled by 1/√(head size), as attention scores are, so the
    # scores need no operation of their own to be scaled.
    scale = float(1 / np.sqrt(head_size))
    by_head = graph.integers(0, 0, heads, head_size)

    def projection(name: str, *, factor: float = 1.0) -> str:
        projected = _dense(graph, weights, f"{prefix}attention.self.{name}.", hidden, factor)
        return graph.op("Reshape", projected, by_head)  # (texts, tokens, heads, head size)

    query = graph.op("Transpose", projection("query", factor=scale), perm=[0, 2, 1, 3])
    key = graph.op("Transpose", projection("key"), perm=[0, 2, 3, 1])
    value = graph.op("Transpose", projection("value"), perm=[0, 2, 1, 3])
    scores = graph.op("Add", graph.op("MatMul", query, key), padding)
    attended = graph.op("MatMul", graph.op("Softmax", scores, axis=-1), value)
    attended = graph.op(
        "Reshape",
        graph.op("Transpose", attended, perm=[0, 2, 1, 3]),
        graph.integers(0, 0, config.hidden_size),
    )
    attention = _dense(graph, weights, f"{prefix}attention.output.dense.", attended)
    hidden = _layer_norm(
        graph,
        weights,
        config,
        f"{prefix}attention.output.LayerNorm.",
        graph.op("Add", attention, hidden),
    )
    intermediate = _gelu(
        graph, _dense(graph, weights, f"{prefix}intermediate.dense.", hidden), config
    )
    output = _dense(graph, weights, f"{prefix}output.dense.", intermediate)
    return _layer_norm(
        graph, weights, config, f"{prefix}output.LayerNorm.", graph.op("Add", output, hidden)
    )


def _dense(
    graph: _Builder,
    weights: dict[str, _Array],
    prefix: str,
    inputs: str,
    factor: float = 1.0,
) -> str:
    """A linear layer: its weight laid out for `inputs @ weight` (input features first)."""
    weight = graph.weight(f"{prefix}weight", weights[f"{prefix}weight"].T * factor)
    bias = graph.weight(f"{prefix}bias", weights[f"{prefix}bias"] * factor)
    return graph.op("Add", graph.op("MatMul", inputs, weight), bias)


def _layer_norm(
    graph: _Builder, weights: dict[str, _Array], config: ModelConfig, prefix: str, inputs: str
) -> str:
    return graph.op(
        "LayerNormalization",
        inputs,
        graph.weight(f"{prefix}weight", weights[f"{prefix}weight"]),
        graph.weight(f"{prefix}bias", weights[f"{prefix}bias"]),
        axis=-1,
        epsilon=config.layer_norm_eps,
    )


def _gelu(graph: _Builder, inputs: str, config: ModelConfig) -> str:
    """GELU: exact, x/2 · (1 + erf(x/√2)), or its tanh approximation (`gelu_new`)."""
    if config.tanh_gelu:
        cubic = graph.op("Mul", graph.op("Pow", inputs, graph.scalar(3.0)), graph.scalar(0.044715))
        inner = graph.op(
            "Mul", graph.op("Add", inputs, cubic), graph.scalar(float(np.sqrt(2 / np.pi)))
        )
        curve = graph.op("Tanh", inner)
    else:
        curve = graph.op("Erf", graph.op("Mul", inputs, graph.scalar(float(1 / np.sqrt(2)))))
    half = graph.op("Mul", inputs, graph.scalar(0.5))
    return graph.op("Mul", half, graph.op("Add", curve, graph.scalar(1.0)))


def _serialised(graph: _Builder, config: ModelConfig) -> bytes:
    texts_by_tokens = ["texts", "tokens"]
    external = [_external_tensor(name, array) for name, array in graph.weights.items()]
    onnx_graph = helper.make_graph(
        graph.nodes,
        "sentence_encoder",
        [
            helper.make_tensor_value_info(TOKEN_IDS, TensorProto.INT64, texts_by_tokens),
            helper.make_tensor_value_info(TOKEN_MASK, TensorProto.FLOAT, texts_by_tokens),
        ],
        [
            helper.make_tensor_value_info(
                SENTENCE_VECTORS, TensorProto.FLOAT, ["texts", config.hidden_size]
            )
        ],
        graph.constants + external,
    )
    model = helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", _OPSET)])
    return bytes(model.SerializeToString())


def _external_tensor(name: str, array: _Array) -> Any:
    """A weight's declaration, its data left outside the model: onnxruntime is handed the
    array itself (`SessionOptions.add_external_initializers`)."""
    tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=array.shape)
    for key, value in (("location", "memory"), ("offset", "0"), ("length", str(array.nbytes))):
        tensor.external_data.add(key=key, value=value)
    tensor.data_location = TensorProto.EXTERNAL
    return tensor
