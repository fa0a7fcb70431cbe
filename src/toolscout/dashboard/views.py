"""What the dashboard's JSON API returns: one model per panel of the page."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from toolscout.protocol.config import Mode, ResultFormat
from toolscout.search import EngineName

Span = tuple[int, int]
"""Start and end (character offsets) of a highlighted stretch of text."""


class SettingsView(BaseModel):
    """The `tool_search` settings the page edits, as they are now."""

    enabled: bool | Literal["auto"]
    engine: EngineName
    mode: Mode
    max_results: int
    engine_choice: str
    """The engine that ranks and, for `auto`, why: "engine: hybrid (auto: ...)"."""
    threshold: float | None
    """None: the engine's default, `effective_threshold`."""
    effective_threshold: float
    result_format: ResultFormat
    always_available: list[str]


class StateView(BaseModel):
    """Everything the page needs on load, besides the catalog's tools."""

    catalog: str
    """Where the tools come from, for the title."""
    tools: int
    settings: SettingsView
    config_path: str
    """The file "save" writes."""
    unsaved: bool
    """The settings differ from the file's."""
    gateway: bool
    """Attached to a running gateway: its upstreams and sessions can be shown."""
    engines: list[str]
    modes: list[str]
    result_formats: list[str]
    max_results_limit: int


class ToolRow(BaseModel):
    """One tool of the pinned-tools checklist."""

    id: str
    name: str
    namespace: str | None
    description: str
    """The first sentence or so."""
    tokens: int
    """Its definition's tokens in OpenAI's format (o200k_base)."""
    lint: list[str]
    """What will make it hard to find, with the fix."""
    pinned: bool
    """In `always_available` (or pinned by the catalog itself)."""
    pinned_by_catalog: bool
    """Marked pinned in the catalog's own definition: always sent whatever the settings."""


class ParameterView(BaseModel):
    name: str
    description: str
    name_spans: list[Span]
    description_spans: list[Span]


class HitView(BaseModel):
    """A tool the query finds, or one it would find but for a setting (`absent_reason`)."""

    rank: int
    """Its place in the engine's ranking (pinned tools included)."""
    id: str
    name: str
    namespace: str | None
    description: str
    score: float
    normalized_score: float
    name_spans: list[Span]
    description_spans: list[Span]
    parameters: list[ParameterView]
    matched_terms: list[str]
    """`query word → tool term (fields)`, one per match."""
    absent_reason: str | None = None
    """Why the model would not get it: pinned, below the threshold, past max_results."""


class SearchView(BaseModel):
    query: str
    engine: EngineName
    threshold: float
    results: list[HitView]
    """What `search_tools` returns for this query with the current settings."""
    absent: list[HitView]
    """Tools the ranking has that the results leave out, and why."""
    notice: str | None = None
    milliseconds: float


class TokensView(BaseModel):
    """Tool tokens per request, whole catalog against tool search, for the current settings."""

    enabled: bool
    """Whether tool search is on: the setting, or with `enabled: auto` its decision."""
    mode: Mode
    max_results: int
    whole_catalog: int
    """Every tool's definition, sent with each request."""
    first_request: int
    """With tool search, before anything is discovered: pinned tools and meta-tools."""
    after_discovery: int
    """With tool search, once one search's tools are discovered, their results included."""
    saving: float
    """The share saved per request (0–1); 0 when tool search is off."""
    live: LiveTokens | None = None
    """What the attached gateway has actually sent so far."""
    activation: str | None = None
    """With `enabled: auto`: the decision and its figures in a sentence (tool tokens,
    context window, share, threshold, on or off), or why there is none."""


class LiveTokens(BaseModel):
    requests: int
    per_request: float
    per_request_without_search: float
    saving: float


class QueryCheck(BaseModel):
    """One labelled query's outcome."""

    query: str
    expected: list[str]
    found: list[str]
    """The expected tools the model would get (in the results, or pinned)."""
    results: list[str]
    """The ids the search returned, best first."""
    recall: float
    reciprocal_rank: float
    misses: list[str]
    """For each expected tool not found: where it ranked, and why it was left out."""


class CheckReport(BaseModel):
    """Recall@k and MRR of labelled queries for the current settings."""

    k: int
    engine: EngineName
    queries: int
    recall: float
    mrr: float
    missed: list[QueryCheck]
    """The queries with an expected tool not found, worst first."""


class SaveView(BaseModel):
    path: str
    """The file "save" writes."""
    exists: bool
    current: str
    """The file's text now ("" when there is none yet)."""
    proposed: str
    """The text "save" would write."""
    diff: str
    """A unified diff from `current` to `proposed`; "" when nothing changes."""
    note: str
    """What changes and what is left alone, in a sentence."""
    host_file: str | None
    """A host application's file left alone (the settings go beside it); saving with
    `in_place` changes its `tool_search` key instead."""


class UpstreamView(BaseModel):
    name: str
    namespace: str
    state: Literal["starting", "connected", "restarting", "skipped"]
    tools: int
    error: str | None
    connections: int


class SessionView(BaseModel):
    id: str
    discovered: list[str]


class GatewayView(BaseModel):
    upstreams: list[UpstreamView]
    sessions: list[SessionView]
    """The most recent sessions first."""
    mcp_url: str | None
