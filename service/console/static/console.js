// The referee console: send a hand record to POST /v1/hands/adjudicate?steps=true and
// draw the ruling. Every rule is the service's: this page only shows what it answers.

import { cardRow, cardSvg, parseCard, SUITS } from "./cards.js";
import { LANGS, lang, preferredLang, setLang, t } from "./i18n.js";
import { decodeRecord, encodeRecord, isJson, jsonErrorLine, jsonLineOf, lineOfPlay, notARecord } from "./record.js";

const $ = (id) => document.getElementById(id);
const LANG_KEY = "kaluki-console-lang";
const FRAGMENT_KEY = "r";

const view = {
  text: null, // the record text of the ruling shown
  ruling: null, // the adjudicate answer
  step: 0,
  as: "", // whose view: "" the referee's, "spectator", or a player id (SPEC §5 "Views")
  checker: null, // the last checker action, redone on a language switch
  asked: 0, // the newest submission: an answer to an older one is dropped
};

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "className") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  fill(node, children, false);
  return node;
}

/** Put ``children`` (nulls skipped) into ``node``, replacing what it held when ``replace``. */
function fill(node, children, replace = true) {
  const kept = children.filter((c) => c !== null && c !== undefined && c !== false);
  if (replace) node.replaceChildren(...kept);
  else node.append(...kept);
  return node;
}

async function api(path, { body, contentType = "application/json" } = {}) {
  const init = { headers: { "Accept-Language": lang(), Accept: "application/json" } };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = contentType;
    init.body = body;
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

// -- language -------------------------------------------------------------------------

function applyLang() {
  document.documentElement.lang = lang();
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
    node.title = t(node.dataset.i18nLabel);
  }
  for (const b of document.querySelectorAll(".lang-btn")) {
    b.setAttribute("aria-pressed", String(b.dataset.lang === lang()));
  }
}

async function switchLang(next) {
  setLang(next);
  try { localStorage.setItem(LANG_KEY, next); } catch { /* private mode */ }
  applyLang();
  if (view.text !== null) await rule(view.text, { keepStep: true, updateLink: false });
  if (view.checker) await view.checker();
}

// -- the record: submit, problems -----------------------------------------------------

function setBusy(on) {
  $("busy").hidden = !on;
  document.querySelector("#record-form button[type=submit]").disabled = on;
}

function clearInputProblem() {
  const box = $("input-problem");
  box.hidden = true;
  box.replaceChildren();
  $("record").removeAttribute("aria-invalid");
}

/** A problem shown beside the line of the record it names (never a blank page). */
function showInputProblem(problem, text, status) {
  const box = $("input-problem");
  const p = problem || {};
  const fields = Object.keys(p.errors || {});
  let line = Number.isInteger(p.line) ? p.line : null;
  if (line === null && isJson(text)) {
    line = p.code === "malformed-json" ? jsonErrorLine(text)
      : fields.length ? jsonLineOf(text, fields[0]) : null;
  }
  const message = p.detail || t("no-problem-text", { status });
  const head = h("p", { className: "problem-head" },
    h("strong", { text: `${p.title || t("input-problem")}` }), " ",
    p.code ? h("a", { href: `/problems/${p.code}`, className: "code-link" }, h("code", { text: p.code })) : null);
  const where = line !== null ? t("at-line", { line }) : fields.length ? t("at-field", { field: fields[0] }) : null;
  fill(box, [head]);
  if (line === null) {
    box.append(h("p", { className: "problem-detail" }, where ? `${where}: ` : "", message));
  } else {
    const rows = text.split("\n");
    const from = Math.max(1, line - 3);
    const to = Math.min(rows.length, line + 3);
    const listing = h("ol", { className: "listing", start: from });
    for (let n = from; n <= to; n++) {
      const bad = n === line;
      const li = h("li", { className: bad ? "bad-line" : null, "data-line": n },
        h("code", { text: rows[n - 1] || " " }));
      if (bad) {
        li.setAttribute("aria-current", "true");
        li.append(h("span", { className: "line-message", role: "note" },
          h("span", { className: "visually-hidden", text: `${where}: ` }), `⚠ ${message}`));
      }
      listing.append(li);
    }
    box.append(listing);
    selectLine($("record"), line);
  }
  box.hidden = false;
  $("record").setAttribute("aria-invalid", "true");
}

