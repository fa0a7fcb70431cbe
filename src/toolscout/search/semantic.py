"""Semantic search: tools ranked by how close their meaning is to the query's.

Each tool is embedded once, as a designed text (`tool_text`) and, with the default model, a
summary (`tool_summary`), into one float32 matrix whose rows are the weighted means of each
tool's two unit vectors; a query is embedded at search time and compared with every tool by
one matrix-vector product (the weighted mean of the two cosine similarities). Vectors are kept
per tool and in the embedding cache, so a catalog change embeds only the tools whose texts
changed, and a restart embeds nothing that was embedded before.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.catalog.tool import Tool
from toolscout.errors import EmbeddingError, SearchConfigError
from toolscout.search.analysis import identifier_words
from toolscout.search.base import RankedCandidates, SearchEngine
from toolscout.search.embedders import (
    DEFAULT_LOCAL_MODEL,
    Embedder,
    default_embedder,
    is_embedder,
)
from toolscout.search.embedding_cache import EmbeddingCache, text_hash
from toolscout.search.needs import MAX_NEEDS

ToolText = Callable[[Tool], str]
"""What is embedded for a tool: a function from the tool to one text."""

#: Texts embedded per call to the embedder (and per write to the cache), so a progress bar
#: moves and an interrupted indexing keeps what it did.
EMBED_CHUNK = 256
#: Query vectors kept for the next searches: a request and all its needs (`MAX_NEEDS`), twice.
REMEMBERED_QUERIES = 2 * (MAX_NEEDS + 1)

#: The most of a description's first sentence that `tool_summary` keeps, in characters.
SUMMARY_MAX_CHARS = 300

#: Where a description's first sentence ends: a full stop, question or exclamation mark
#: before a capital letter, a quote or a bracket ("e.g. a file" goes on), or the end; and the
#: CJK marks, which need no space after them.
_SENTENCE_END = re.compile(r"""[.!?](?=\s+[A-Z"'(\[`]|\s*$)|[。！？]""")

#: Embedding at least this many texts shows progress on stderr, by default.
PROGRESS_MIN_TEXTS = 500

#: What is put before a query for all-MiniLM-L6-v2 (`SemanticOptions.query_prefix`).
MINILM_QUERY_PREFIX = "A tool to: "

#: The share of a tool's summary (`tool_summary`) in its similarity to a query, for
#: all-MiniLM-L6-v2 (`SemanticOptions.summary_weight`). On the MCP tasks, hybrid's nDCG@10
#: went from 0.778 to 0.786 (dev) and 0.711 to 0.715 (test), semantic's from 0.612 to 0.637 and
#: 0.540 to 0.592. Chosen on the dev splits among 0.3, 0.4, 0.5 and 0.7: at 0.5 the MCP tasks
#: gained 0.2 points more, but two of the false-synonym set's 46 requests lost their tool's
#: first place, and small talk scored past the thresholds ("thanks, that's all" preloaded
#: `send_email`).
MINILM_SUMMARY_WEIGHT = 0.4

#: The cosine similarities of all-MiniLM-L6-v2 that `normalized_score` maps to 0 and to 1:
#: unrelated texts score about 0.1, and a tool that does what the query asks 0.5 to 0.7. An
#: embedder whose cosines lie elsewhere says where with a `cosine_range` attribute.
MINILM_COSINE_RANGE: tuple[float, float] = (0.1, 0.8)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_EMPTY_QUERY = "The query is empty: describe the tool you need in a few words."
_EMPTY_CATALOG = "The catalog is empty: there are no tools to search."


def tool_text(tool: Tool) -> str:
    """The text embedded for a tool: its namespace and name split into words, its
    description, and its parameters with their descriptions.

    A tool `get_current_weather` described as "Get the current weather." with one parameter,
    `location`, described as "City name", becomes "get current weather. Get the current
    weather. Parameters: location (City name)"; in the namespace `weather_gov`, "weather
    gov: get current weather. ...". Splitting identifiers lets the model read them as words;
    the namespace (an MCP server's name: github, slack, notion) says what the tool works on,
    and a parameter's name and description what it takes. Enum values and tags are left
    out: they rarely say what a tool is for, and long lists of them drown the description.
    (On the BFCL dev split this text ranked better than the name and description alone, or
    FastMCP's raw text, and the namespace helped on the MCP development set; see
    benchmarks/.)
    """
    parts = [_name_words(tool) + "."]
    if tool.description.strip():
        parts.append(" ".join(tool.description.split()))
    parameters = _parameters_text(tool)
    if parameters:
        parts.append(f"Parameters: {parameters}")
    return " ".join(parts)


def tool_summary(tool: Tool) -> str:
    """What a tool is for, in brief: its namespace and name split into words, as in
    `tool_text`, and the first sentence of its description (at most `SUMMARY_MAX_CHARS`).

    Embedded beside `tool_text` (`SemanticOptions.summary`). Many MCP servers describe a
    tool in paragraphs of usage notes, examples and caveats, and an embedding of all of it
    says less clearly what the tool does; its first sentence mostly says just that.
    `read_file` described as "Read the complete contents of a file. Use this when you need to
    examine..." becomes "read file. Read the complete contents of a file."
    """
    name = _name_words(tool)
    description = " ".join(tool.description.split())
    end = _SENTENCE_END.search(description)
    first = description[: end.end()] if end else description
    if len(first) > SUMMARY_MAX_CHARS:
        first = first[:SUMMARY_MAX_CHARS].rsplit(" ", 1)[0]
    return f"{name}. {first}" if first else f"{name}."


def _name_words(tool: Tool) -> str:
    """The tool's name split into words, after its namespace's."""
    name = " ".join(identifier_words(tool.name))
    if tool.namespace:
        name = f"{' '.join(identifier_words(tool.namespace))}: {name}"
    return name


def _parameters_text(tool: Tool) -> str:
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict):
        return ""
    described = []
    for name, schema in properties.items():
        words = " ".join(identifier_words(str(name)))
        description = schema.get("description") if isinstance(schema, dict) else None
        if isinstance(description, str) and description.strip():
            described.append(f"{words} ({' '.join(description.split())})")
        else:
            described.append(words)
    return ", ".join(described)


