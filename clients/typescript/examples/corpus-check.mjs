// Check a local meld validator against the published conformance corpus (docs/corpus.md).
//
//   node clients/typescript/examples/corpus-check.mjs [path/to/corpus]
//
// A frontend that rules on melds itself, for instant feedback, wants to know that it
// agrees with the referee. The corpus holds the referee's rulings as data: read the
// cases of POST /v1/melds/validate, ask your validator, compare `valid` and the
// violation codes (the words of a message are free: docs/corpus.md).
//
// TOY VALIDATOR, CLEARLY LABELLED: `toyValidSet` below only knows SETS WITHOUT JOKERS
// (set_min..set_max naturals of one rank, distinct suits when set_distinct_suits). The
// example therefore checks only the cases it can rule on (a catalog rule set, no
// jokers, every card of one rank) and skips the rest. Replace it with your own.
import { readFileSync, existsSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const corpus = process.argv[2] ?? join(here, "..", "..", "..", "corpus");

function readCases(name) {
  const plain = join(corpus, "cases", `${name}.json`);
  const raw = existsSync(plain) ? readFileSync(plain) : gunzipSync(readFileSync(`${plain}.gz`));
  return JSON.parse(raw.toString("utf8")).cases;
}

// The rule sets' parameters, from the corpus's own GET /v1/rulesets/{name} cases.
const params = Object.fromEntries(readCases("rulesets")
  .filter((c) => c.expected.status === 200 && c.expected.body.parameters)
  .map((c) => [c.expected.body.name, c.expected.body.parameters]));

const RANK = /^(10|[2-9ATJQK])/i;
const rankOf = (card) => card.match(RANK)?.[1].toUpperCase().replace("10", "T");
const suitOf = (card) => card.slice(-1).toLowerCase();

/** TOY: is this joker-free list of cards a legal set? Returns the violation codes (empty: valid). */
function toyValidSet(cards, p) {
  const codes = [];
  if (cards.length < p.set_min) codes.push("set-too-short");
  if (p.set_max !== null && cards.length > p.set_max) codes.push("set-too-long");
  if (p.set_distinct_suits) {
    const seen = new Set();
    for (const c of cards) {
      if (seen.has(suitOf(c))) { codes.push("duplicate-suit"); break; }
      seen.add(suitOf(c));
    }
  }
  return codes;
}

let checked = 0, skipped = 0;
const disagreements = [];
for (const c of readCases("validate")) {
  const body = c.request.body;
  const p = typeof body?.ruleset === "string" ? params[body.ruleset] : undefined;
  const cards = body?.cards;
  const oneRank = Array.isArray(cards) && cards.length > 0 &&
    cards.every((x) => typeof x === "string" && !/^(jk|\*)/i.test(x) && RANK.test(x)) &&
    new Set(cards.map(rankOf)).size === 1;
  if (c.expected.status !== 200 || !p || !oneRank || body.kind === "run" || p.contracts) {
    skipped++;
    continue;
  }
  checked++;
  const expected = c.expected.body.violations.map((v) => v.code);
  const mine = toyValidSet(cards, p);
  const agree = (mine.length === 0) === c.expected.body.valid &&
    mine.every((code) => expected.includes(code)) && (mine.length > 0 || expected.length === 0);
  if (!agree) disagreements.push(`${c.id}: ${JSON.stringify(cards)} — referee ` +
    `${c.expected.body.valid ? "valid" : expected.join(",")}, toy ${mine.join(",") || "valid"}`);
}
for (const d of disagreements) console.log(`DISAGREE ${d}`);
console.log(JSON.stringify({ checked, skipped, disagree: disagreements.length }));
process.exit(disagreements.length ? 1 : 0);