function selectLine(textarea, line) {
  const rows = textarea.value.split("\n");
  let start = 0;
  for (let n = 1; n < line && n <= rows.length; n++) start += rows[n - 1].length + 1;
  const end = start + (rows[line - 1] || "").length;
  try { textarea.setSelectionRange(start, end); } catch { /* not focusable yet */ }
}

/**
 * Forget the ruling on screen: verdict, violation, result, stepper and permalink. Every
 * new submission starts here, so a ruling never outlives the record it was about;
 * ``dropLink`` also takes the old record's link out of the address bar.
 */
function clearRuling({ dropLink = true } = {}) {
  view.text = null;
  view.ruling = null;
  view.step = 0;
  $("ruling").hidden = true;
  $("stepper").hidden = true;
  const verdict = $("verdict");
  verdict.className = "verdict";
  verdict.removeAttribute("data-legal");
  for (const id of ["verdict", "violation", "result", "step-label", "step-turn", "step-table",
    "step-discard", "step-stock", "step-hands"]) $(id).replaceChildren();
  $("violation").hidden = true;
  $("result").hidden = true;
  $("permalink").value = "";
  $("permalink-open").href = "/console";
  $("copy-status").textContent = "";
  if (dropLink && window.location.hash) {
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
}

/** Focus a region that was just filled (a ruling, a problem), so it is read out. */
function focusOn(node) {
  node.focus({ preventScroll: true });
  node.scrollIntoView({ block: "nearest" });
}

/**
 * Rule on ``text``. A new submission (``keepStep`` false) first clears every earlier
 * result; a re-ruling of the same record (a language switch) replaces it only when the
 * answer comes. ``focus``: move focus to the ruling, or to the problem, when it is shown.
 */
async function rule(text, { keepStep = false, updateLink = true, focus = false } = {}) {
  const asked = ++view.asked;
  clearInputProblem();
  if (!keepStep) clearRuling({ dropLink: updateLink });
  const fail = (problem, status) => {
    clearRuling({ dropLink: updateLink });
    showInputProblem(problem, text, status);
    if (focus) focusOn($("input-problem"));
  };
  if (!text.trim()) {
    fail({ title: t("empty-title"), detail: t("empty-record") }, 0);
    return;
  }
  const notRecord = notARecord(text);
  if (notRecord) {
    fail({ title: t("not-record-title"), detail: t("not-record", { what: t(`json-${notRecord}`) }) }, 0);
    return;
  }
  setBusy(true);
  let answer;
  try {
    answer = await api(`/v1/hands/adjudicate?steps=true${viewQuery()}`, {
      body: text, contentType: isJson(text) ? "application/json" : "text/vnd.kaluki.hand",
    });
  } catch {
    answer = null;
  }
  if (asked !== view.asked) return; // a newer submission took over: its answer counts
  setBusy(false);
  if (answer === null) {
    fail({ detail: t("network-error") }, 0);
    return;
  }
  if (!answer.ok || !answer.data || !Array.isArray(answer.data.steps)) {
    fail(answer.data, answer.status);
    return;
  }
  const previous = view.step;
  view.text = text;
  view.ruling = answer.data;
  const last = answer.data.steps.length - 1;
  view.step = keepStep ? Math.min(previous, last) : last;
  renderRuling();
  renderViews();
  renderStep();
  if (updateLink) await updatePermalink(text);
  if (focus) focusOn($("verdict"));
}

// -- views: the hand as one player, or a spectator, sees it -----------------------------

function viewQuery() {
  if (view.as === "spectator") return "&spectator=true";
  return view.as ? `&view=${encodeURIComponent(view.as)}` : "";
}

function renderViews() {
  const select = $("view-as");
  const players = view.ruling.state.hands.map((x) => x.id);
  if (view.as && view.as !== "spectator" && !players.includes(view.as)) view.as = "";
  select.replaceChildren(h("option", { value: "", text: t("view-referee") }),
    h("option", { value: "spectator", text: t("view-spectator") }),
    ...players.map((p) => h("option", { value: p, text: t("view-player", { player: p }) })));
  select.value = view.as;
}

// -- what could be played here (POST /v1/turns/options) ------------------------------------

function rulesetOf(text) {
  if (isJson(text)) {
    try { return JSON.parse(text).ruleset; } catch { return null; }
  }
  const line = text.split("\n").find((x) => /^\s*ruleset\s/.test(x));
  if (!line) return null;
  const value = line.replace(/^\s*ruleset\s+/, "").split("#")[0].trim();
  try { return JSON.parse(value); } catch { return value; }
}

function optionText(o) {
  if (o.draw) return o.draw.from === "stock" ? t("opt-draw-stock") : t("opt-draw-discard");
  if (o.discard) return `${t("opt-discard")} ${o.discard}`;
  if (o.meld) return `${t("opt-meld")} ${(Array.isArray(o.meld) ? o.meld : o.meld.cards).join(" ")}`;
  if (o.lay) return `${t("opt-lay")} ${o.lay.map((m) => (Array.isArray(m) ? m : m.cards).join(" ")).join(" | ")}`;
  if (o.shift) {
    const end = o.shift.end === "low" ? t("opt-end-low") : t("opt-end-high");
    return `${t("opt-shift", { meld: o.shift.meld, card: o.shift.card })} ${end}`;
  }
  const body = o.build || o.release;
  const cards = body.cards.map((c) => (typeof c === "string" ? c
    : `${c.card} (${c.end === "low" ? t("opt-end-low") : t("opt-end-high")})`)).join(" ");
  return `${o.build ? t("opt-build", { meld: body.meld }) : t("opt-release", { meld: body.meld })} ${cards}`;
}

async function renderOptions(k) {
  const box = $("step-options");
  const r = view.ruling;
  const step = r.steps[k];
  const s = step.state;
  const say = (text) => box.replaceChildren(h("p", { className: "muted", text }));
  if (violationAt(step)) return say(t("options-at-violation"));
  if (!s.next_player) return say(t("options-over"));
  const hand = s.hands.find((x) => x.id === s.next_player);
  if (!hand || !hand.cards) return say(t("options-hidden", { player: s.next_player }));
  const ruleset = rulesetOf(view.text);
  if (!ruleset) return say(t("options-none"));
  const next = r.steps[k + 1] && r.steps[k + 1].played;
  const drawn = next && next.draw && next.draw.card ? next.draw : null;
  const base = {
    ruleset, hand: hand.cards, opened: s.opened.includes(hand.id), discard_top: s.discard_top,
    table: s.table.map((m) => (m.closed ? { cards: m.cards, closed: true } : m.cards)),
  };
  if (s.round !== undefined) { // a contract rule set: the seats from the player to move (SPEC §5)
    const ids = s.hands.map((x) => x.id);
    const at = ids.indexOf(hand.id);
    Object.assign(base, {
      round: s.round, players: [...ids.slice(at), ...ids.slice(0, at)],
      down: s.down.filter((p) => p !== hand.id), calls_made: s.calls_made,
    });
  }
  const asks = [{ label: t("options-before-draw", { player: hand.id }), turn: {} }];
  if (drawn) asks.push({ label: t("options-after-draw", { player: hand.id, card: drawn.card }), turn: { draw: drawn } });
  const parts = [];
  for (const ask of asks) {
    let answer;
    try {
      answer = await api("/v1/turns/options", { body: JSON.stringify({ ...base, turn: ask.turn }) });
    } catch {
      return say(t("network-error"));
    }
    if (view.step !== k || view.ruling !== r) return null; // the page moved on meanwhile
    const list = h("ul", { className: "option-list" });
    const options = answer.ok && answer.data ? answer.data.options : [];
    for (const o of options.slice(0, 40)) list.append(h("li", { text: optionText(o) }));
    if (options.length > 40) list.append(h("li", { className: "muted", text: t("options-more", { n: options.length - 40 }) }));
    if (!options.length) list.append(h("li", { className: "muted", text: t("options-none") }));
    parts.push(h("h4", { text: `${ask.label} · ${countOptions(options.length)}` }), list);
    const callers = answer.ok && answer.data ? answer.data.callers : undefined;
    if (callers !== undefined && answer.data.phase === "draw") {
      parts.push(h("p", { className: "muted", text: callers.length
        ? t("options-callers", { players: callers.join(", ") }) : t("options-no-callers") }));
    }
  }
  box.replaceChildren(...parts);
  return null;
}

function countOptions(n) {
  return t("options-count", { n });
}

// -- the ruling -----------------------------------------------------------------------

function renderRuling() {
  const r = view.ruling;
  $("ruling").hidden = false;
  $("stepper").hidden = false;
  const verdict = $("verdict");
  verdict.className = `verdict ${r.legal ? "legal" : "illegal"}`;
  verdict.dataset.legal = String(r.legal);
  fill(verdict, [
    h("span", { className: "verdict-icon", "aria-hidden": "true", text: r.legal ? "✓" : "✗" }),
    h("span", { className: "verdict-text", text: r.legal ? t("legal") : t("illegal") }),
    h("span", { className: "verdict-note", text: !r.legal ? t("illegal-note")
      : r.result ? t("legal-note") : t("legal-unfinished") })]);

  const vbox = $("violation");
  const v = r.violations && r.violations[0];
  vbox.hidden = !v;
  vbox.replaceChildren();
  if (v) {
    const whole = v.play === null || v.play === undefined;
    const at = whole ? t("at-turn", { turn: v.turn + 1 }) : t("at-turn-play", { turn: v.turn + 1, play: v.play + 1 });
    const path = whole ? `turns[${v.turn}]` : `turns[${v.turn}].plays[${v.play}]`;
    const show = h("button", { type: "button", className: "show-turn", text: t("show-turn") });
    show.addEventListener("click", () => { view.step = r.steps.length - 1; renderStep(); $("stepper").scrollIntoView(); });
    const line = lineOfPlay(view.text, v.turn, v.play ?? null);
    let where = null;
    if (line !== null) {
      const select = h("button", { type: "button", className: "show-line", text: t("show-line") });
      select.addEventListener("click", () => { $("record").focus(); selectLine($("record"), line); });
      where = h("p", { className: "violation-line", "data-line": line },
        `${t("record-line", { line })}: `, h("samp", { text: view.text.split("\n")[line - 1].split(isJson(view.text) ? "\0" : "#")[0].trim() }), " ", select);
    }
    vbox.append(
      h("h3", { text: t("first-violation") }),
      h("p", { className: "violation-code" },
        h("a", { href: `/problems/${v.code}`, title: t("problem-page"), className: "code-link" },
          h("code", { text: v.code })),
        h("span", { className: "violation-at", "data-turn": v.turn, "data-play": v.play ?? "" },
          ` · ${at} (`, h("span", { className: "api-index", text: path }), ")")),
      h("p", { className: "violation-message", lang: lang(), text: v.message }));
    if (where) vbox.append(where);
    vbox.append(show);
  }

  const res = $("result");
  res.hidden = !r.result;
  res.replaceChildren();
  if (r.result) {
    const x = r.result;
    res.append(h("dl", { className: "facts" },
      h("dt", { text: t("winner") }), h("dd", { className: "winner", text: x.winner }),
      h("dt", { text: t("finish") }),
      h("dd", { className: "finish", "data-finish": x.finish },
        h("code", { text: x.finish }), ` · ${x.finish === "special" ? t("finish-special") : t("finish-out")}`)));
    const body = h("tbody");
    for (const s of x.scores) {
      body.append(h("tr", { "data-player": s.id, className: s.id === x.winner ? "is-winner" : null },
        h("th", { scope: "row", text: s.id }),
        h("td", { className: "hand_value", text: s.hand_value }),
        h("td", { className: "points", text: s.points }),
        h("td", { className: "penalty", text: s.penalty })));
    }
    res.append(h("div", { className: "table-wrap" }, h("table", { className: "scores" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t("player") }),
        h("th", { scope: "col", text: t("hand-value") }), h("th", { scope: "col", text: t("points") }),
        h("th", { scope: "col", text: t("penalty") }))),
      body)));
  }
}

