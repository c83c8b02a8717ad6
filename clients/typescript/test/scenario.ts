// The SDK against a running service (started by tests/clients/test_typescript.py):
// node build/…/test/scenario.js BASE_URL. Exits non-zero on the first failed check.
import assert from "node:assert/strict";
import { correctHand, createKalukiClient, getSettlement, getSheet, getSheetCsv, isProblem,
         matchEvents, ProblemError, unwrap, type MatchEvent, type RetryInfo } from "../src/index.js";

const base = process.argv[2];
if (!base) throw new Error("usage: scenario.js BASE_URL");

// A network that loses the first answer to an append: the request reaches the service
// (the hand is stored), the client sees a failure and must retry with the same key.
const sentKeys: string[] = [];
let dropNextAppend = true;
async function lossy(request: Request): Promise<Response> {
  const isAppend = request.method === "POST" && new URL(request.url).pathname.endsWith("/hands");
  if (isAppend) sentKeys.push(request.headers.get("Idempotency-Key") ?? "(none)");
  const response = await fetch(request);
  if (isAppend && dropNextAppend) {
    dropNextAppend = false;
    await response.arrayBuffer();
    throw new TypeError("fetch failed (the test dropped this answer)");
  }
  return response;
}

const retries: RetryInfo[] = [];
const kaluki = createKalukiClient({ baseUrl: base, fetch: lossy,
                                    retry: { baseDelayMs: 10, onRetry: (r) => retries.push(r) } });

// 1. A ruling (`kind` given: the document of this commit still marks it required).
const ruling = await unwrap(kaluki.POST("/v1/melds/validate", {
  body: { ruleset: "kaluki-hunt", cards: ["Jd", "JK", "Kd"], kind: "run" } }));
assert.equal(ruling.valid, true);
assert.deepEqual(ruling.meld?.cards, ["Jd", "JK=Qd", "Kd"]);
assert.equal(ruling.meld?.points, 30);

