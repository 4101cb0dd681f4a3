// The explorer's page: a live session (start, step, go back to any state, every action ranked,
// the diff against the parent, a link that reopens the state, a command line replayed) and a
// database's states, drawn from the JSON API of compiler_gym.bin.explorer. No framework and
// no build step.

import { renderBars, renderLine } from "./charts.js";
import { formatReward } from "./format.js";
import { diffSummary, rankingSummary, renderDiff, renderRanking } from "./panels.js";
import { benchmarkPicker } from "./picker.js";
import { renderTree } from "./tree.js";

const $ = (id) => document.getElementById(id);

// The two views. Nodes are the API's states, indexed by id; `current` is the one shown;
// `collapsed` the tree's folded states. A live session keeps what it fetched per state: its
// text, its diff against its parent and its ranking of every action.
const live = freshLive();
const db = { benchmark: null, nodes: [], current: null, details: new Map(), collapsed: new Set() };
let describe = null;
let mode = "live";
let textMode = "text"; // or "diff"
let treeZoom = 1;
let running = 0;

// How many times a request is asked again when the server says it stopped short: its work
// is bounded, and each answer makes progress (a deep state reached a checkpoint at a time).
const MAX_TRIES = 50;

function freshLive(session = null, reward = null) {
  return {
    session,
    reward,
    nodes: [],
    current: null,
    texts: new Map(),
    diffs: new Map(),
    rankings: new Map(),
    collapsed: new Set(),
  };
}

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return null; // not JSON: the status says enough
  }
}

async function api(path, options = {}) {
  for (let tries = 1; ; tries += 1) {
    let response = await fetch(path, options);
    let body = await readJson(response);
    // 202: a start or a ranking outlasted the request's time and goes on as a job; its URL
    // answers once it has ended (each ask waits for it for up to a request's time).
    while (response.status === 202 && body?.job) {
      $("status").textContent = `${body.kind === "rank" ? "ranking" : "starting"}… ${Math.round(body.elapsed_seconds)} s`;
      await new Promise((resolve) => setTimeout(resolve, 200));
      response = await fetch(`/api/v4/job/${encodeURIComponent(body.job)}`);
      body = await readJson(response);
    }
    // 503 with Retry-After: going back to a deep state took the request's time; asking
    // again goes on from where it stopped (or the session was busy).
    if (response.status === 503 && response.headers.has("Retry-After") && tries < MAX_TRIES) {
      const seconds = Number(response.headers.get("Retry-After"));
      await new Promise((resolve) => setTimeout(resolve, 1000 * seconds));
      continue;
    }
    if (!response.ok) throw new Error(body?.error ?? `HTTP ${response.status}`);
    return body;
  }
}

function showError(error) {
  const box = $("error");
  box.hidden = !error;
  box.textContent = error ? String(error.message ?? error) : "";
}

function busy(delta) {
  running += delta;
  document.body.dataset.busy = running === 0 ? "false" : "true";
}

// Runs one user action: errors are shown, what the state shows is fetched, the page is
// redrawn, and body[data-busy] says when everything asked for has been drawn (what the tests
// wait for).
async function run(task) {
  busy(+1);
  showError(null);
  try {
    await task();
    await fetchDetails();
  } catch (error) {
    showError(error);
  } finally {
    render();
    busy(-1);
  }
}

// Work that redraws nothing itself (the picker's searches): busy while it runs, its error shown.
function track(promise) {
  busy(+1);
  return promise.catch(showError).finally(() => busy(-1));
}

// How rewards read: by the kind of the live session's reward space; a database's are unknown.
function rewardKind() {
  return mode === "live" && live.reward ? describe?.reward_formats?.[live.reward] : undefined;
}
const formatStep = (value) => formatReward(value, rewardKind());
const formatTotal = (value) => formatReward(value, rewardKind(), { signed: false });

function flagOf(action) {
  return describe ? Object.keys(describe.actions)[action] ?? String(action) : String(action);
}