// -- the stepper ----------------------------------------------------------------------

function violationAt(step) {
  const r = view.ruling;
  const v = r.violations && r.violations[0];
  if (!v || step.turn === null || step.turn !== v.turn) return null;
  return v;
}

function countLabel(n) {
  return n === 1 ? t("card-count-1") : t("cards-count", { n });
}

/** The same card, however written ("10c" and "Tc"; a joker with or without "=…"). */
function sameCard(a, b) {
  const x = parseCard(a);
  const y = parseCard(b);
  return x.joker ? y.joker : !y.joker && x.rank === y.rank && x.suit === y.suit;
}

/**
 * Which of ``cards`` the violation is about: the card it names (``card``), and of several
 * copies the first one the player's hand just before it could not supply; none when the
 * violation names no card (then the whole play is framed, and nothing more).
 */
function faultyCards(cards, v, held) {
  if (!v || typeof v.card !== "string") return new Set();
  let have = held.filter((c) => sameCard(c, v.card)).length;
  for (let i = 0; i < cards.length; i++) {
    if (!sameCard(cards[i], v.card)) continue;
    if (have-- <= 0) return new Set([i]);
  }
  const first = cards.findIndex((c) => sameCard(c, v.card));
  return new Set(first >= 0 ? [first] : []);
}

