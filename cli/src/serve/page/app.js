// bluff serve's page: set up a game, solve it, explore the result. Every string from the
// server is shown with textContent (never as HTML); every decision and figure is the server's.
"use strict";

const state = { info: null, jobs: new Map(), selected: null, explored: null, node: 0, source: "builtin", game: null };
const $ = (id) => document.getElementById(id);
const errors = [];
window.addEventListener("error", (e) => { errors.push(String(e.message)); $("js-errors").textContent = errors.join("\n"); });
window.addEventListener("unhandledrejection", (e) => { errors.push(String(e.reason)); $("js-errors").textContent = errors.join("\n"); });

// The token leaves the address bar (the cookie carries it from now on).
if (location.search.includes("token=")) history.replaceState(null, "", "/");

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k === "onclick") node.addEventListener("click", v);
    else if (k.startsWith("data-") || k === "title" || k === "type" || k === "href" || k === "download") node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text, isError) {
  const m = $("message");
  m.textContent = text;
  m.className = isError ? "error" : "";
}

// ---- set up ----
function gameSpec() {
  if (state.source === "builtin") {
    const name = $("game-select").value;
    const g = state.info.games.find((x) => x.name === name);
    const given = [];
    for (const p of g.params) {
      const v = $("param-" + p.name).value;
      if (v !== "" && String(v) !== String(p.default)) given.push(p.name + "=" + v);
    }
    return given.length ? name + "(" + given.join(",") + ")" : name;
  }
  if (state.source === "file") return $("file-select").value;
  return state.game || "";
}

function showParams() {
  const g = state.info.games.find((x) => x.name === $("game-select").value);
  $("game-description").textContent = g.description;
  const box = $("params");
  box.replaceChildren();
  for (const p of g.params) {
    const input = el("input", { id: "param-" + p.name, type: "number", min: p.min, max: p.max, value: p.default, title: p.doc });
    box.append(el("label", { text: p.name + " " }, input));
  }
  updateCommand();
}

function solveSpec() {
  const n = (id) => ($(id).value === "" ? null : Number($(id).value));
  return {
    game: gameSpec(),
    algo: $("algo").value || null,
    iterations: $("algo").value === "lp" ? null : n("iterations"),
    target: $("algo").value === "lp" ? null : n("target"),
    time: $("algo").value === "lp" ? null : n("time"),
    check_every: $("algo").value === "lp" ? null : n("check-every"),
  };
}