@dataclass(frozen=True)
class SemanticOptions:
    """How semantic search embeds tools and queries."""

    embedder: Embedder | None = None
    """What makes the vectors; `None` for the local all-MiniLM-L6-v2 (`LocalEmbedder`)."""
    cache: bool = True
    """Keep vectors in the embedding cache file, so no tool text is embedded twice."""
    cache_path: str | Path | None = None
    """The cache file; `None` for `embeddings.sqlite3` in the user cache directory."""
    text: ToolText = tool_text
    """What is embedded for each tool. It is called again only for a tool whose
    `fingerprint` (name, namespace, description, schema, tags) changed."""
    summary: ToolText = tool_summary
    """What is embedded beside `text` for each tool (see `summary_weight`): what the tool is
    for, in brief. Like `text`, it is called again only for a tool whose fingerprint changed."""
    summary_weight: float | None = None
    """The summary's share of a tool's similarity to a query (0–1), `text` having the rest:
    a description of many paragraphs then blurs less what the tool does. `None` is
    `MINILM_SUMMARY_WEIGHT`, 0.4, for all-MiniLM-L6-v2 (the default model), and 0 for other
    models, for which it was not measured; 0 embeds `text` alone."""
    progress: bool | None = None
    """Show progress on stderr while embedding: a bar on a terminal, a line each tenth of the
    way in a log; `None` shows it when at least `PROGRESS_MIN_TEXTS` texts need embedding."""
    query_prefix: str | None = None
    """Put before each query (not each tool text) when it is embedded. `None` is
    `MINILM_QUERY_PREFIX`, "A tool to: ", for all-MiniLM-L6-v2 (the default model), and
    nothing for other models, for which no prefix was measured. Framed so, a request such as
    "how hot is it in Paris" reads more like the tool texts it is compared with: on the BFCL
    dev split, semantic search gained 0.8 points of nDCG@10 and 1.2 of Recall@5 (see
    benchmarks/tune_semantic.py)."""

    def __post_init__(self) -> None:
        if self.summary_weight is not None and not 0 <= self.summary_weight <= 1:
            raise SearchConfigError("summary_weight must be between 0 and 1")
        if self.embedder is not None and not is_embedder(self.embedder):
            raise SearchConfigError(
                "embedder must have model_id, dimension and embed(texts); wrap a function in "
                "CallableEmbedder(function, model_id=...)"
            )


@dataclass(frozen=True, slots=True)
class _Entry:
    tool: Tool
    texts_hash: bytes
    """Of the texts embedded: a new tool object with the same texts keeps the vector."""
    vector: npt.NDArray[np.float32]
    """A row of the index's matrix (a view, so the vectors are held once): the unit vector of
    the tool's text, or its weighted mean with the summary's (`summary_weight`)."""