function fillActions(filter) {
  const select = $("action");
  const previous = select.value;
  select.replaceChildren();
  for (const [flag, index] of Object.entries(describe.actions)) {
    if (!filter || flag.includes(filter)) select.appendChild(new Option(flag, index));
  }
  if ([...select.options].some((o) => o.value === previous)) select.value = previous;
}

async function setup() {
  describe = await api("/api/v4/describe");
  const listed = describe.datasets.reduce((n, d) => n + (d.installed && d.size ? d.size : 0), 0);
  $("benchmark").placeholder = `search ${listed} benchmarks or type a URI`;
  $("benchmark").value = describe.default_benchmark;
  benchmarkPicker($("benchmark"), $("benchmark-list"), {
    search: (query, limit) => api(`/api/v4/benchmarks?q=${encodeURIComponent(query)}&limit=${limit}`),
    track,
    onEnter: () => run(() => start(chosenBenchmark())),
  });
  for (const reward of describe.rewards) $("reward").appendChild(new Option(reward, reward));
  $("reward").value = describe.default_reward;
  // What a state shows is the env family's: its headline number, text and feature charts.
  $("headline-label").textContent = describe.state.headline.label;
  $("text-label").textContent = describe.state.text.label;
  for (const feature of describe.state.features) {
    const panel = $("feature-panel").content.firstElementChild.cloneNode(true);
    panel.querySelector(".title").textContent = feature.title;
    panel.querySelector(".bars").id = `${feature.key}-chart`;
    $("text-panel").before(panel);
  }
  fillActions("");
  if (describe.database) setupDatabase(await api("/api/v4/db"));
  // A shared link: the state it names, reached again.
  if (location.hash.length > 1) await openShared(location.hash);
}

function setupDatabase(summary) {
  $("tab-db").hidden = false;
  $("db-summary").textContent = `${summary.path}: ${summary.states} states, ${summary.transitions} transitions`;
  for (const b of summary.benchmarks) $("db-benchmark").appendChild(new Option(`${b.uri} (${b.states} states)`, b.uri));
}

function chosenBenchmark() {
  return $("benchmark").value.trim() || describe.default_benchmark;
}

// A link's fragment, as a state's `share` writes it: #benchmark=URI&reward=NAME&actions=F,F.
async function openShared(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const benchmark = params.get("benchmark");
  if (!benchmark) throw new Error("the link names no benchmark (#benchmark=URI&reward=NAME&actions=FLAG,FLAG)");
  const reward = params.get("reward") || describe.default_reward;
  if (!describe.rewards.includes(reward)) throw new Error(`the link's reward ${reward} is not one of ${describe.rewards.join(", ")}`);
  const actions = (params.get("actions") ?? "").split(",").filter(Boolean);
  $("benchmark").value = benchmark;
  $("reward").value = reward;
  mode = "live";
  await start(benchmark, actions, reward);
}

function absorb(states) {
  const key = describe.state.text.key;
  for (const state of states) {
    const { [key]: text, ...rest } = state;
    live.nodes[state.id] = rest;
    if (text !== undefined) live.texts.set(state.id, text);
  }
  if (states.length) live.current = states[states.length - 1].id;
}

// A new session on `benchmark`, taking `actions` (indices or flags) from its start state.
async function start(benchmark, actions = [], reward = $("reward").value) {
  // A request takes at most max_actions_per_request actions: the rest are steps.
  const first = actions.slice(0, describe.limits.max_actions_per_request);
  const taken = first.length ? encodeURIComponent(first.join(",")) : "-";
  // The new session first: a start that fails (a benchmark that does not exist) leaves the
  // session shown usable; the old one is stopped only once it is replaced.
  const path = `/api/v4/start/${encodeURIComponent(reward)}/${taken}/${encodeURIComponent(benchmark)}?ir=1`;
  const body = await api(path);
  const old = live.session; // read after the wait: a start meanwhile may have replaced it
  Object.assign(live, freshLive(body.session_id, reward));
  absorb(body.states);
  if (old) stop(old);
  await take(actions.slice(body.states.length - 1));
}