function shellQuote(s) {
  return /^[A-Za-z0-9_./+=:,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

function updateCommand() {
  const s = solveSpec();
  const words = ["bluff", "solve", shellQuote(s.game)];
  if (s.algo) words.push("--algo", s.algo);
  if (s.iterations !== null) words.push("--iterations", String(s.iterations));
  if (s.target !== null) words.push("--target", String(s.target));
  if (s.time !== null) words.push("--time", String(s.time));
  if (s.check_every !== null) words.push("--check-every", String(s.check_every));
  $("cli-command").textContent = words.join(" ");
}

async function inspect() {
  try {
    const g = await api("POST", "/api/inspect", { game: gameSpec() });
    const box = $("game-info");
    if (!g.built) {
      box.replaceChildren(
        el("p", { id: "game-size", text: `${g.name}: ${g.nodes} histories` }),
        el("p", { id: "game-fits", text: "Too big to build here: the sampling solvers (es-mccfr, os-mccfr) play its rules." }),
      );
      $("algo").value = g.suggested;
      updateCommand();
      return say("");
    }
    box.replaceChildren(
      el("p", { id: "game-size", text: `${g.name}: ${g.nodes} nodes, ${g.terminals} terminals, ${g.infosets[0]} + ${g.infosets[1]} information sets, ${g.sequences[0]} + ${g.sequences[1]} sequences` }),
      el("p", { id: "game-fits", text: (g.constant_sum ? "" : "general-sum: solved by the LCP. ") + (g.lp_fits ? `The exact LP fits (about ${g.lp_memory}).` : `Too big for the exact LP by default; the CFR family (about ${g.cfr_memory}).`) }),
    );
    $("algo").value = g.suggested;
    updateCommand();
    say("");
  } catch (e) {
    say(e.message, true);
  }
}

async function upload() {
  const file = $("upload-input").files[0];
  if (!file) return say("choose a .efg or .nfg file", true);
  try {
    const text = await file.text();
    const r = await api("POST", "/api/upload", { name: file.name, text });
    state.game = r.game;
    say("saved as " + r.game + (r.warnings.length ? " (" + r.warnings.join("; ") + ")" : ""));
    await loadInfo();
    updateCommand();
  } catch (e) {
    say(e.message, true);
  }
}

async function solve() {
  try {
    const job = await api("POST", "/api/jobs", solveSpec());
    // The event stream may have told a later state already.
    if (!state.jobs.has(job.id)) state.jobs.set(job.id, job);
    state.selected = job.id;
    renderJobs();
    drawChart();
    say("queued as solve " + job.id);
  } catch (e) {
    say(e.message, true);
  }
}

// ---- the queue ----
function renderJobs() {
  const list = $("jobs");
  list.replaceChildren();
  const compare = $("compare-select");
  const keep = compare.value;
  compare.replaceChildren(el("option", { value: "", text: "—" }));
  for (const job of [...state.jobs.values()].sort((a, b) => a.id - b.id)) {
    const li = el("li", { "data-id": job.id, "data-state": job.state, class: job.id === state.selected ? "selected" : "" });
    const what = `#${job.id} ${job.spec.game} · ${job.algorithm || job.spec.algo || state.info.default_algorithm}`;
    li.append(el("span", { text: what }), el("span", { class: "state", text: job.state }));
    const figures = [];
    if (job.iterations) figures.push(job.iterations + " it");
    if (job.exploitability !== null) figures.push("exploitability " + job.exploitability);
    if (job.value !== null) figures.push("value " + job.value);
    li.append(el("span", { class: "muted figures", text: figures.join(", ") }));
    const act = (name) => el("button", { type: "button", "data-action": name, text: name, onclick: (ev) => { ev.stopPropagation(); control(job.id, name); } });
    if (job.state === "running") li.append(act("pause"), act("stop"));
    if (job.state === "queued") li.append(act("cancel"));
    if (job.state === "paused") li.append(act("resume"), act("stop"));
    if (job.explorable) {
      li.append(el("button", { type: "button", "data-action": "explore", text: "explore", onclick: (ev) => { ev.stopPropagation(); explore(job.id); } }));
      if (job.id !== state.explored) compare.append(el("option", { value: String(job.id), text: what }));
    }
    if (job.error) li.append(el("span", { class: "error", text: job.error }));
    if (job.note) li.append(el("span", { class: "muted note", text: " " + job.note }));
    li.addEventListener("click", () => { state.selected = job.id; renderJobs(); drawChart(); });
    list.append(li);
  }
  compare.value = keep;
}

async function control(id, action) {
  try {
    await api("POST", `/api/jobs/${id}/${action}`, {});
  } catch (e) {
    say(e.message, true);
  }
}

// ---- the chart (log-log; drawn as SVG elements) ----
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawChart() {
  const chart = $("chart");
  chart.replaceChildren();
  const job = state.jobs.get(state.selected);
  const byTime = $("chart-x").value === "seconds";
  const points = (job ? job.curve : []).map((p) => [byTime ? p[2] : p[0], p[1]]).filter((p) => p[0] > 0 && p[1] > 0);
  chart.setAttribute("data-points", String(points.length));
  $("chart-title").textContent = job ? `Convergence of solve #${job.id}` : "Convergence";
  const L = 70, T = 15, W = 550, H = 260;
  chart.append(svg("rect", { x: L, y: T, width: W, height: H, fill: "none", stroke: "#999" }));
  if (points.length === 0) {
    const exact = job && ["lp", "lcp"].includes(job.algorithm || job.spec.algo);
    const words = !job ? "no solve selected" : exact ? "an exact solve has no convergence curve" : "waiting for the first measurement";
    chart.append(svg("text", { x: L + W / 2, y: T + H / 2, "text-anchor": "middle", fill: "#666" }, words));
    return;
  }
  const lx = points.map((p) => Math.log10(p[0])), ly = points.map((p) => Math.log10(p[1]));
  let x0 = Math.floor(Math.min(...lx)), x1 = Math.ceil(Math.max(...lx));
  let y0 = Math.floor(Math.min(...ly)), y1 = Math.ceil(Math.max(...ly));
  if (x1 === x0) x1 += 1;
  if (y1 === y0) y1 += 1;
  const X = (v) => L + ((v - x0) / (x1 - x0)) * W, Y = (v) => T + H - ((v - y0) / (y1 - y0)) * H;
  for (let d = x0; d <= x1; d++) {
    chart.append(svg("line", { x1: X(d), x2: X(d), y1: T, y2: T + H, stroke: "#eee" }));
    chart.append(svg("text", { x: X(d), y: T + H + 16, "text-anchor": "middle", "font-size": 11 }, "1e" + d));
  }
  for (let d = y0; d <= y1; d++) {
    chart.append(svg("line", { x1: L, x2: L + W, y1: Y(d), y2: Y(d), stroke: "#eee" }));
    chart.append(svg("text", { x: L - 6, y: Y(d) + 4, "text-anchor": "end", "font-size": 11 }, "1e" + d));
  }
  chart.append(svg("text", { x: L + W / 2, y: T + H + 34, "text-anchor": "middle", "font-size": 12 }, byTime ? "seconds" : "iterations"));
  chart.append(svg("text", { x: 14, y: T + H / 2, "text-anchor": "middle", "font-size": 12, transform: `rotate(-90 14 ${T + H / 2})` }, "exploitability"));
  const d = points.map((p, i) => (i ? "L" : "M") + X(lx[i]).toFixed(1) + " " + Y(ly[i]).toFixed(1)).join(" ");
  chart.append(svg("path", { d, fill: "none", stroke: "#1f77b4", "stroke-width": 2, id: "curve-path" }));
}

// ---- explore ----
async function explore(id) {
  state.explored = id;
  state.node = 0;
  $("compare-select").value = "";
  $("compare-view").replaceChildren();
  $("node-view").replaceChildren();
  $("infoset-view").replaceChildren();
  $("explore-which").textContent = `Solve #${id}`;
  const ex = $("exports");
  ex.replaceChildren(
    ...["strategy.json", "curve.csv", "report.html"].map((f) => el("a", { href: `/api/jobs/${id}/${f}`, download: `job-${id}-${f}`, "data-export": f, text: f, class: "export" })),
  );
  for (const a of ex.children) a.after(" ");
  renderJobs();
  await showNode(0);
  await showCompare();
}

function pct(x) {
  return (100 * x).toFixed(1) + "%";
}

function num(n) {
  if (!n) return "—";
  return n.exact !== null && n.exact !== undefined ? n.exact : Number(n.float).toPrecision(6);
}

function infosetTable(d, title) {
  const rows = d.actions.map((a) =>
    el("tr", { "data-label": a.label, class: a.best_response ? "action br" : "action" },
      el("td", {}, el("span", { class: "swatch" }), a.label),
      el("td", { class: "prob", text: a.exact !== null && a.exact !== undefined ? `${a.exact} (${pct(a.prob)})` : pct(a.prob) }),
      el("td", {}, el("span", { class: "bar" })),
      el("td", { text: a.best_response ? "best response" : "" })));
  d.actions.forEach((a, i) => {
    rows[i].querySelector(".swatch").style.background = a.color;
    const bar = rows[i].querySelector(".bar");
    bar.style.background = a.color;
    bar.style.width = Math.max(1, 100 * a.prob) + "px";
  });
  return el("div", { class: "infoset" },
    el("h4", { text: title }),
    el("p", { class: "infoset-label", text: `${d.player_name} at "${d.label}" (${d.nodes} node${d.nodes === 1 ? "" : "s"})` }),
    el("p", { text: "reach " }, el("span", { class: "reach", text: num(d.reach) }), " · best response gains ", el("span", { class: "gain", text: num(d.gain) })),
    el("table", {}, el("tbody", {}, ...rows)));
}

async function showNode(n) {
  const id = state.explored;
  if (id === null) return;
  const cmp = $("compare-select").value;
  const q = cmp ? `&compare=${cmp}` : "";
  let v;
  try {
    v = await api("GET", `/api/jobs/${id}/node?n=${n}${q}`);
  } catch (e) {
    $("node-view").replaceChildren(el("p", { class: "error", text: e.message }));
    return;
  }
  state.node = n;
  const path = $("path");
  path.replaceChildren(el("button", { type: "button", text: "root", onclick: () => showNode(0) }));
  if (v.parent !== null) path.append(el("button", { type: "button", text: "↑ up", onclick: () => showNode(v.parent) }));
  path.append(el("span", { id: "path-text", text: v.path.join(" › ") }));
  const view = $("node-view");
  const kids = el("div", { class: "children" }, ...v.children.map((c) => {
    const b = el("button", { type: "button", class: "child", "data-node": c.node, "data-label": c.label, onclick: () => showNode(c.node) },
      el("span", { class: "swatch" }), `${c.label} · ${pct(c.prob)}`);
    if (c.color) b.querySelector(".swatch").style.background = c.color;
    return b;
  }));
  if (v.kind === "terminal") {
    view.replaceChildren(el("p", { id: "node-kind", "data-kind": "terminal", text: `end: payoffs ${v.detail.payoffs.join(", ")}` }));
    $("infoset-view").replaceChildren();
  } else if (v.kind === "chance") {
    view.replaceChildren(el("p", { id: "node-kind", "data-kind": "chance", text: "chance" }), kids);
    $("infoset-view").replaceChildren();
  } else {
    view.replaceChildren(el("p", { id: "node-kind", "data-kind": "decision", text: `${v.detail.player_name} to act` }), kids);
    const parts = [infosetTable(v.detail, `solve #${id}`)];
    if (v.detail.compare) parts.push(infosetTable(v.detail.compare, `solve #${cmp}`));
    $("infoset-view").replaceChildren(...parts);
  }
}

async function showCompare() {
  const cmp = $("compare-select").value;
  const box = $("compare-view");
  if (!cmp || state.explored === null) return box.replaceChildren();
  try {
    const c = await api("GET", `/api/compare?a=${state.explored}&b=${cmp}`);
    const row = (label, f) => el("tr", {}, el("th", { text: label }), el("td", { text: f(c.a.evaluation) }), el("td", { text: f(c.b.evaluation) }));
    box.replaceChildren(el("table", { id: "compare-table" }, el("tbody", {},
      el("tr", {}, el("th", {}), el("th", { text: `#${c.a.id}` }), el("th", { text: `#${c.b.id}` })),
      row("algorithm", (e) => e.algorithm),
      row("value (P1)", (e) => num(e.value[0])),
      row("exploitability", (e) => num(e.exploitability)),
      row("NashConv", (e) => num(e.nash_conv)))),
      el("table", { id: "head-to-head" }, el("tbody", {},
        el("tr", {}, el("th", { text: `head to head: #${c.a.id}'s value` }), el("th", { text: "" })),
        el("tr", {}, el("th", { text: `#${c.a.id} as P1, #${c.b.id} as P2` }), el("td", { "data-key": "a_first", text: num(c.head_to_head.a_first) })),
        el("tr", {}, el("th", { text: `#${c.b.id} as P1, #${c.a.id} as P2` }), el("td", { "data-key": "a_second", text: num(c.head_to_head.a_second) })))));
    await showNode(state.node);
  } catch (e) {
    box.replaceChildren(el("p", { class: "error", text: e.message }));
  }
}

// ---- live updates ----
function connect() {
  const source = new EventSource("/api/events");
  source.onopen = async () => {
    $("connection").textContent = "live";
    // Whatever happened while the stream was down: the queue as it stands now.
    for (const job of await api("GET", "/api/jobs")) state.jobs.set(job.id, job);
    renderJobs();
    drawChart();
  };
  source.onerror = () => { $("connection").textContent = "reconnecting…"; };
  source.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.type === "job") {
      state.jobs.set(e.job.id, e.job);
      renderJobs();
      if (e.job.id === state.selected) drawChart();
    } else if (e.type === "point") {
      const job = state.jobs.get(e.id);
      if (job) {
        while (job.curve.length && job.curve[job.curve.length - 1][0] >= e.point[0]) job.curve.pop();
        job.curve.push(e.point);
        job.iterations = e.point[0];
        if (e.id === state.selected) drawChart();
      }
    } else if (e.type === "progress") {
      const job = state.jobs.get(e.id);
      if (job) job.iterations = e.iterations;
    }
  };
}

