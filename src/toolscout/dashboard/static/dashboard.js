// The dashboard page: plain DOM and fetch, no build step. Every panel asks the JSON API
// (toolscout/dashboard/app.py) and redraws itself; text from the catalog is only ever set
// as text, never as HTML.
"use strict";

const TOOLS_SHOWN = 300; // checklist rows drawn at once; the filter narrows the rest
const $ = (id) => document.getElementById(id);

let state = null;
let tools = [];

async function api(path, options = {}) {
  const init = { ...options, headers: { Accept: "application/json" } };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function toast(message, isError = false) {
  const box = $("toast");
  box.textContent = message;
  box.className = isError ? "error" : "";
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, isError ? 7000 : 3000);
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

// Text with the given [start, end) spans wrapped in <mark>.
function highlighted(text, spans) {
  const fragment = document.createDocumentFragment();
  let at = 0;
  for (const [start, end] of spans) {
    if (start > at) fragment.append(text.slice(at, start));
    fragment.append(element("mark", { text: text.slice(start, end) }));
    at = end;
  }
  fragment.append(text.slice(at));
  return fragment;
}

function debounce(fn, wait) {
  let timer;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), wait); };
}

// -- settings ---------------------------------------------------------------------------

function fillSelect(select, options, value) {
  if (!select.options.length) for (const option of options) select.append(element("option", { value: option, text: option }));
  select.value = value;
}

function showState(next) {
  state = next;
  const s = state.settings;
  $("catalog-name").textContent = `${state.catalog} · ${state.tools.toLocaleString()} tools · ${state.config_path}`;
  $("enabled").checked = s.enabled !== false;
  $("enabled-label").textContent = s.enabled === "auto" ? "auto" : s.enabled ? "on" : "off";
  fillSelect($("engine"), state.engines, s.engine);
  $("engine-choice").textContent = s.engine_choice;
  fillSelect($("mode"), state.modes, s.mode);
  fillSelect($("result-format"), state.result_formats, s.result_format);
  $("max-results").max = state.max_results_limit;
  $("max-results").value = s.max_results;
  $("max-results-value").textContent = s.max_results;
  $("threshold").value = s.effective_threshold;
  $("threshold-value").textContent = s.effective_threshold.toFixed(2) + (s.threshold === null ? " (engine default)" : "");
  $("threshold-default").hidden = s.threshold === null;
  $("unsaved").hidden = !state.unsaved;
  $("gateway-badge").hidden = !state.gateway;
  $("gateway").hidden = !state.gateway;
  $("settings-note").hidden = !state.gateway;
  $("pinned-count").textContent = `(${tools.filter((t) => t.pinned).length})`;
}

async function change(settings) {
  try {
    showState(await api("/api/settings", { method: "PATCH", body: settings }));
    await refreshAfterChange();
  } catch (error) {
    toast(error.message, true);
    showState(await api("/api/state"));
  }
}

async function refreshAfterChange() {
  await Promise.all([runQuery(), showTokens()]);
}

// -- pinned tools -----------------------------------------------------------------------

function toolMatches(tool, words) {
  const text = `${tool.id} ${tool.description}`.toLowerCase();
  return words.every((word) => text.includes(word));
}