// Takes actions from the current state, as many requests as it needs: each takes at most
// max_actions_per_request, and a request whose work ran out of time answers the states it took
// with "truncated" (none when going back to a deep state took the time: asking again goes on).
async function take(actions) {
  let idle = 0;
  while (actions.length && !live.nodes[live.current].done) {
    const chunk = encodeURIComponent(actions.slice(0, describe.limits.max_actions_per_request).join(","));
    const body = await api(`/api/v4/step/${live.session}/${chunk}?from=${live.current}&ir=1`);
    absorb(body.states);
    actions = actions.slice(body.states.length);
    idle = body.states.length ? 0 : idle + 1;
    if (idle >= MAX_TRIES) throw new Error("the server made no progress; try again later");
  }
  // The text of the state shown, when reaching it took past the request's time.
  if (!live.texts.has(live.current)) await selectLive(live.current);
}

function stop(session) {
  // Fire and forget: the server times sessions out anyway.
  fetch(`/api/v4/stop/${session}`, { keepalive: true }).catch(() => {});
}

async function step() {
  const action = $("action").value;
  if (action === "") throw new Error("no action matches the filter");
  await take([Number(action)]);
}

async function selectLive(id) {
  live.current = id;
  if (!live.texts.has(id)) {
    const body = await api(`/api/v4/state/${live.session}/${id}?ir=1`);
    live.texts.set(id, body.state[describe.state.text.key]);
  }
}

// What the panels show of the live state that the page does not have yet: its diff against
// its parent, when the diff is shown.
async function fetchDetails() {
  if (mode !== "live" || !live.session || textMode !== "diff") return;
  const node = live.nodes[live.current];
  if (!node || node.parent === null || node.error || live.diffs.has(node.id)) return;
  live.diffs.set(node.id, await api(`/api/v4/diff/${live.session}/${node.id}`));
}

async function rankActions() {
  const id = live.current;
  if (!live.rankings.has(id)) live.rankings.set(id, await api(`/api/v4/rank/${live.session}/${id}`));
}

async function replay() {
  const text = $("replay").value.trim();
  if (!text) throw new Error("paste a command line to replay: opt -passes=…, -mem2reg -gvn, or a state CSV row");
  const body = await api(`/api/v4/commandline?text=${encodeURIComponent(text)}`);
  const benchmark = body.benchmark ?? chosenBenchmark();
  $("benchmark").value = benchmark;
  $("replay-note").textContent = body.ignored.length ? `ignored: ${body.ignored.join(" ")}` : "";
  mode = "live";
  await start(benchmark, body.actions);
}

async function loadDatabaseTree(benchmark) {
  const body = await api(`/api/v4/db/tree?benchmark=${encodeURIComponent(benchmark)}`);
  Object.assign(db, { benchmark, nodes: body.nodes, current: null, truncated: body.truncated, collapsed: new Set() });
  if (body.nodes.length) await selectDatabase(0);
}

async function selectDatabase(id) {
  db.current = id;
  // The parent's features too: the charts show what changed.
  const parent = db.nodes[id].parent;
  for (const node of parent === null ? [db.nodes[id]] : [db.nodes[id], db.nodes[parent]]) {
    const hash = node.state_hash;
    if (!db.details.has(hash)) db.details.set(hash, await api(`/api/v4/db/state/${hash}`));
  }
}

function path(nodes, id) {
  const out = [];
  for (let at = id; at !== null && at !== undefined && nodes[at]; at = nodes[at].parent) out.push(nodes[at]);
  return out.reverse();
}

function setNumber(id, value, format) {
  const e = $(id);
  e.textContent = value === null || value === undefined ? "–" : format(value);
  e.dataset.value = value === null || value === undefined ? "" : String(value);
}

function setZoom(zoom) {
  treeZoom = Math.min(2.5, Math.max(0.5, Math.round(zoom * 10) / 10));
  $("tree").style.setProperty("--zoom", String(treeZoom));
  $("tree-zoom-level").textContent = `${Math.round(treeZoom * 100)}%`;
}

function view() {
  return mode === "live" ? live : db;
}