function actionItem(label, cards, { bad = null, play = null, className = "", unreached = false, marked = new Set(),
  index = null } = {}) {
  const li = h("li", { className: `action ${className}${bad ? " violating" : ""}${unreached ? " unreached" : ""}`,
    "data-play": play });
  if (play !== null) li.append(h("span", { className: "play-no", text: t("play-n", { n: play + 1 }) }));
  li.append(h("span", { className: "action-label", text: label },
    index === null ? null : h("span", { className: "api-index", text: ` (${index})` })));
  if (unreached) li.append(h("span", { className: "tag", text: t("not-reached") }));
  if (cards && cards.length) {
    const row = cardRow(cards);
    row.querySelectorAll("svg.card").forEach((svg, i) => {
      if (marked.has(i)) {
        svg.classList.add("card-violating");
        svg.setAttribute("aria-label", `${svg.getAttribute("aria-label")} (${t("faulty-card")})`);
      }
    });
    li.append(row);
  }
  if (bad) {
    li.setAttribute("aria-current", "true");
    li.append(h("span", { className: "violation-badge", text: t("violation-here", { code: bad.code }) }));
  }
  return li;
}

function playCards(cards) {
  return cards.map((c) => (typeof c === "string" ? c : c.card));
}

function renderTurn(step) {
  const box = $("step-turn");
  box.replaceChildren();
  if (step.turn === null) return;
  const played = step.played || {};
  const v = violationAt(step);
  const wholeTurn = v && (v.play === null || v.play === undefined);
  const actor = step.state.hands.find((x) => x.id === played.player);
  const held = actor ? actor.cards : [];
  const mark = (cards, on) => (on ? faultyCards(cards, v, held) : new Set());
  const list = h("ol", { className: `actions${wholeTurn ? " violating-turn" : ""}`, "data-turn": step.turn });
  if (played.call) { // contract rule sets: a call at the start of the turn
    const c = played.call;
    list.append(actionItem(t(c.granted ? "call-granted" : "call-refused", { player: c.player }),
      c.penalty || [], { className: "action-call" }));
  }
  if (played.restock) list.append(actionItem(t("restock", { count: played.restock.length }), []));
  const d = played.draw;
  const drawn = d && d.card ? [d.card] : [];
  list.append(actionItem(d ? t(d.from === "discard" ? "draw-discard" : "draw-stock") : t("no-draw"),
    drawn, { className: "action-draw", marked: mark(drawn, wholeTurn && !played.plays?.length && !played.discard) }));
  const stopped = v && Number.isInteger(v.play) ? v.play : null; // plays after it were not ruled on
  (played.plays || []).forEach((p, j) => {
    const bad = v && v.play === j ? v : null;
    let label = null;
    let index = null; // the record's own 0-based table index, beside the one people count
    let cards = [];
    if (p.meld) {
      cards = Array.isArray(p.meld) ? p.meld : p.meld.cards;
      const kind = Array.isArray(p.meld) ? null : p.meld.kind;
      label = kind ? t("meld-kind", { kind: t(kind) }) : t("meld");
    } else if (p.build) {
      cards = playCards(p.build.cards);
      label = t("build", { meld: p.build.meld + 1 });
      index = `"meld": ${p.build.meld}`;
    } else if (p.release) {
      cards = p.release.cards;
      label = t("release", { meld: p.release.meld + 1 });
      index = `"meld": ${p.release.meld}`;
    } else if (p.lay) {
      cards = p.lay.flatMap((x) => (Array.isArray(x) ? x : x.cards));
      label = t("lay", { count: p.lay.length });
    } else if (p.shift) {
      cards = [p.shift.card];
      label = t("shift", { meld: p.shift.meld + 1, end: t(p.shift.end || "high") });
      index = `"meld": ${p.shift.meld}`;
    }
    if (label !== null) {
      list.append(actionItem(label, cards, { bad, play: j, unreached: stopped !== null && j > stopped,
        marked: mark(cards, Boolean(bad)), index }));
    }
  });
  const discarded = played.discard ? [played.discard] : [];
  list.append(actionItem(played.discard ? t("discard") : t("no-discard"), discarded,
    { className: "action-discard", unreached: stopped !== null, marked: mark(discarded, wholeTurn) }));
  if (wholeTurn) {
    list.append(h("li", { className: "action violating", "aria-current": "true" },
      h("span", { className: "violation-badge", text: t("violation-here", { code: v.code }) })));
  }
  box.append(list);
}

