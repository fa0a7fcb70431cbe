"""`Dashboard`: the settings being tuned, and every question the page asks about them.

It holds a catalog, the `tool_search` settings (as read from a config file, then as edited)
and the file they are saved to. Each method answers one panel of the page with a model from
`toolscout.dashboard.views`; the web app only turns them into JSON. Every method is safe to
call from several threads at once.
"""

from __future__ import annotations

import difflib
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, get_args

from pydantic import ValidationError

from toolscout.catalog import Catalog, Tool
from toolscout.catalog.lint import lint_tools
from toolscout.catalog.tokens import tool_tokens
from toolscout.config import ToolSearchSettings
from toolscout.dashboard.checks import LabelledQuery, read_labelled_queries
from toolscout.dashboard.config_file import EDITED_KEYS, ConfigFile, SavePlan, edited_settings
from toolscout.dashboard.views import (
    CheckReport,
    GatewayView,
    HitView,
    LiveTokens,
    ParameterView,
    QueryCheck,
    SaveView,
    SearchView,
    SettingsView,
    StateView,
    TokensView,
    ToolRow,
)
from toolscout.errors import (
    DashboardError,
    ToolScoutError,
    ToolSearchConfigError,
    describe_validation_error,
)
from toolscout.protocol import (
    FoundTool,
    LeftOutTool,
    Mode,
    QueryAnswer,
    ResultFormat,
    ToolSearch,
    estimate_tokens,
    is_pinned,
)
from toolscout.protocol.config import MAX_RESULTS_LIMIT
from toolscout.protocol.context_store import ContextStore
from toolscout.search import (
    MAX_K,
    EngineName,
    SearchHit,
    choose_engine,
    effective_threshold,
    matched_spans,
)

#: Characters of a description shown in a result; the page is for reading, not for 1 MB.
_DESCRIPTION_CHARS = 400
#: Characters of a description shown in the checklist.
_SUMMARY_CHARS = 140
#: Parameters shown per result.
_PARAMETERS_SHOWN = 20
#: Tools below the threshold, and past max_results, listed as absent.
_ABSENT_SHOWN = 3
#: Queries longer than this are refused: a query box is for a sentence or two.
MAX_QUERY_CHARS = 2_000


class GatewayAttachment(Protocol):
    """A running gateway, as the dashboard shows it."""

    def view(self) -> GatewayView:
        """Its upstreams with their state, and its sessions with their discovered tools."""
        ...

    def live_tokens(self) -> LiveTokens:
        """What it has sent so far."""
        ...