function drawTree() {
  const v = view();
  const select = mode === "live" ? (id) => run(() => selectLive(id)) : (id) => run(() => selectDatabase(id));
  renderTree($("tree"), v.nodes, v.current, {
    onSelect: select,
    onToggle: (id) => {
      if (!v.collapsed.delete(id)) v.collapsed.add(id);
      drawTree();
    },
    collapsed: v.collapsed,
    format: formatStep,
  });
}

// Folds every state with children that is off the path to the state shown.
function collapseOthers() {
  const v = view();
  const onPath = new Set(path(v.nodes, v.current).map((n) => n.id));
  v.collapsed.clear();
  // A state on the path keeps its children shown; any other state with children folds.
  for (const node of v.nodes) {
    const parent = node?.parent;
    if (parent !== null && parent !== undefined && !onPath.has(parent)) v.collapsed.add(parent);
  }
  drawTree();
}

function renderText(isLive, node, parent) {
  let text = "";
  if (isLive) {
    text = node ? live.texts.get(node.id) ?? "" : "";
    if (node?.error) text = `The episode ended in an error: ${node.error}`;
  } else {
    const details = node ? db.details.get(node.state_hash) : null;
    text = details ? details.ir ?? "The database holds no IR of this state (log it with log_ir=True)." : "";
  }
  $("text").textContent = text;
  const diffing = isLive && textMode === "diff";
  $("text").hidden = diffing;
  $("diff").hidden = !diffing;
  $("text-tab").classList.toggle("active", !diffing);
  $("diff-tab").classList.toggle("active", diffing);
  $("text-tab").setAttribute("aria-selected", String(!diffing));
  $("diff-tab").setAttribute("aria-selected", String(diffing));
  $("diff-tab").disabled = !isLive;
  let summary = "";
  let diff = null;
  if (diffing && node) {
    diff = live.diffs.get(node.id) ?? null;
    if (!parent) summary = "the start state has no parent";
    else if (node.error) summary = "the episode ended in an error: no text to compare";
    else summary = diffSummary(diff);
  }
  renderDiff($("diff"), diff);
  $("diff-summary").textContent = summary;
}

function renderRankingPanel(isLive, node) {
  const ranking = isLive && node ? live.rankings.get(node.id) ?? null : null;
  // The states taken from there since it was ranked are marked too.
  const children = new Map();
  for (const n of live.nodes) if (n && node && n.parent === node.id) children.set(n.action, n.id);
  renderRanking($("ranking").tBodies[0], ranking, formatStep, (action) => run(() => take([action])), (a) => children.get(a));
  $("ranking-title").textContent = ranking ? `from state #${ranking.node}, by ${ranking.reward_space}` : "";
  const actions = describe ? Object.keys(describe.actions).length : 0;
  const tooMany = describe && actions > describe.limits.max_rank_actions;
  let summary = rankingSummary(ranking);
  if (!ranking) summary = isLive ? "one try of every action from the state shown" : "live sessions only";
  if (tooMany) summary = `${actions} actions: more than this server ranks (--max-rank-actions ${describe.limits.max_rank_actions})`;
  $("ranking-summary").textContent = summary;
  $("rank").disabled = !(isLive && live.session && node && !node.done && !ranking && !tooMany);
}

function renderShare(isLive, node) {
  const share = isLive ? node?.share : null;
  if (share && location.hash !== share) history.replaceState(null, "", share);
  $("share-url").value = share ? location.origin + location.pathname + share : "";
  $("share-copy").disabled = !share;
}