function meldBlock(meld, i) {
  const kind = meld.kind === "run" ? `${t("run")} ${SUITS[meld.suit] ? SUITS[meld.suit].symbol : ""}` : t("set");
  const caption = t("meld-caption", { i: i + 1, kind: kind.trim(), points: meld.points })
    + (meld.closed ? ` · ${t("closed")}` : "");
  return h("figure", { className: "meld", "data-meld": i },
    cardRow(meld.cards, { label: caption }),
    h("figcaption", { text: caption }));
}

function renderStep() {
  const r = view.ruling;
  const steps = r.steps;
  const k = Math.max(0, Math.min(view.step, steps.length - 1));
  view.step = k;
  const step = steps[k];
  const v = violationAt(step);
  const s = step.state;
  const title = step.turn === null ? t("step-deal")
    : t("step-turn", { turn: step.turn + 1, player: step.played ? step.played.player : "?" });
  const label = $("step-label");
  fill(label, [h("strong", { text: title }),
    step.turn === null ? null : h("span", {}, " (", h("span", { className: "api-index", text: `turns[${step.turn}]` }), ")"),
    ` · ${t("step-of", { k: k + 1, n: steps.length })}`,
    v ? h("span", { className: "step-bad", text: ` · ✗ ${t("breaks-rule")}` }) : null]);
  label.dataset.step = String(k);
  $("stepper").classList.toggle("at-violation", Boolean(v));
  $("step-first").disabled = $("step-prev").disabled = k === 0;
  $("step-last").disabled = $("step-next").disabled = k === steps.length - 1;

  renderTurn(step);
  const tableHead = document.querySelector(".board-table h3");
  tableHead.textContent = step.turn === null ? t("state-deal") : v ? t("state-before") : t("state-after");
  if (s.contract) tableHead.textContent += ` · ${t("round-contract", { round: s.round, contract: s.contract })}`;

  const table = $("step-table");
  table.replaceChildren();
  if (!s.table.length) table.append(h("p", { className: "muted", text: t("no-melds") }));
  s.table.forEach((meld, i) => table.append(meldBlock(meld, i)));

  const discard = $("step-discard");
  discard.replaceChildren();
  if (s.discard_top) discard.append(cardRow([s.discard_top]));
  else discard.append(h("p", { className: "muted", text: t("empty") }));
  discard.append(h("p", { className: "pile-count", text: countLabel(s.discard_count) }));

  const stock = $("step-stock");
  stock.replaceChildren(h("div", { className: "stock-pile", "aria-hidden": "true" }),
    h("p", { className: "pile-count", "data-stock": s.stock_count, text: countLabel(s.stock_count) }));

  const hands = $("step-hands");
  hands.replaceChildren();
  for (const hand of s.hands) {
    const tags = [];
    const n = hand.cards ? hand.cards.length : hand.count; // a view hides other hands' cards
    if (s.opened.includes(hand.id)) tags.push(t(s.contract ? "down" : "opened"));
    if (s.calls_made && s.calls_made[hand.id]) tags.push(t("calls-made", { count: s.calls_made[hand.id] }));
    if (s.next_player === hand.id) tags.push(t("to-play"));
    if (!n) tags.push(t("out"));
    const head = h("h4", {}, h("span", { className: "player", text: hand.id }),
      h("span", { className: "muted", text: ` · ${countLabel(n)}` }),
      ...tags.map((x) => h("span", { className: "tag", text: x })));
    hands.append(h("div", { className: "hand", "data-player": hand.id }, head,
      hand.cards && n ? cardRow(hand.cards, { label: hand.id }) : null));
  }
  renderOptions(k);
}

