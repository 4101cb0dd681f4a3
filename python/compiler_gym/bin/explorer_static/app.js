// The explorer's page: a live session (start, step, go back to any state) and a database's
// states, drawn from the JSON API of compiler_gym.bin.explorer. No framework and no build step.

import { renderBars, renderLine } from "./charts.js";
import { formatReward, renderTree } from "./tree.js";

const $ = (id) => document.getElementById(id);

// The two views. Nodes are the API's states, indexed by id; `current` is the one shown.
const live = { session: null, nodes: [], current: null, texts: new Map() };
const db = { benchmark: null, nodes: [], current: null, details: new Map() };
let describe = null;
let mode = "live";
let running = 0;

// How many times a request is asked again when the server says it stopped short: its work
// is bounded, and each answer makes progress (a deep state reached a checkpoint at a time).
const MAX_TRIES = 50;

async function api(path, options = {}) {
  for (let tries = 1; ; tries += 1) {
    const response = await fetch(path, options);
    let body = null;
    try {
      body = await response.json();
    } catch {
      // Not JSON: the status says enough.
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

// Runs one user action: errors are shown, the page is redrawn, and body[data-busy] says when
// everything asked for has been drawn (what the tests wait for).
async function run(task) {
  running += 1;
  document.body.dataset.busy = "true";
  showError(null);
  try {
    await task();
  } catch (error) {
    showError(error);
  } finally {
    running -= 1;
    render();
    if (running === 0) document.body.dataset.busy = "false";
  }
}

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
  const benchmarks = $("benchmark");
  for (const dataset of describe.datasets) {
    if (!dataset.benchmarks.length) continue;
    const group = document.createElement("optgroup");
    group.label = dataset.truncated ? `${dataset.name} (the first ${dataset.benchmarks.length})` : dataset.name;
    for (const uri of dataset.benchmarks) group.appendChild(new Option(uri, uri));
    benchmarks.appendChild(group);
  }
  benchmarks.value = describe.default_benchmark;
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
}

function setupDatabase(summary) {
  $("tab-db").hidden = false;
  $("db-summary").textContent = `${summary.path}: ${summary.states} states, ${summary.transitions} transitions`;
  for (const b of summary.benchmarks) $("db-benchmark").appendChild(new Option(`${b.uri} (${b.states} states)`, b.uri));
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

async function start(benchmark, actions = []) {
  const reward = encodeURIComponent($("reward").value);
  // A request takes at most max_actions_per_request actions: the rest are steps.
  const first = actions.slice(0, describe.limits.max_actions_per_request);
  const taken = first.length ? first.join(",") : "-";
  // The new session first: a start that fails (a benchmark that does not exist) leaves the
  // session shown usable; the old one is stopped only once it is replaced.
  const body = await api(`/api/v4/start/${reward}/${taken}/${encodeURIComponent(benchmark)}?ir=1`);
  const old = live.session; // read after the wait: a start meanwhile may have replaced it
  Object.assign(live, { session: body.session_id, nodes: [], current: null, texts: new Map() });
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
    const chunk = actions.slice(0, describe.limits.max_actions_per_request).join(",");
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

async function loadDatabaseTree(benchmark) {
  const body = await api(`/api/v4/db/tree?benchmark=${encodeURIComponent(benchmark)}`);
  Object.assign(db, { benchmark, nodes: body.nodes, current: null, truncated: body.truncated });
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

function render() {
  const isLive = mode === "live";
  $("live-controls").hidden = !isLive;
  $("db-controls").hidden = isLive;
  $("tab-live").classList.toggle("active", isLive);
  $("tab-db").classList.toggle("active", !isLive);
  const view = isLive ? live : db;
  const node = view.current === null ? null : view.nodes[view.current];
  const parent = node && node.parent !== null ? view.nodes[node.parent] : null;
  const select = isLive ? (id) => run(() => selectLive(id)) : (id) => run(() => selectDatabase(id));
  renderTree($("tree"), view.nodes, view.current, select);
  const count = view.nodes.filter(Boolean).length;
  const more = !isLive && db.truncated ? " (the first of the database's)" : "";
  $("tree-size").textContent = count ? `${count} states${more}` : "";
  setNumber("cumulative-reward", node?.cumulative_reward, (v) => v.toFixed(4));
  setNumber("reward-value", node?.reward, formatReward);
  setNumber("headline", describe ? node?.[describe.state.headline.key] : null, String);
  $("state-title").textContent = node ? `#${node.id} ${node.state_hash ? node.state_hash.slice(0, 12) : ""}` : "";
  let features = null;
  let previous = null;
  let text = "";
  if (isLive) {
    $("commandline").textContent = node?.commandline ?? "–";
    features = node;
    previous = parent;
    text = node ? live.texts.get(node.id) ?? "" : "";
    if (node?.error) text = `The episode ended in an error: ${node.error}`;
  } else {
    $("commandline").textContent = node ? node.actions.map(flagOf).join(" ") || "(the start state)" : "–";
    features = node ? db.details.get(node.state_hash) : null;
    previous = parent ? db.details.get(parent.state_hash) : null;
    text = features ? features.ir ?? "The database holds no IR of this state (log it with log_ir=True)." : "";
  }
  for (const { key } of describe?.state.features ?? []) {
    renderBars($(`${key}-chart`), features?.[key], previous?.[key]);
  }
  renderLine(
    $("reward-chart"),
    node ? path(view.nodes, node.id).map((n) => ({ value: n.cumulative_reward })) : [],
  );
  $("text").textContent = text;
  $("step").disabled = !(isLive && live.session && node && !node.done);
  $("action").disabled = !live.session;
  $("back").disabled = !(isLive && parent);
  $("explore-from").disabled = !(!isLive && node);
  $("status").textContent = live.session ? `session ${live.session}` : "ready";
}

function bind() {
  $("start").addEventListener("click", () =>
    run(() => start($("benchmark-uri").value.trim() || $("benchmark").value)),
  );
  $("step").addEventListener("click", () => run(step));
  $("back").addEventListener("click", () => run(() => selectLive(live.nodes[live.current].parent)));
  $("action-filter").addEventListener("input", (e) => fillActions(e.target.value.trim()));
  $("action-filter").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !$("step").disabled) run(step);
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
  window.addEventListener("pagehide", () => {
    if (live.session) stop(live.session);
  });
}

bind();
run(setup);