function render() {
  const isLive = mode === "live";
  $("live-controls").hidden = !isLive;
  $("replay-controls").hidden = !isLive;
  $("db-controls").hidden = isLive;
  $("tab-live").classList.toggle("active", isLive);
  $("tab-db").classList.toggle("active", !isLive);
  const v = view();
  const node = v.current === null ? null : v.nodes[v.current];
  const parent = node && node.parent !== null ? v.nodes[node.parent] : null;
  drawTree();
  const count = v.nodes.filter(Boolean).length;
  const more = !isLive && db.truncated ? " (the first of the database's)" : "";
  $("tree-size").textContent = count ? `${count} states${more}` : "";
  setNumber("cumulative-reward", node?.cumulative_reward, formatTotal);
  setNumber("reward-value", node?.reward, formatStep);
  setNumber("headline", describe ? node?.[describe.state.headline.key] : null, String);
  $("state-title").textContent = node ? `#${node.id} ${node.state_hash ? node.state_hash.slice(0, 12) : ""}` : "";
  let features = null;
  let previous = null;
  if (isLive) {
    $("commandline").textContent = node?.commandline ?? "–";
    features = node;
    previous = parent;
  } else {
    $("commandline").textContent = node ? node.actions.map(flagOf).join(" ") || "(the start state)" : "–";
    features = node ? db.details.get(node.state_hash) : null;
    previous = parent ? db.details.get(parent.state_hash) : null;
  }
  for (const { key } of describe?.state.features ?? []) {
    renderBars($(`${key}-chart`), features?.[key], previous?.[key]);
  }
  renderLine(
    $("reward-chart"),
    node ? path(v.nodes, node.id).map((n) => ({ value: n.cumulative_reward })) : [],
    formatTotal,
  );
  renderText(isLive, node, parent);
  renderRankingPanel(isLive, node);
  renderShare(isLive, node);
  $("step").disabled = !(isLive && live.session && node && !node.done);
  $("action").disabled = !live.session;
  $("back").disabled = !(isLive && parent);
  $("explore-from").disabled = !(!isLive && node);
  $("status").textContent = live.session ? `session ${live.session}` : "ready";
}

function bind() {
  $("start").addEventListener("click", () => run(() => start(chosenBenchmark())));
  $("step").addEventListener("click", () => run(step));
  $("back").addEventListener("click", () => run(() => selectLive(live.nodes[live.current].parent)));
  $("action-filter").addEventListener("input", (e) => fillActions(e.target.value.trim()));
  $("action-filter").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !$("step").disabled) run(step);
  });
  $("rank").addEventListener("click", () => run(rankActions));
  $("replay-start").addEventListener("click", () => run(replay));
  $("replay").addEventListener("keydown", (e) => {
    if (e.key === "Enter") run(replay);
  });
  $("share-copy").addEventListener("click", () =>
    track(navigator.clipboard.writeText($("share-url").value).then(() => ($("status").textContent = "link copied"))),
  );
  $("text-tab").addEventListener("click", () => run(async () => (textMode = "text")));
  $("diff-tab").addEventListener("click", () => run(async () => (textMode = "diff")));
  $("tree-zoom-in").addEventListener("click", () => setZoom(treeZoom + 0.1));
  $("tree-zoom-out").addEventListener("click", () => setZoom(treeZoom - 0.1));
  $("tree-zoom-reset").addEventListener("click", () => setZoom(1));
  $("tree").addEventListener(
    "wheel",
    (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      setZoom(treeZoom + (e.deltaY < 0 ? 0.1 : -0.1));
    },
    { passive: false },
  );
  $("tree-focus").addEventListener("click", collapseOthers);
  $("tree-expand").addEventListener("click", () => {
    view().collapsed.clear();
    drawTree();
  });
  $("tab-live").addEventListener("click", () => run(async () => (mode = "live")));
  $("tab-db").addEventListener("click", () =>
    run(async () => {
      mode = "db";
      if (db.benchmark === null && $("db-benchmark").value) await loadDatabaseTree($("db-benchmark").value);
    }),
  );
  $("db-benchmark").addEventListener("change", (e) => run(() => loadDatabaseTree(e.target.value)));
  $("explore-from").addEventListener("click", () =>
    run(async () => {
      const node = db.nodes[db.current];
      mode = "live";
      await start(db.benchmark, node.actions);
    }),
  );
  // A link pasted into this tab: its state, unless it is the one shown.
  window.addEventListener("hashchange", () => {
    if (describe && location.hash.length > 1 && live.nodes[live.current]?.share !== location.hash) {
      run(() => openShared(location.hash));
    }
  });
  window.addEventListener("pagehide", () => {
    if (live.session) stop(live.session);
  });
}

bind();
setZoom(1);
run(setup);