function go(delta, absolute = null) {
  if (!view.ruling) return;
  view.step = absolute !== null ? absolute : view.step + delta;
  renderStep();
}

// -- permalink ------------------------------------------------------------------------

async function updatePermalink(text) {
  const payload = await encodeRecord(text);
  const url = new URL(window.location.href);
  url.hash = `${FRAGMENT_KEY}=${payload}`;
  history.replaceState(null, "", url.href);
  showPermalink(url.href);
}

function showPermalink(href) {
  $("permalink").value = href;
  $("permalink-open").href = href;
  $("copy-status").textContent = "";
}

async function fromFragment() {
  const hash = window.location.hash.slice(1);
  if (!hash.startsWith(`${FRAGMENT_KEY}=`)) return false;
  let text;
  try {
    text = await decodeRecord(hash.slice(FRAGMENT_KEY.length + 1));
  } catch {
    view.asked++; // an answer still on its way is about another record
    setBusy(false);
    clearInputProblem();
    clearRuling({ dropLink: false });
    showInputProblem({ detail: t("bad-link") }, "", 0);
    return true;
  }
  $("record").value = text;
  await rule(text, { updateLink: false });
  showPermalink(window.location.href);
  return true;
}

async function copyLink() {
  const input = $("permalink");
  const status = $("copy-status");
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = t("copied");
  } catch {
    input.select();
    status.textContent = document.execCommand && document.execCommand("copy") ? t("copied") : t("copy-failed");
  }
}

