// Card faces as SVG, drawn by this module (no images, no fonts from elsewhere).
// A card is the service's canonical text: "7h", "Th", "JK", "JK=7h" (a run joker),
// "JK=7" (a set joker: rank only). Every face has a text alternative, and the suit
// is always shown as its symbol, so colour is never the only signal.

import { lang } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

export const SUITS = {
  c: { symbol: "♣", red: false, en: "clubs", nl: "klaveren" },
  d: { symbol: "♦", red: true, en: "diamonds", nl: "ruiten" },
  h: { symbol: "♥", red: true, en: "hearts", nl: "harten" },
  s: { symbol: "♠", red: false, en: "spades", nl: "schoppen" },
};

const RANK_FACE = { T: "10" };
const RANK_NAMES = {
  en: { A: "ace", J: "jack", Q: "queen", K: "king", T: "10" },
  nl: { A: "aas", J: "boer", Q: "vrouw", K: "heer", T: "10" },
};

/** {joker, rank, suit, as: {rank, suit} | null} for a canonical card text. */
export function parseCard(text) {
  const s = String(text).trim();
  if (/^(JK|\*)/i.test(s)) {
    const eq = s.indexOf("=");
    let as = null;
    if (eq >= 0) {
      const stands = parseCard(s.slice(eq + 1));
      as = stands.joker ? null : { rank: stands.rank, suit: stands.suit };
    }
    return { joker: true, rank: null, suit: null, as };
  }
  const m = /^(10|[2-9TJQKA])([cdhs])?$/i.exec(s);
  if (!m) return { joker: false, rank: s, suit: null, as: null, unknown: true };
  const rank = m[1] === "10" ? "T" : m[1].toUpperCase();
  return { joker: false, rank, suit: m[2] ? m[2].toLowerCase() : null, as: null };
}

function rankName(rank, language) {
  return RANK_NAMES[language][rank] ?? rank;
}

function naturalName(rank, suit, language) {
  const r = rankName(rank, language);
  if (!suit) return language === "nl" ? `een ${r}` : `a ${r}`;
  const s = SUITS[suit][language];
  return language === "nl" ? `${s} ${r}` : `${r} of ${s}`;
}

/** The card's text alternative: "7 of hearts", "joker as 7 of hearts", "joker as a 7". */
export function cardName(text, language = lang()) {
  const c = parseCard(text);
  if (c.unknown) return String(text);
  if (!c.joker) return naturalName(c.rank, c.suit, language);
  if (!c.as) return "joker";
  return `joker ${language === "nl" ? "als" : "as"} ${naturalName(c.as.rank, c.as.suit, language)}`;
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function face(rank) {
  return RANK_FACE[rank] ?? rank;
}

/** The SVG face of one card. ``options.mark``: an extra class (e.g. "violating"). */
export function cardSvg(text, options = {}) {
  const c = parseCard(text);
  const name = cardName(text);
  const colour = c.joker ? "joker" : c.suit && SUITS[c.suit].red ? "red" : "black";
  const svg = el("svg", {
    viewBox: "0 0 50 70", class: `card card-${colour}${options.mark ? ` ${options.mark}` : ""}`,
    role: "img", "aria-label": name, "data-card": String(text), focusable: "false",
  });
  svg.append(el("title", {}, name));
  svg.append(el("rect", { x: 0.75, y: 0.75, width: 48.5, height: 68.5, rx: 4.5, class: "card-bg" }));
  if (c.joker) {
    svg.append(el("text", { x: 4, y: 12, class: "card-corner" }, "JK"));
    svg.append(el("text", { x: 25, y: c.as ? 33 : 42, class: "card-pip", "text-anchor": "middle" }, "★"));
    svg.append(el("text", { x: 25, y: c.as ? 45 : 57, class: "card-joker-word", "text-anchor": "middle" },
      "JOKER"));
    if (c.as) {
      svg.append(el("rect", { x: 5, y: 50, width: 40, height: 15, rx: 3, class: "card-as-bg" }));
      const as = `=${face(c.as.rank)}${c.as.suit ? SUITS[c.as.suit].symbol : ""}`;
      const cls = c.as.suit && SUITS[c.as.suit].red ? "card-as card-as-red" : "card-as";
      svg.append(el("text", { x: 25, y: 61.5, class: cls, "text-anchor": "middle" }, as));
    }
    return svg;
  }
  const symbol = c.suit ? SUITS[c.suit].symbol : "?";
  const corner = (g) => {
    g.append(el("text", { x: 4, y: 13, class: "card-corner" }, face(c.rank)));
    g.append(el("text", { x: 4.5, y: 23, class: "card-corner-suit" }, symbol));
    return g;
  };
  svg.append(corner(el("g")));
  svg.append(corner(el("g", { transform: "rotate(180 25 35)" })));
  svg.append(el("text", { x: 25, y: 44, class: "card-pip", "text-anchor": "middle" }, symbol));
  return svg;
}

/** A row of cards (a meld, a hand) as a list, each card an item. */
export function cardRow(cards, options = {}) {
  const row = document.createElement("ul");
  row.className = `cards${options.className ? ` ${options.className}` : ""}`;
  if (options.label) row.setAttribute("aria-label", options.label);
  for (const card of cards) {
    const li = document.createElement("li");
    li.append(cardSvg(card, options));
    row.append(li);
  }
  return row;
}