class Dashboard:
    """The state behind the dashboard page.

    Args:
        catalog: The tools (a gateway's live catalog is followed as it changes).
        settings: The `tool_search` settings to start from, as the config file has them.
        config_file: Where "save" writes.
        source: Where the tools come from, for the page's title.
        gateway: The running gateway the tools come from, if any.
    """

    def __init__(
        self,
        catalog: Catalog,
        settings: ToolSearchSettings,
        config_file: ConfigFile,
        *,
        source: str,
        gateway: GatewayAttachment | None = None,
    ) -> None:
        self.catalog = catalog
        self.config_file = config_file
        self.source = source
        self.gateway_attachment = gateway
        self._settings = settings
        self._saved = settings
        self._lock = threading.RLock()
        # One per engine, so that a settings change keeps the engine's index.
        self._searches: dict[EngineName, ToolSearch] = {}
        self._rows: tuple[int, dict[str, tuple[int, list[str]]]] | None = None
        self._estimates: dict[tuple[Any, ...], TokensView] = {}

    @property
    def settings(self) -> ToolSearchSettings:
        """The settings as edited so far."""
        return self._settings

    # -- settings --------------------------------------------------------------------------

    def state(self) -> StateView:
        settings = self._settings
        return StateView(
            catalog=self.source,
            tools=len(self.catalog),
            settings=_settings_view(settings),
            config_path=str(self.config_file.path),
            unsaved=edited_settings(settings) != edited_settings(self._saved),
            gateway=self.gateway_attachment is not None,
            engines=list(get_args(EngineName)),
            modes=list(get_args(Mode)),
            result_formats=list(get_args(ResultFormat)),
            max_results_limit=MAX_RESULTS_LIMIT,
        )

    def update(self, changes: Mapping[str, Any]) -> StateView:
        """Change some settings: `enabled`, `engine`, `mode`, `max_results`, `threshold`
        (None for the engine's default), `result_format`, `always_available`.

        Raises:
            DashboardError: an unknown setting or an impossible value; nothing changes.
        """
        unknown = sorted(set(changes) - set(EDITED_KEYS))
        if unknown:
            raise DashboardError(
                f"cannot change {', '.join(unknown)}; the settings are {', '.join(EDITED_KEYS)}"
            )
        with self._lock:
            current = self._settings
            data = current.model_dump(by_alias=True)
            data.update(changes)
            if "always_available" in changes:
                data["always_available"] = self._pin_entries(_names(changes))
            try:
                self._settings = type(current).model_validate(data)
            except ValidationError as error:
                raise DashboardError(describe_validation_error(error)) from None
        return self.state()

    def set_pinned(self, tool_id: str, pinned: bool) -> StateView:
        """Add a tool to `always_available` (sent with every request), or take it out.

        Raises:
            DashboardError: no such tool, or one its catalog pins whatever the settings.
        """
        with self._lock:
            tool = self.catalog.get(tool_id)
            if tool is None:
                raise DashboardError(f"no tool {tool_id!r} in the catalog")
            if is_pinned(tool):
                raise DashboardError(
                    f"{tool_id} is pinned by its own definition in the catalog; "
                    "it is always sent, whatever the settings"
                )
            wanted = [entry for entry in self._pins() if self._id_or_none(entry) != tool_id]
            if pinned:
                wanted.append(tool_id)
            return self.update({"always_available": wanted})

    # -- catalog -----------------------------------------------------------------------------

    def tools(self) -> list[ToolRow]:
        """Every tool, in catalog order, with its token cost, lint and whether it is pinned."""
        version, tools = self.catalog.snapshot()
        facts = self._tool_facts(version, tools)
        pins = set(self._pinned_ids())
        return [
            ToolRow(
                id=tool.id,
                name=tool.name,
                namespace=tool.namespace,
                description=_summary(tool.description),
                tokens=facts[tool.id][0],
                lint=facts[tool.id][1],
                pinned=is_pinned(tool, pins),
                pinned_by_catalog=is_pinned(tool),
            )
            for tool in tools
        ]

    # -- search ----------------------------------------------------------------------------

    def search(self, query: str) -> SearchView:
        """What `search_tools` returns for `query` under the current settings, and the tools
        the ranking has that it leaves out (pinned, below the threshold, past max_results).

        Raises:
            DashboardError: an empty or overlong query, or an engine that cannot run here
                (semantic search without its extra).
        """
        if not query.strip():
            raise DashboardError("type what the tool should do, e.g. “send an email”")
        if len(query) > MAX_QUERY_CHARS:
            raise DashboardError(f"the query is over {MAX_QUERY_CHARS:,} characters; shorten it")
        settings = self._settings
        search = self._tool_search(settings)
        started = time.perf_counter()
        answer = search.find(query)
        milliseconds = (time.perf_counter() - started) * 1000
        (result,) = answer.queries
        absent = [
            _hit_view(entry.tool, entry.hit, entry.hit.normalized_score, entry.detail)
            for entry in _shown_absent(result.left_out)
        ]
        return SearchView(
            query=query,
            engine=settings.engine,
            threshold=answer.threshold,
            results=[_found_view(entry) for entry in result.found],
            absent=absent,
            notice=None if result.found else _why_nothing(result, answer.threshold),
            milliseconds=round(milliseconds, 2),
        )

    # -- tokens ----------------------------------------------------------------------------

    def tokens(self) -> TokensView:
        """Tool tokens per request for the whole catalog and with tool search, as set now."""
        settings = self._settings
        version, tools = self.catalog.snapshot()
        pins = frozenset(self._pinned_ids())
        key = (version, settings.mode, settings.result_format, settings.max_results, pins)
        view = self._estimates.get(key)
        if view is None:
            estimate = estimate_tokens(
                tools,
                mode=settings.mode,
                result_format=settings.result_format,
                max_results=settings.max_results,
                pinned=pins & {tool.id for tool in tools},
            )
            view = TokensView(
                enabled=True,
                mode=settings.mode,
                max_results=settings.max_results,
                whole_catalog=estimate.without_search,
                first_request=estimate.first_request,
                after_discovery=estimate.per_request,
                saving=estimate.saving,
            )
            if len(self._estimates) > 64:
                self._estimates.clear()
            self._estimates[key] = view
        live = self.gateway_attachment.live_tokens() if self.gateway_attachment else None
        activation = None
        on = settings.enabled is True
        if settings.enabled == "auto":
            try:
                decision = settings.auto_activation().decide_tokens(view.whole_catalog)
            except ToolSearchConfigError as error:
                activation = f"tool search auto: no decision, so it is on: {error}"
                on = True
            else:
                activation, on = decision.summary(), decision.on
        if not on:
            # Off, every tool goes with every request.
            everything = view.whole_catalog
            return view.model_copy(
                update={
                    "enabled": False,
                    "first_request": everything,
                    "after_discovery": everything,
                    "saving": 0.0,
                    "live": live,
                    "activation": activation,
                }
            )
        return view.model_copy(update={"live": live, "activation": activation})

    # -- retrieval check --------------------------------------------------------------------

    def check(self, text: str) -> CheckReport:
        """Recall@k (k = max_results) and MRR of labelled queries under the current settings.

        An expected tool counts as found when the search returns it or it is pinned (the
        model has it either way; a pinned one counts as rank 1).

        Raises:
            DashboardError: text that holds no labelled queries, or names unknown tools.
        """
        settings = self._settings
        labelled = read_labelled_queries(text, lambda name: self._resolve(name, "expected"))
        search = self._tool_search(settings)
        pins = {tool.id for tool in self.catalog if search.is_pinned(tool)}
        checks = [
            _query_check(item, search.find(item.query).queries[0], pins, settings.max_results)
            for item in labelled
        ]
        missed = sorted((check for check in checks if check.misses), key=lambda check: check.recall)
        return CheckReport(
            k=settings.max_results,
            engine=settings.engine,
            queries=len(checks),
            recall=sum(check.recall for check in checks) / len(checks),
            mrr=sum(check.reciprocal_rank for check in checks) / len(checks),
            missed=missed,
        )

    # -- saving ----------------------------------------------------------------------------

    def save_preview(self, *, in_place: bool = False) -> SaveView:
        """What "save" would write, where, and the diff from the file as it is; beside a
        host application's file unless `in_place` (`ConfigFile.plan`)."""
        return _save_view(self.config_file.plan(self._settings, in_place=in_place))

    def save(self, *, in_place: bool = False) -> SaveView:
        """Write the settings; the view afterwards (an empty diff)."""
        with self._lock:
            settings = self._settings
            plan = self.config_file.plan(settings, in_place=in_place)
            self.config_file.write(plan.proposed, plan.path)
            self._saved = settings
        return self.save_preview(in_place=in_place)

    # -- gateway ---------------------------------------------------------------------------

    def gateway(self) -> GatewayView:
        """The attached gateway's upstreams and sessions.

        Raises:
            DashboardError: no gateway is attached.
        """
        if self.gateway_attachment is None:
            raise DashboardError(
                "no gateway attached: start the dashboard with a gateway's config file "
                "(toolscout dashboard --config gateway.yaml)"
            )
        return self.gateway_attachment.view()

    # -- helpers ---------------------------------------------------------------------------

    def _tool_search(self, settings: ToolSearchSettings) -> ToolSearch:
        """The `ToolSearch` the settings describe (the engine's index kept across changes);
        its store is never built: the page asks, it keeps no conversation."""
        with self._lock:
            current = self._searches.get(settings.engine)
            pinned = tuple(self._pinned_ids())
            try:
                config = settings.processor_config(pinned=pinned)
                if current is not None and current.config == config:
                    return current
                search = settings.build(
                    self.catalog,
                    store=ContextStore(),
                    index=current.index if current is not None else None,
                    pinned=pinned,
                )
                search.index.refresh()  # builds now, so that a missing extra shows here
            except ToolScoutError as error:
                raise DashboardError(str(error)) from None
            self._searches[settings.engine] = search
            return search

    def _tool_facts(self, version: int, tools: Sequence[Tool]) -> dict[str, tuple[int, list[str]]]:
        """Each tool's token cost and lint messages, computed once per catalog version."""
        with self._lock:
            if self._rows is None or self._rows[0] != version:
                lint: dict[str, list[str]] = {}
                for issue in lint_tools(tools):
                    lint.setdefault(issue.tool_id, []).append(issue.message)
                self._rows = (
                    version,
                    {tool.id: (tool_tokens(tool), lint.get(tool.id, [])) for tool in tools},
                )
            return self._rows[1]

    def _pins(self) -> tuple[str, ...]:
        return self._settings.always_available

    def _pinned_ids(self) -> list[str]:
        """`always_available` as tool ids; entries no tool has (yet) are left out."""
        return [tool_id for name in self._pins() if (tool_id := self._id_or_none(name))]

    def _pin_entries(self, names: Sequence[Any]) -> list[str]:
        """New `always_available` entries as ids. An entry the settings already have is
        kept as it is even when no tool has it: a gateway's upstream may not be up yet."""
        entries = []
        for name in names:
            if name in self._pins() and self._id_or_none(name) is None:
                entries.append(name)
            else:
                entries.append(self._resolve(name, "always_available"))
        return list(dict.fromkeys(entries))

    def _id_or_none(self, name: str) -> str | None:
        try:
            return self._resolve(name, "always_available")
        except DashboardError:
            return None

    def _resolve(self, name: str, field: str) -> str:
        """The id of the tool `name` names: an id, or a name only one tool has."""
        if not isinstance(name, str):
            raise DashboardError(f"{field}: tool names must be text, got {type(name).__name__}")
        if name in self.catalog:
            return name
        owners = self.catalog.by_name(name)
        if len(owners) == 1:
            return owners[0].id
        if owners:
            ids = ", ".join(tool.id for tool in owners)
            raise DashboardError(f"{field}: several tools are named {name!r} ({ids}); give the id")
        known = [tool.id for tool in self.catalog]
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise DashboardError(f"{field}: no tool {name!r} in the catalog{hint}")