// -- meld checker ---------------------------------------------------------------------

function checkerCards() {
  return $("checker-cards").value.split(/[\s,]+/).filter(Boolean);
}

function checkerProblem(out, data, status, cards) {
  const p = data || {};
  const field = Object.keys(p.errors || {})[0] || "";
  const m = /^cards\.(\d+)$/.exec(field);
  const where = m ? `${cards[Number(m[1])]} (${Number(m[1]) + 1})` : field;
  fill(out, [h("div", { className: "checker-problem", role: "alert" },
    p.code ? h("a", { href: `/problems/${p.code}`, className: "code-link" }, h("code", { text: p.code })) : null,
    h("p", {}, where ? h("strong", { text: `${where}: ` }) : null, p.detail || t("no-problem-text", { status })))]);
  $("checker-cards").setAttribute("aria-invalid", "true");
}

async function checkMeld() {
  const out = $("checker-out");
  const cards = checkerCards();
  $("checker-cards").removeAttribute("aria-invalid");
  if (!cards.length) { out.replaceChildren(h("p", { text: t("enter-cards") })); return; }
  const body = { ruleset: $("checker-ruleset").value, cards };
  if ($("checker-kind").value) body.kind = $("checker-kind").value;
  const a = await api("/v1/melds/validate", { body: JSON.stringify(body) });
  if (!a.ok) { checkerProblem(out, a.data, a.status, cards); return; }
  const d = a.data;
  const parts = [h("p", { className: `verdict small ${d.valid ? "legal" : "illegal"}`, "data-valid": String(d.valid) },
    h("span", { "aria-hidden": "true", text: d.valid ? "✓ " : "✗ " }), t(d.valid ? "valid-meld" : "invalid-meld"))];
  if (d.meld) parts.push(meldBlock(d.meld, 0));
  for (const v of d.violations || []) {
    parts.push(h("p", { className: "violation-message" },
      h("a", { href: `/problems/${v.code}`, className: "code-link" }, h("code", { text: v.code })), ` ${v.message}`));
  }
  if (d.alternatives && d.alternatives.length) {
    parts.push(h("h4", { text: t("alternatives") }));
    d.alternatives.forEach((m, i) => parts.push(meldBlock(m, i + 1)));
  }
  out.replaceChildren(...parts);
}

