// A match page: standings, the score sheet and the corrections with their reasons, kept
// live from GET /v1/matches/{id}/events (Server-Sent Events). Every number is the
// service's: the page redraws from the match and the sheet it answers.

import { LANGS, lang, preferredLang, setLang, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const base = `/v1/matches/${encodeURIComponent(matchId)}`;
const corrections = new Map(); // seq -> correction entry

function h(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function get(path) {
  const r = await fetch(path, { headers: { Accept: "application/json", "Accept-Language": lang() } });
  const body = await r.json();
  if (!r.ok) throw new Error(body.detail || body.title || String(r.status));
  return body;
}

function row(cells, tag = "td") {
  const tr = document.createElement("tr");
  for (const c of cells) tr.append(h(tag, c));
  return tr;
}

function drawMatch(m) {
  $("match-title").textContent = m.title || t("m-match-title");
  const name = (p) => (m.names && m.names[p]) || p;
  $("status").textContent = m.status === "finished"
    ? t("m-finished", { winner: m.winner ? name(m.winner) : m.co_winners.map(name).join(", ") })
    : t("m-in-progress", { hands: m.hands_played });
  const table = $("standings");
  table.replaceChildren(row([t("m-player"), t("m-points"), t("m-penalty")], "th"));
  for (const s of m.standings) table.append(row([name(s.player), s.points, s.penalty]));
}

function drawSheet(sheet) {
  const table = $("sheet");
  const head = ["seq", t("m-winner"), t("m-finish")];
  for (const p of sheet.players) head.push(`${p.name} ${t("m-points")}`, `${p.name} ${t("m-penalty")}`);
  table.replaceChildren(row(head, "th"));
  const name = Object.fromEntries(sheet.players.map((p) => [p.id, p.name]));
  for (const r of sheet.rows) {
    const cells = [r.corrected ? `${r.seq} *` : r.seq, name[r.winner] || r.winner, r.finish];
    for (const p of sheet.players) {
      const c = r.cells[p.id];
      cells.push(c ? c.points : "", c ? c.penalty : "");
    }
    const tr = row(cells);
    if (r.corrected) tr.title = t("m-corrected");
    table.append(tr);
  }
  const total = [t("m-total"), "", ""];
  for (const p of sheet.players) total.push(sheet.totals[p.id].points, sheet.totals[p.id].penalty);
  table.append(row(total, "th"));
}

function drawCorrections() {
  const list = $("corrections");
  list.replaceChildren();
  for (const c of [...corrections.values()].sort((a, b) => a.seq - b.seq)) {
    const what = c.void ? t("m-voided") : t("m-rescored", { winner: c.winner });
    list.append(h("li", t("m-correction-line", { seq: c.seq, hand: c.corrects, what, reason: c.reason })));
  }
}

async function redraw() {
  const [m, sheet] = await Promise.all([get(base), get(`${base}/sheet`)]);
  drawMatch(m);
  drawSheet(sheet);
  drawCorrections();
}

function listen() {
  const source = new EventSource(`${base}/events`);
  let pending = null;
  const later = () => {
    clearTimeout(pending);
    pending = setTimeout(() => redraw().catch((e) => { $("live").textContent = e.message; }), 50);
  };
  for (const kind of ["hand", "buy-in", "correction"]) {
    source.addEventListener(kind, (ev) => {
      const data = JSON.parse(ev.data);
      if (kind === "correction") corrections.set(data.entry.seq, data.entry);
      $("live").textContent = t("m-live");
      later();
    });
  }
  source.addEventListener("finished", () => { later(); source.close(); $("live").textContent = t("m-ended"); });
  source.addEventListener("deleted", () => { source.close(); $("live").textContent = t("m-deleted"); });
}

async function submitCorrection(ev) {
  ev.preventDefault();
  const body = { reason: $("reason").value };
  if ($("void").checked) body.void = true;
  else {
    try {
      body.score = JSON.parse($("score").value);
    } catch {
      $("correct-result").textContent = t("m-bad-json");
      return;
    }
  }
  const r = await fetch(`${base}/hands/${Number($("seq").value)}/corrections`, {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", Accept: "application/json",
               "Accept-Language": lang(), Authorization: `Bearer ${$("token").value}`,
               "Idempotency-Key": crypto.randomUUID() } });
  const answer = await r.json();
  $("correct-result").textContent = r.ok ? t("m-corrected-ok", { seq: answer.seq })
    : `${answer.title}: ${answer.detail}`;
}

function applyLang(next) {
  setLang(next);
  document.documentElement.lang = lang();
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const b of document.querySelectorAll(".lang-btn")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang()));
  redraw().catch((e) => { $("live").textContent = e.message; });
}

for (const b of document.querySelectorAll(".lang-btn")) {
  if (!LANGS.includes(b.dataset.lang)) b.hidden = true;
  b.addEventListener("click", () => applyLang(b.dataset.lang));
}
$("csv").href = `${base}/sheet?format=csv`;
$("csv").addEventListener("click", async (ev) => {
  ev.preventDefault();
  const r = await fetch(`${base}/sheet`, { headers: { Accept: "text/csv" } });
  const url = URL.createObjectURL(new Blob([await r.text()], { type: "text/csv" }));
  const a = h("a", null, { href: url, download: `match-${matchId}.csv` });
  a.click();
  URL.revokeObjectURL(url);
});
$("correct-form").addEventListener("submit", (ev) => { submitCorrection(ev).catch((e) => { $("correct-result").textContent = e.message; }); });
applyLang(preferredLang(navigator.languages));
listen();