def _names(changes: Mapping[str, Any]) -> list[Any]:
    names = changes["always_available"]
    if isinstance(names, str):
        return [names]
    if not isinstance(names, list):
        raise DashboardError("always_available: expected a list of tool ids")
    return names


def _shown_absent(left_out: Sequence[LeftOutTool]) -> list[LeftOutTool]:
    """The left-out tools the page lists: every pinned or filtered one, and the first few
    below the threshold and past max_results."""
    shown: list[LeftOutTool] = []
    counts: dict[str, int] = {}
    for entry in left_out:
        counts[entry.reason] = counts.get(entry.reason, 0) + 1
        capped = entry.reason in ("below_threshold", "past_max_results")
        if not capped or counts[entry.reason] <= _ABSENT_SHOWN:
            shown.append(entry)
    return shown


def _why_nothing(answer: QueryAnswer, threshold: float) -> str:
    """Why a search returns nothing: what the settings left out, or search's own notice."""
    scores = [
        entry.hit.normalized_score for entry in answer.left_out if entry.reason == "below_threshold"
    ]
    if scores:
        return (
            f"The best tool scores {max(scores):.2f}, below the threshold {threshold:.2f}, "
            "so search_tools would return nothing"
        )
    if any(entry.reason == "pinned" for entry in answer.left_out):
        return "Every tool this query matches is pinned, so search_tools returns none of them"
    return answer.notice or "No tool matches this query"