async function loadInfo() {
  state.info = await api("GET", "/api/info");
  $("folder").textContent = "folder: " + state.info.folder;
  const files = $("file-select");
  const keep = files.value;
  files.replaceChildren(...state.info.files.map((f) => el("option", { value: f, text: f })));
  if (keep) files.value = keep;
}

async function main() {
  await loadInfo();
  $("game-select").replaceChildren(...state.info.games.map((g) => el("option", { value: g.name, text: g.name })));
  $("algo").replaceChildren(...state.info.algorithms.map((a) => el("option", { value: a.name, text: a.name, title: a.summary })));
  $("algo").value = state.info.default_algorithm;
  showParams();
  for (const tab of document.querySelectorAll("#source-tabs button")) {
    tab.addEventListener("click", () => {
      state.source = tab.dataset.source;
      for (const t of document.querySelectorAll("#source-tabs button")) t.setAttribute("aria-selected", String(t === tab));
      for (const s of ["builtin", "file", "upload"]) $("source-" + s).hidden = s !== state.source;
      updateCommand();
    });
  }
  $("game-select").addEventListener("change", showParams);
  $("params").addEventListener("input", updateCommand);
  $("file-select").addEventListener("change", updateCommand);
  for (const id of ["algo", "iterations", "target", "time", "check-every"]) $(id).addEventListener("input", updateCommand);
  $("inspect-btn").addEventListener("click", inspect);
  $("upload-btn").addEventListener("click", upload);
  $("solve-btn").addEventListener("click", solve);
  $("chart-x").addEventListener("change", drawChart);
  $("compare-select").addEventListener("change", showCompare);
  connect();
  for (const job of await api("GET", "/api/jobs")) state.jobs.set(job.id, job);
  const last = [...state.jobs.keys()].pop();
  if (last !== undefined) state.selected = last;
  renderJobs();
  drawChart();
  $("js-status").textContent = "ready";
}

main().catch((e) => { errors.push(String(e)); $("js-errors").textContent = errors.join("\n"); });