@dataclass(frozen=True, slots=True)
class _State:
    entries: tuple[_Entry, ...]
    matrix: npt.NDArray[np.float32]  # tools × dimension: unit vectors, or means of two


class SemanticEngine(SearchEngine):
    """Cosine similarity between the query's embedding and each tool's.

    `normalized_score` maps the cosine linearly onto 0–1, for all-MiniLM-L6-v2 from 0.1
    (unrelated) to 0.8 (the same request in other words); an embedder with a `cosine_range`
    sets its own. An embedder with `embed_queries` embeds the queries (with no
    `query_prefix`), `embed` the tool texts. Semantic hits have no word-level explanation:
    `matched_terms` is empty (the hybrid engine gives BM25's).
    """

    def __init__(self, options: SemanticOptions | None = None) -> None:
        self.options = options or SemanticOptions()
        self.embedder: Embedder = self.options.embedder or default_embedder()
        is_minilm = self.embedder.model_id.startswith(DEFAULT_LOCAL_MODEL)
        prefix = self.options.query_prefix
        if prefix is None:
            prefix = MINILM_QUERY_PREFIX if is_minilm else ""
        self.query_prefix: str = prefix
        """What is put before each query when it is embedded."""
        summary_weight = self.options.summary_weight
        if summary_weight is None:
            summary_weight = MINILM_SUMMARY_WEIGHT if is_minilm else 0.0
        self.summary_weight: float = summary_weight
        """The share of each tool's summary in its similarity to a query."""
        # An embedder that frames queries itself (e5's "query: ") embeds them on its own.
        self._embed_queries_with = getattr(self.embedder, "embed_queries", None)
        self.cosine_range: tuple[float, float] = getattr(
            self.embedder, "cosine_range", MINILM_COSINE_RANGE
        )
        """The cosine similarities `normalized` maps to 0 and to 1."""
        self.cache = EmbeddingCache(self.options.cache_path) if self.options.cache else None
        self._entries: dict[str, _Entry] = {}
        self._state = _State((), np.zeros((0, 0), dtype=np.float32))
        # The vectors of the last queries embedded, oldest first: ToolIndex ranks a query
        # again when a filter turns tools away, and `prefetch` embeds a request's needs.
        self._query_vectors: dict[str, npt.NDArray[np.float32]] = {}

    def rebuild(self, tools: Sequence[Tool], *, texts: Mapping[str, str] | None = None) -> None:
        """Index these tools, in this order; `texts` are the texts of some of them by id,
        already made with `SemanticOptions.text` (the hybrid engine reads them too)."""
        made = texts or {}
        # Per tool: its entry, or the texts to embed (its text, then its summary if any).
        pending: list[_Entry | tuple[str, ...]] = []
        for tool in tools:
            previous = self._entries.get(tool.id)
            # Tools are immutable: the same object needs no check, and a new object for the
            # same id keeps its vector when its fingerprint, or else its texts, are unchanged.
            if previous is not None and (
                previous.tool is tool or previous.tool.fingerprint == tool.fingerprint
            ):
                pending.append(_Entry(tool, previous.texts_hash, previous.vector))
                continue
            tool_texts = self._texts_of(tool, made)
            if previous is not None and previous.texts_hash == _texts_hash(tool_texts):
                pending.append(_Entry(tool, previous.texts_hash, previous.vector))
            else:
                pending.append(tool_texts)
        to_embed = list(
            dict.fromkeys(text for entry in pending if isinstance(entry, tuple) for text in entry)
        )
        vectors = dict(zip(to_embed, self._vectors(to_embed), strict=True))
        complete = [
            entry
            if isinstance(entry, _Entry)
            else _Entry(tool, _texts_hash(entry), self._tool_vector([vectors[t] for t in entry]))
            for tool, entry in zip(tools, pending, strict=True)
        ]
        old = self._state.entries
        if len(complete) == len(old) and all(
            new.vector is previous.vector for new, previous in zip(complete, old, strict=True)
        ):
            matrix = self._state.matrix
        elif complete:
            matrix = np.stack([entry.vector for entry in complete])
            complete = [
                _Entry(entry.tool, entry.texts_hash, row)
                for entry, row in zip(complete, matrix, strict=True)
            ]
        else:
            matrix = np.zeros((0, 0), dtype=np.float32)
        self._entries = {entry.tool.id: entry for entry in complete}
        self._state = _State(tuple(complete), matrix)

    def _texts_of(self, tool: Tool, made: Mapping[str, str]) -> tuple[str, ...]:
        """What is embedded for `tool`: its text (from `made` if there), and its summary."""
        text = made.get(tool.id)
        if text is None:
            text = self.options.text(tool)
        if not self.summary_weight:
            return (embeddable(text),)
        return embeddable(text), embeddable(self.options.summary(tool))

    def _tool_vector(self, vectors: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
        """A tool's row of the matrix: its text's vector, weighted with its summary's."""
        if len(vectors) == 1:
            return vectors[0]
        text, summary = vectors
        weight = np.float32(self.summary_weight)
        mean: npt.NDArray[np.float32] = (1 - weight) * text + weight * summary
        return mean

    def rank(self, query: str, limit: int, *, min_score: float | None = None) -> RankedCandidates:
        similarities, notice = self.similarities(query)
        if similarities is None:
            return RankedCandidates((), (), (), notice=notice)
        scores = similarities.astype(np.float64)
        normalized = self.normalized(scores)
        candidates = (
            np.arange(len(scores)) if min_score is None else np.flatnonzero(scores >= min_score)
        )
        order = candidates[top_positions(scores[candidates], limit)]
        return RankedCandidates(
            positions=order.tolist(),
            scores=scores[order].tolist(),
            normalized_scores=normalized[order].tolist(),
            exhaustive=len(order) == len(candidates),
        )

    def normalized(self, similarities: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """Cosine similarities as normalized scores (0–1), for this engine's model."""
        return normalize_cosine(similarities, self.cosine_range)

    def similarities(self, query: str) -> tuple[npt.NDArray[np.float32] | None, str | None]:
        """The cosine similarity of `query` to each tool (with a summary, the weighted mean of
        its text's and summary's), in rebuild order; or None and a notice when there is
        nothing to compare (an empty query or catalog)."""
        state = self._state
        if not query.strip():
            return None, _EMPTY_QUERY
        if not state.entries:
            return None, _EMPTY_CATALOG
        vector = self._query_vector(query)
        if vector.shape[0] != state.matrix.shape[1]:
            raise EmbeddingError(
                f"{self.embedder.model_id} gave a query vector of length {vector.shape[0]}, "
                f"but the tools' vectors have {state.matrix.shape[1]}"
            )
        similarities: npt.NDArray[np.float32] = state.matrix @ vector
        return similarities, None

    def prefetch(self, queries: Sequence[str]) -> None:
        self._embed_queries(queries)

    def _embed_queries(self, queries: Sequence[str]) -> None:
        """Embeds, in one call to the model, the queries it has no vector for."""
        remembered = self._query_vectors
        missing = list(dict.fromkeys(q for q in queries if q.strip() and q not in remembered))
        if missing:
            if self._embed_queries_with is not None:
                embedded = self._embed_queries_with([embeddable(query) for query in missing])
            else:
                texts = [self.query_prefix + embeddable(query) for query in missing]
                embedded = self.embedder.embed(texts)
            if embedded.shape[0] != len(missing):
                raise EmbeddingError(
                    f"{self.embedder.model_id} returned {embedded.shape[0]} vectors for "
                    f"{len(missing)} queries"
                )
            remembered.update(zip(missing, _unit_rows(embedded), strict=True))
            while len(remembered) > REMEMBERED_QUERIES:
                del remembered[next(iter(remembered))]

    def _query_vector(self, query: str) -> npt.NDArray[np.float32]:
        self._embed_queries([query])
        return self._query_vectors[query]

    def _vectors(self, texts: list[str]) -> list[npt.NDArray[np.float32]]:
        """A unit vector per text: from the cache where it has one, embedded otherwise."""
        if not texts:
            return []
        model_id = self.embedder.model_id
        cached = self.cache.get(model_id, texts) if self.cache else [None] * len(texts)
        vectors: list[npt.NDArray[np.float32] | None] = list(cached)
        # Shortest first: each chunk then holds texts of like lengths, which the embedder
        # batches with little padding (in catalog order, 3,000 tools took 10% longer).
        missing = sorted(
            (i for i, vector in enumerate(vectors) if vector is None), key=lambda i: len(texts[i])
        )
        with _Progress(len(missing), model_id, self.options.progress) as progress:
            for start in range(0, len(missing), EMBED_CHUNK):
                chunk = missing[start : start + EMBED_CHUNK]
                chunk_texts = [texts[i] for i in chunk]
                embedded = _unit_rows(self.embedder.embed(chunk_texts))
                if embedded.shape[0] != len(chunk):
                    raise EmbeddingError(
                        f"{model_id} returned {embedded.shape[0]} vectors for {len(chunk)} texts"
                    )
                if self.cache:
                    self.cache.put(model_id, chunk_texts, embedded)
                for i, vector in zip(chunk, embedded, strict=True):
                    vectors[i] = vector
                progress.advance(len(chunk))
        dimensions = {len(vector) for vector in vectors if vector is not None}
        if len(dimensions) > 1:
            raise EmbeddingError(
                f"vectors of different lengths {sorted(dimensions)} under {model_id!r}: an "
                "embedder's model_id must change whenever its vectors do"
            )
        return [vector for vector in vectors if vector is not None]


def _texts_hash(texts: tuple[str, ...]) -> bytes:
    """One key for a tool's texts, each after its length, so that no two ways of cutting the
    same characters into texts share a key."""
    return text_hash("".join(f"{len(text)}:{text}" for text in texts))


def embeddable(text: str) -> str:
    """`text` with U+FFFD for each lone surrogate, which JSON can carry (`"\\ud800"`) but
    no tokenizer or UTF-8 encoder takes: such a tool or query is embedded, not refused."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def normalize_cosine(
    cosine: npt.NDArray[np.floating],
    cosine_range: tuple[float, float] = MINILM_COSINE_RANGE,
) -> npt.NDArray[np.float64]:
    """Cosine similarity mapped linearly onto 0–1, from the floor of `cosine_range` to its
    ceiling."""
    floor, ceiling = cosine_range
    scaled = (np.asarray(cosine, dtype=np.float64) - floor) / (ceiling - floor)
    return np.clip(scaled, 0.0, 1.0)


def top_positions(scores: npt.NDArray[np.floating], limit: int) -> npt.NDArray[np.int64]:
    """Positions of the `limit` highest scores, best first; ties in position order."""
    if limit < len(scores):
        kth = len(scores) - limit
        candidates = np.argpartition(scores, kth)[kth:]
        # Keep every tie of the last kept score, so the result does not depend on the
        # partition's arbitrary choice among equals; then cut to `limit` after sorting.
        threshold = scores[candidates].min()
        candidates = np.flatnonzero(scores >= threshold)
    else:
        candidates = np.arange(len(scores))
    order = candidates[np.argsort(-scores[candidates], kind="stable")]
    return order[:limit].astype(np.int64)


def _unit_rows(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise EmbeddingError(f"an embedder returned an array of shape {vectors.shape}")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = np.divide(
        vectors, norms, out=np.zeros_like(vectors), where=norms > 0
    )
    return unit


class _Progress:
    """Progress on stderr while many texts are embedded: a rich bar on a terminal, and in a
    log (no terminal) a line at the start, one each tenth of the way and one at the end, so
    that a first run's wait is never silent. Silent for a few texts, or when turned off."""

    def __init__(self, total: int, model_id: str, enabled: bool | None) -> None:
        on_terminal = sys.stderr.isatty()
        if enabled is None:
            enabled = total >= PROGRESS_MIN_TEXTS
        self._bar = None
        self._lines = enabled and total > 0 and not on_terminal
        self._total, self._done, self._shown = total, 0, 0
        self._model_id = model_id
        self._started = time.monotonic()
        if enabled and total and on_terminal:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self._bar = Progress(
                "Embedding tools",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._task = self._bar.add_task(model_id, total=total)

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.start()
        elif self._lines:
            self._line(f"{self._total:,} texts with {self._model_id}")
        return self

    def advance(self, count: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, count)
        elif self._lines:
            self._done += count
            if self._done < self._total and self._done - self._shown >= self._total / 10:
                self._shown = self._done
                self._line(f"{self._done:,}/{self._total:,}")

    def __exit__(self, *exc_info: object) -> None:
        if self._bar is not None:
            self._bar.stop()
        elif self._lines and self._done == self._total:
            seconds = time.monotonic() - self._started
            self._line(f"{self._done:,}/{self._total:,} in {seconds:.1f} s")

    @staticmethod
    def _line(text: str) -> None:
        print(f"Embedding tools: {text}", file=sys.stderr, flush=True)