def _settings_view(settings: ToolSearchSettings) -> SettingsView:
    return SettingsView(
        enabled=settings.enabled,
        engine=settings.engine,
        mode=settings.mode,
        max_results=settings.max_results,
        threshold=settings.threshold,
        engine_choice=str(choose_engine(settings.engine)),
        effective_threshold=effective_threshold(
            choose_engine(settings.engine).name, settings.threshold
        ),
        result_format=settings.result_format,
        always_available=list(settings.always_available),
    )


def _summary(description: str) -> str:
    text = " ".join(description.split())
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1].rstrip() + "…"


def _found_view(entry: FoundTool) -> HitView:
    return _hit_view(entry.tool, entry.hit, entry.normalized_score, None)


def _hit_view(
    tool: Tool, hit: SearchHit | None, normalized_score: float, absent_reason: str | None
) -> HitView:
    """A tool as the page shows it; `hit` is None for a query that is exactly its name and
    that the ranking did not have (scored 1, no matched words)."""
    terms = hit.matched_terms if hit is not None else []
    description = " ".join(tool.description.split())
    if len(description) > _DESCRIPTION_CHARS:
        description = description[: _DESCRIPTION_CHARS - 1].rstrip() + "…"
    properties = tool.input_schema.get("properties")
    parameters = []
    if isinstance(properties, dict):
        for name, schema in list(properties.items())[:_PARAMETERS_SHOWN]:
            text = schema.get("description", "") if isinstance(schema, dict) else ""
            text = text if isinstance(text, str) else ""
            parameters.append(
                ParameterView(
                    name=name,
                    description=text,
                    name_spans=matched_spans(name, terms),
                    description_spans=matched_spans(text, terms),
                )
            )
    return HitView(
        rank=hit.rank if hit is not None else 1,
        id=tool.id,
        name=tool.name,
        namespace=tool.namespace,
        description=description,
        score=round(hit.score if hit is not None else normalized_score, 4),
        normalized_score=round(normalized_score, 4),
        name_spans=matched_spans(tool.name, terms),
        description_spans=matched_spans(description, terms),
        parameters=parameters,
        matched_terms=[
            f"{term.query_term} → {term.index_term} ({', '.join(term.fields)})"
            + ("" if term.kind == "exact" else f", {term.kind}")
            for term in terms
        ],
        absent_reason=absent_reason,
    )