async function checkHand() {
  const out = $("checker-out");
  const cards = checkerCards();
  $("checker-cards").removeAttribute("aria-invalid");
  if (!cards.length) { out.replaceChildren(h("p", { text: t("enter-cards") })); return; }
  const body = { ruleset: $("checker-ruleset").value, cards, opened: $("checker-opened").checked };
  const a = await api("/v1/hands/analyze", { body: JSON.stringify(body) });
  if (!a.ok) { checkerProblem(out, a.data, a.status, cards); return; }
  const d = a.data;
  const parts = [];
  d.melds.forEach((m, i) => parts.push(meldBlock(m, i)));
  if (!d.melds.length) parts.push(h("p", { className: "muted", text: t("no-melds") }));
  parts.push(h("h4", { text: d.deadwood.length ? t("deadwood", { value: d.deadwood_value }) : t("no-deadwood") }));
  if (d.deadwood.length) parts.push(cardRow(d.deadwood, { className: "deadwood" }));
  const flag = (key, on) => h("li", { className: on ? "flag-on" : "flag-off" },
    h("span", { "aria-hidden": "true", text: on ? "✓ " : "✗ " }), `${t(key)}: ${t(on ? "yes" : "no")}`);
  parts.push(h("ul", { className: "flags" }, flag("can-open", d.can_open), flag("can-go-out", d.can_go_out),
    flag("can-special", d.can_special)));
  out.replaceChildren(...parts);
}

async function loadRulesets() {
  const a = await api("/v1/rulesets");
  const select = $("checker-ruleset");
  if (!a.ok || !a.data) return;
  select.replaceChildren(...a.data.rulesets.map((r) => h("option", { value: r.name, title: r.source, text: r.name })));
  select.value = "kaluki-hunt";
}

// -- wiring ---------------------------------------------------------------------------

async function loadExample(name) {
  const response = await fetch(`/console/assets/examples/${name}`);
  const area = $("record");
  area.value = await response.text();
  clearInputProblem();
  area.focus();
  area.setSelectionRange(0, 0);
  area.scrollTop = 0;
}

function wire() {
  $("record-form").addEventListener("submit", (e) => {
    e.preventDefault();
    rule($("record").value, { focus: true });
  });
  for (const b of document.querySelectorAll(".example")) {
    b.addEventListener("click", () => loadExample(b.dataset.example));
  }
  for (const b of document.querySelectorAll(".lang-btn")) {
    b.addEventListener("click", () => switchLang(b.dataset.lang));
  }
  const area = $("record");
  area.addEventListener("dragover", (e) => { e.preventDefault(); area.classList.add("drop"); });
  area.addEventListener("dragleave", () => area.classList.remove("drop"));
  area.addEventListener("drop", async (e) => {
    e.preventDefault();
    area.classList.remove("drop");
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) area.value = await file.text();
    else if (e.dataTransfer) area.value = e.dataTransfer.getData("text/plain");
  });
  $("step-first").addEventListener("click", () => go(0, 0));
  $("step-prev").addEventListener("click", () => go(-1));
  $("step-next").addEventListener("click", () => go(1));
  $("step-last").addEventListener("click", () => go(0, view.ruling.steps.length - 1));
  document.addEventListener("keydown", (e) => {
    if (!view.ruling || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest("textarea, input, select, [contenteditable]")) return;
    const moves = { ArrowLeft: [-1, null], ArrowRight: [1, null], Home: [0, 0], End: [0, view.ruling.steps.length - 1] };
    if (!(e.key in moves)) return;
    e.preventDefault();
    go(...moves[e.key]);
  });
  $("view-as").addEventListener("change", (e) => {
    view.as = e.target.value;
    if (view.text) rule(view.text, { keepStep: true, updateLink: false });
  });
  $("copy-link").addEventListener("click", copyLink);
  $("check-meld").addEventListener("click", () => { view.checker = checkMeld; checkMeld(); });
  $("check-hand").addEventListener("click", () => { view.checker = checkHand; checkHand(); });
  window.addEventListener("hashchange", fromFragment);
}

/** A button for every language the catalogs speak beyond the page's own EN and NL. */
function langButtons() {
  const group = document.querySelector(".lang");
  if (!group) return;
  const have = new Set([...group.querySelectorAll(".lang-btn")].map((b) => b.dataset.lang));
  for (const code of LANGS) {
    if (have.has(code)) continue;
    group.append(h("button", { type: "button", className: "lang-btn", text: code.toUpperCase(),
      "data-lang": code, "aria-pressed": "false", lang: code }));
  }
}

async function start() {
  langButtons();
  let saved = null;
  try { saved = localStorage.getItem(LANG_KEY); } catch { /* private mode */ }
  setLang(saved || preferredLang(navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language]));
  applyLang();
  wire();
  document.body.dataset.ready = "false";
  await Promise.all([loadRulesets(), fromFragment()]);
  document.body.dataset.ready = "true";
}

start();

export { cardSvg };