function drawTools() {
  const words = $("tool-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const list = $("tool-list");
  list.replaceChildren();
  const shown = tools.filter((tool) => tool.pinned || toolMatches(tool, words));
  // Pinned tools first, then by namespace in catalog order.
  const groups = new Map([["Pinned", []]]);
  for (const tool of shown) {
    const key = tool.pinned ? "Pinned" : tool.namespace || "(no namespace)";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(tool);
  }
  let drawn = 0;
  for (const [name, members] of groups) {
    if (!members.length) continue;
    const details = element("details", { open: "" }, element("summary", { text: `${name} (${members.length})` }));
    for (const tool of members) {
      if (drawn >= TOOLS_SHOWN && !tool.pinned) break;
      details.append(toolRow(tool));
      drawn += 1;
    }
    list.append(details);
  }
  const hidden = shown.length - drawn;
  if (hidden > 0) list.append(element("p", { class: "more", text: `${hidden.toLocaleString()} more: type in the filter to narrow the list` }));
  $("pinned-count").textContent = `(${tools.filter((t) => t.pinned).length})`;
}

function toolRow(tool) {
  const box = element("input", { type: "checkbox", "data-tool": tool.id });
  box.checked = tool.pinned;
  box.disabled = tool.pinned_by_catalog;
  box.addEventListener("change", () => pin(tool, box.checked));
  const label = element("label", { class: "tool", title: tool.pinned_by_catalog ? "pinned in the catalog itself" : "" },
    box,
    element("span", { class: "name", text: tool.id }),
    element("span", { class: "tokens", text: `${tool.tokens.toLocaleString()} tok` }),
    element("span", { class: "summary", text: tool.description }));
  for (const message of tool.lint) label.append(element("span", { class: "lint", text: `⚠ ${message}` }));
  return label;
}

async function pin(tool, pinned) {
  try {
    showState(await api("/api/pins", { method: "POST", body: { tool_id: tool.id, pinned } }));
    tool.pinned = pinned;
    drawTools();
    await refreshAfterChange();
  } catch (error) {
    toast(error.message, true);
  }
}

async function loadTools() {
  tools = await api("/api/tools");
  drawTools();
}

// -- query ------------------------------------------------------------------------------

function hitItem(hit, threshold) {
  const title = element("div", { class: "title" },
    element("span", { class: "name" }, highlighted(hit.name, hit.name_spans)),
    hit.namespace ? element("span", { class: "namespace", text: hit.namespace }) : null);
  const bar = element("span", { class: "bar", title: `normalized score ${hit.normalized_score.toFixed(2)}` },
    element("span", { class: "fill", style: `width:${Math.round(hit.normalized_score * 100)}%` }),
    element("span", { class: "threshold", style: `left:${Math.round(threshold * 100)}%`, title: `threshold ${threshold.toFixed(2)}` }));
  const score = element("div", { class: "score" }, bar,
    element("span", { text: `${hit.normalized_score.toFixed(2)} (raw ${hit.score.toFixed(2)})` }));
  const body = element("div", { class: "body" }, title, score,
    element("p", { class: "description" }, highlighted(hit.description, hit.description_spans)));
  const matchedParameters = hit.parameters.filter((p) => p.name_spans.length || p.description_spans.length);
  if (matchedParameters.length) {
    const params = element("ul", { class: "params" });
    for (const p of matchedParameters) {
      params.append(element("li", {},
        element("code", {}, highlighted(p.name, p.name_spans)), " ",
        highlighted(p.description, p.description_spans)));
    }
    body.append(params);
  }
  if (hit.absent_reason) body.append(element("div", { class: "reason", text: `Not returned: ${hit.absent_reason}` }));
  if (hit.matched_terms.length) {
    const why = element("details", {}, element("summary", { text: "matched terms" }));
    const list = element("ul");
    for (const term of hit.matched_terms) list.append(element("li", { text: term }));
    why.append(list);
    body.append(why);
  }
  return element("li", { class: "hit", "data-tool": hit.id }, element("span", { class: "rank", text: hit.rank }), body);
}

let querySerial = 0;
async function runQuery() {
  const query = $("query-input").value;
  const status = $("query-status");
  if (!query.trim()) {
    $("results").replaceChildren();
    $("absent-block").hidden = true;
    status.textContent = "Type a query to see what search_tools would return.";
    return;
  }
  const serial = ++querySerial;
  const slow = setTimeout(() => { status.textContent = "Searching… (the first semantic search embeds the catalog)"; }, 400);
  try {
    const view = await api(`/api/search?q=${encodeURIComponent(query)}`);
    if (serial !== querySerial) return; // a newer query has started
    $("results").replaceChildren(...view.results.map((hit) => hitItem(hit, view.threshold)));
    $("absent").replaceChildren(...view.absent.map((hit) => hitItem(hit, view.threshold)));
    $("absent-block").hidden = !view.absent.length;
    status.textContent = view.results.length
      ? `${view.results.length} tools with ${view.engine}, threshold ${view.threshold.toFixed(2)} · ${view.milliseconds} ms`
      : view.notice || "No tool found.";
  } catch (error) {
    if (serial === querySerial) status.textContent = error.message;
  } finally {
    clearTimeout(slow);
  }
}

// -- tokens -----------------------------------------------------------------------------

async function showTokens() {
  let view;
  try {
    view = await api("/api/tokens");
  } catch (error) {
    $("tokens-summary").textContent = error.message;
    return;
  }
  const bars = [["Whole catalog, every request", view.whole_catalog]];
  bars.push([view.enabled ? "Tool search: first request" : "Tool search off: first request", view.first_request]);
  bars.push([view.enabled ? `After one search (${view.max_results} tools)` : "Tool search off: later requests", view.after_discovery]);
  if (view.live) bars.push([`Gateway so far (${view.live.requests} requests)`, Math.round(view.live.per_request)]);
  $("tokens-summary").textContent = view.enabled
    ? `Mode ${view.mode}: tool search saves ${(view.saving * 100).toFixed(1)}% of the tool tokens per request.`
    : "Tool search is off: every tool is sent with every request.";
  $("activation").textContent = view.activation || "";
  drawChart(bars);
}

function drawChart(bars) {
  // One bar per figure, its label above it and its value after it, all inside the panel.
  const svg = $("token-chart");
  const ns = "http://www.w3.org/2000/svg";
  const width = svg.clientWidth || 320;
  const row = 42;
  svg.setAttribute("height", bars.length * row);
  svg.replaceChildren();
  const most = Math.max(...bars.map(([, value]) => value), 1);
  const svgText = (x, y, content, className) => {
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", x); text.setAttribute("y", y);
    if (className) text.setAttribute("class", className);
    text.textContent = content;
    return text;
  };
  bars.forEach(([label, value], i) => {
    const y = i * row;
    const barWidth = Math.max(2, (width - 120) * value / most);
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", 0); rect.setAttribute("y", y + 18);
    rect.setAttribute("width", barWidth); rect.setAttribute("height", 14); rect.setAttribute("rx", 3);
    rect.setAttribute("fill", i === 0 ? "#9aa3b5" : "#2557d6");
    svg.append(svgText(0, y + 13, label), rect,
      svgText(barWidth + 6, y + 29, `${value.toLocaleString()} tokens`, "value"));
  });
}

// -- retrieval check --------------------------------------------------------------------

async function runCheck() {
  const report = $("check-report");
  report.textContent = "Checking…";
  try {
    const result = await api("/api/check", { method: "POST", body: { text: $("check-text").value } });
    report.replaceChildren(
      element("div", { class: "metrics" },
        element("div", { class: "metric" }, element("strong", { text: result.recall.toFixed(3) }), `Recall@${result.k}`),
        element("div", { class: "metric" }, element("strong", { text: result.mrr.toFixed(3) }), "MRR"),
        element("div", { class: "metric" }, element("strong", { text: result.queries }), `queries (${result.engine})`)),
      result.missed.length
        ? element("h3", { text: `${result.missed.length} queries miss an expected tool` })
        : element("p", { text: "Every expected tool is found." }));
    for (const miss of result.missed) {
      const list = element("ul");
      for (const reason of miss.misses) list.append(element("li", { text: reason }));
      report.append(element("div", { class: "miss" },
        element("strong", { text: miss.query }),
        element("div", { class: "muted", text: `returned: ${miss.results.join(", ") || "nothing"}` }), list));
    }
  } catch (error) {
    report.textContent = error.message;
  }
}

// -- save -------------------------------------------------------------------------------

// Into a host application's own file (Claude Desktop's...) instead of the file beside it.
let saveInPlace = false;

async function openSave() {
  try {
    saveInPlace = false;
    $("save-in-place-box").checked = false;
    $("save-in-place").hidden = true;
    await showSave();
    $("save-dialog").showModal();
    $("save-confirm").disabled ? $("save-cancel").focus() : $("save-confirm").focus();
  } catch (error) {
    toast(error.message, true);
  }
}

async function showSave() {
  const view = await api(saveInPlace ? "/api/save?in_place=1" : "/api/save");
  $("save-path").textContent = view.path;
  $("save-note").textContent = view.note + (view.diff ? " Lines in red are removed, in green added." : "");
  if (view.host_file) {
    const name = view.host_file.split(/[\\/]/).pop();
    $("save-in-place-label").textContent = `Change ${name} itself instead (only its tool_search key)`;
    $("save-in-place").hidden = false;
  }
  const diff = $("save-diff");
  diff.replaceChildren();
  const lines = view.diff ? view.diff.split("\n") : ["No change: the file already says this."];
  for (const line of lines) {
    const kind = line.startsWith("+") && !line.startsWith("+++") ? "add"
      : line.startsWith("-") && !line.startsWith("---") ? "del"
      : line.startsWith("@@") ? "hunk" : "";
    diff.append(element("span", { class: kind, text: line + "\n" }));
  }
  $("save-confirm").disabled = !view.diff;
}

async function toggleInPlace() {
  try {
    saveInPlace = $("save-in-place-box").checked;
    await showSave();
  } catch (error) {
    toast(error.message, true);
  }
}

async function confirmSave() {
  try {
    const view = await api("/api/save", { method: "POST", body: { in_place: saveInPlace } });
    $("save-dialog").close();
    toast(`Saved ${view.path}`);
    showState(await api("/api/state"));
  } catch (error) {
    toast(error.message, true);
  }
}

// -- gateway ----------------------------------------------------------------------------

async function showGateway() {
  if (!state || !state.gateway) return;
  try {
    const view = await api("/api/gateway");
    $("gateway-url").textContent = view.mcp_url ? `MCP endpoint: ${view.mcp_url}` : "";
    $("upstreams").tBodies[0].replaceChildren(...view.upstreams.map((u) => element("tr", {},
      element("td", { text: u.name }), element("td", { text: u.namespace }),
      element("td", { class: `state-${u.state}`, text: u.state }),
      element("td", { text: u.tools }), element("td", { text: u.error || (u.connections > 1 ? `restarted ${u.connections - 1}×` : "") }))));
    $("sessions").replaceChildren(...(view.sessions.length ? view.sessions.map((s) => element("li", {},
      element("code", { text: s.id }), ` — ${s.discovered.length ? s.discovered.join(", ") : "nothing discovered yet"}`))
      : [element("li", { class: "muted", text: "No client session yet." })]));
  } catch (error) {
    $("gateway-url").textContent = error.message;
  }
}

// -- wiring -----------------------------------------------------------------------------

function wire() {
  $("enabled").addEventListener("change", (e) => change({ enabled: e.target.checked }));
  $("engine").addEventListener("change", (e) => change({ engine: e.target.value }));
  $("mode").addEventListener("change", (e) => change({ mode: e.target.value }));
  $("result-format").addEventListener("change", (e) => change({ result_format: e.target.value }));
  $("max-results").addEventListener("input", (e) => { $("max-results-value").textContent = e.target.value; });
  $("max-results").addEventListener("change", (e) => change({ max_results: Number(e.target.value) }));
  $("threshold").addEventListener("input", (e) => { $("threshold-value").textContent = Number(e.target.value).toFixed(2); });
  $("threshold").addEventListener("change", (e) => change({ threshold: Number(e.target.value) }));
  $("threshold-default").addEventListener("click", () => change({ threshold: null }));
  $("tool-filter").addEventListener("input", debounce(drawTools, 150));
  $("query-input").addEventListener("input", debounce(runQuery, 200));
  $("check-run").addEventListener("click", runCheck);
  $("check-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) { $("check-text").value = await file.text(); runCheck(); }
  });
  $("save-open").addEventListener("click", openSave);
  $("save-confirm").addEventListener("click", confirmSave);
  $("save-in-place-box").addEventListener("change", toggleInPlace);
  $("save-cancel").addEventListener("click", () => $("save-dialog").close());
  $("gateway-refresh").addEventListener("click", showGateway);
  window.addEventListener("resize", debounce(showTokens, 200));
}

async function start() {
  wire();
  try {
    showState(await api("/api/state"));
    await Promise.all([loadTools(), showTokens(), runQuery(), showGateway()]);
    document.body.dataset.ready = "true";
  } catch (error) {
    toast(error.message, true);
  }
}

start();