def _query_check(item: LabelledQuery, answer: QueryAnswer, pins: set[str], k: int) -> QueryCheck:
    """How one labelled query fares: what `search_tools` returns (`ToolSearch.find`), and
    where each missing tool ranked and what left it out."""
    returned = [entry.tool.id for entry in answer.found]
    found = [tool_id for tool_id in item.expected if tool_id in pins or tool_id in returned]
    ranks = [1 if tool_id in pins else returned.index(tool_id) + 1 for tool_id in found]
    left_out = {entry.tool.id: entry for entry in answer.left_out}
    pinned_ranks = [entry.hit.rank for entry in answer.left_out if entry.reason == "pinned"]
    misses = []
    for tool_id in item.expected:
        if tool_id in found:
            continue
        entry = left_out.get(tool_id)
        if entry is None:
            misses.append(f"{tool_id}: not among the {MAX_K} best for this query")
            continue
        # Its place among the tools search may return, as the model would see them ranked.
        position = entry.hit.rank - sum(rank < entry.hit.rank for rank in pinned_ranks)
        if entry.reason == "past_max_results":
            misses.append(f"{tool_id}: ranked {position}, past max_results ({k})")
        else:
            misses.append(f"{tool_id}: ranked {position}, but {entry.detail}")
    return QueryCheck(
        query=item.query,
        expected=list(item.expected),
        found=found,
        results=returned,
        recall=len(found) / len(item.expected),
        reciprocal_rank=1 / min(ranks) if ranks else 0.0,
        misses=misses,
    )


def _save_view(plan: SavePlan) -> SaveView:
    return SaveView(
        path=str(plan.path),
        exists=bool(plan.current),
        current=plan.current,
        proposed=plan.proposed,
        diff=plan.diff,
        note=plan.note,
        host_file=str(plan.host_file) if plan.host_file is not None else None,
    )