// 2. The README's Hunt record, adjudicated.
const hunt = await unwrap(kaluki.POST("/v1/hands/adjudicate", { body: {
  ruleset: "kaluki-hunt", players: ["ann", "bob"],
  deal: { ann: ["4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "2c", "3c"],
          bob: ["2d", "5d", "8d", "Jd", "3s", "6s", "9s", "Qs", "4c", "7c", "Tc", "Kc", "JK"] },
  turns: [{ player: "ann", draw: { from: "stock", card: "4c" },
            plays: [{ meld: ["4h", "5h", "6h", "7h", "8h", "9h", "Th"] }, { meld: ["Jh", "Qh", "Kh"] },
                     { meld: ["2c", "3c", "4c"] }],
            discard: "Ah" }] } }));
assert.equal(hunt.legal, true);
assert.equal(hunt.result?.winner, "ann");
assert.equal(hunt.result?.finish, "special");
assert.deepEqual(hunt.result?.scores, [{ id: "ann", hand_value: 0, points: 40, penalty: 0 },
                                      { id: "bob", hand_value: 109, points: 0, penalty: 218 }]);

// 3. A match: the client remembers its token and ETag.
const created = await unwrap(kaluki.POST("/v1/matches", {
  body: { ruleset: "kaluki-hunt", players: ["kim", "lou"] } }));
const id = created.id;
assert.ok(id, "a match id");
assert.equal(kaluki.memory.tokens.get(id), created.token);
assert.match(kaluki.etag(id) ?? "", /^"0\./);

// 4. An append whose first answer is lost: retried once, same key, answered as a replay.
const hand = { score: { winner: "kim", finish: "out" as const,
                        players: [{ id: "kim", cards: [] }, { id: "lou", cards: ["Qs", "4d"] }] } };
const first = await kaluki.appendHand(id, hand);
assert.equal(sentKeys.length, 2, "the append was sent twice");
assert.equal(sentKeys[0], sentKeys[1], "with one Idempotency-Key");
assert.equal(first.idempotencyKey, sentKeys[0]);
assert.equal(first.replayed, true, "the retry was answered with Idempotent-Replayed: true");
assert.equal(first.data.match?.hands_played, 1);
assert.equal(retries.length, 1);
assert.equal(retries[0]?.status, undefined);
assert.match(kaluki.etag(id) ?? "", /^"1\./);

// 5. Standings: one hand, not two.
const afterOne = await unwrap(kaluki.GET("/v1/matches/{match_id}", { params: { path: { match_id: id } } }));
assert.equal(afterOne.hands_played, 1);
assert.equal(afterOne.version, 1);
assert.deepEqual(afterOne.standings?.map((s) => [s.player, s.points, s.penalty]),
                 [["kim", 20, 0], ["lou", 0, 14]]);

// 6. A second hand, then the first key again (a restart that replays its log): a replay,
//    nothing appended.
const second = await kaluki.appendHand(id, hand);
assert.equal(second.replayed, false);
assert.notEqual(second.idempotencyKey, first.idempotencyKey);
assert.equal(second.data.match?.hands_played, 2);
const again = await kaluki.appendHand(id, hand, { idempotencyKey: first.idempotencyKey });
assert.equal(again.replayed, true);
assert.equal(again.data.seq, 0);
const afterReplay = await unwrap(kaluki.GET("/v1/matches/{match_id}", { params: { path: { match_id: id } } }));
assert.equal(afterReplay.hands_played, 2);

// 7. If-Match from the last ETag: another device's client appends, ours is now stale.
const other = createKalukiClient({ baseUrl: base, tokens: { [id]: created.token ?? "" } });
await other.appendHand(id, hand);
await assert.rejects(kaluki.appendHand(id, hand), (e: unknown) => {
  assert.ok(e instanceof ProblemError);
  assert.equal(e.status, 412);
  assert.equal(e.code, "precondition-failed");
  assert.ok(e.idempotencyKey, "the refused append's key is handed back");
  return true;
});
await unwrap(kaluki.GET("/v1/matches/{match_id}", { params: { path: { match_id: id } } }));
const fourth = await kaluki.appendHand(id, hand);
assert.equal(fourth.data.match?.hands_played, 4);

// 8. A bad card is a ProblemError with its code, field errors and the raw problem.
await assert.rejects(kaluki.POST("/v1/hands/score", { body: {
  ruleset: "kaluki-hunt", winner: "kim", finish: "out",
  players: [{ id: "kim", cards: [] }, { id: "lou", cards: ["Qz"] }] } }), (e: unknown) => {
  assert.ok(isProblem(e, "invalid-card"));
  assert.equal(e.status, 422);
  assert.equal(e.title, "Invalid card");
  assert.match(e.detail ?? "", /'Qz' is not a card/);
  assert.ok(e.errors?.["players.1.cards.0"]?.length);
  assert.equal(e.problem.code, "invalid-card");
  assert.ok(e instanceof Error);
  return true;
});

// 9. A write without the token: 401 token-required, thrown, not retried.
const stranger = createKalukiClient({ baseUrl: base });
await assert.rejects(stranger.POST("/v1/matches/{match_id}/buy-ins", {
  params: { path: { match_id: id } }, body: { player: "lou" } }),
  (e: unknown) => isProblem(e, "token-required") && e.status === 401);

// 10. Scorekeeping (SPEC §7.1): a correction, the sheet, the settlement, the live events.
const sk = createKalukiClient({ baseUrl: base });
const game = await unwrap(sk.POST("/v1/matches", { body: {
  ruleset: "kaluki-hunt", players: ["kim", "lou"], match_end: "hands", match_hands: 2,
  names: { kim: "=Kim" }, stakes: { currency: "EUR", stake: "5", per_hand: "1" } } }));
const gid = game.id;
await sk.appendHand(gid, hand);
const fix = await correctHand(sk, gid, 0, { reason: "void it", void: true });
assert.equal(fix.data.type, "correction");
assert.equal(fix.data.match?.hands_played, 0);
const sheet = await getSheet(sk, gid);
assert.equal(sheet.rows.length, 0);
assert.equal(sheet.players[0]?.name, "=Kim");
const csv = await getSheetCsv(sk, gid);
assert.ok(csv.startsWith("seq,winner,finish,'=Kim points"), csv);
const seen: MatchEvent[] = [];
const live = (async () => {
  for await (const ev of matchEvents(gid, { baseUrl: base, reconnectMs: 50 })) seen.push(ev);
})();
await sk.appendHand(gid, hand);
await sk.appendHand(gid, hand);
await live;
assert.deepEqual(seen.map((e) => [e.id, e.event]),
                 [[0, "hand"], [1, "correction"], [2, "hand"], [3, "hand"], [3, "finished"]]);
const money = await getSettlement(sk, gid);
assert.equal(money.final, true);
assert.equal(money.balances.reduce((a, b) => a + Number(b.amount), 0), 0);
await assert.rejects(getSettlement(sk, id), (e: unknown) => isProblem(e, "no-stakes"));

console.log(JSON.stringify({ ok: true, match: id, retries: retries.length }));
