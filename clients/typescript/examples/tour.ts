// The service README's tour, through the SDK. Run the service (`make run`), then:
//   npm run tour          (in clients/typescript)
// or, in an app of your own set up as the SDK README's "Getting started" says:
//   npx tsc && node tour.js
// KALUKI_URL overrides http://localhost:8000.
import { createKalukiClient, isProblem, unwrap } from "@kaluki/client";

const kaluki = createKalukiClient({ baseUrl: process.env.KALUKI_URL ?? "http://localhost:8000" });

// Is this a meld? Which reading, what does each joker stand for, what is it worth?
// (`kind` is optional: without it the service picks the best reading.)
const ruling = await unwrap(kaluki.POST("/v1/melds/validate", {
  body: { ruleset: "kaluki-hunt", cards: ["Jd", "JK", "Kd"], kind: "run" },
}));
console.log(ruling.valid, ruling.meld?.cards); // true [ 'Jd', 'JK=Qd', 'Kd' ]

// A ruling that says no is still a 200, in Dutch on request.
const no = await unwrap(kaluki.POST("/v1/melds/validate", {
  body: { ruleset: "kaluki-51", cards: ["9c", "Tc", "Jc"], kind: "run" },
  headers: { "Accept-Language": "nl" },
}));
console.log(no.violations?.map((v) => `${v.code}: ${v.message}`));

// Referee a whole hand: ann lays every card in the turn of her first meld, a Hunt.
const hunt = await unwrap(kaluki.POST("/v1/hands/adjudicate", {
  body: {
    ruleset: "kaluki-hunt",
    players: ["ann", "bob"],
    deal: {
      ann: ["4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "2c", "3c"],
      bob: ["2d", "5d", "8d", "Jd", "3s", "6s", "9s", "Qs", "4c", "7c", "Tc", "Kc", "JK"],
    },
    turns: [{
      player: "ann",
      draw: { from: "stock", card: "4c" },
      plays: [{ meld: ["4h", "5h", "6h", "7h", "8h", "9h", "Th"] },
              { meld: ["Jh", "Qh", "Kh"] },
              { meld: ["2c", "3c", "4c"] }],
      discard: "Ah",
    }],
  },
}));
console.log(hunt.legal, hunt.result?.finish, hunt.result?.scores); // true special […]

// A match ledger: the client keeps the token it is given and the match's ETag.
const created = await unwrap(kaluki.POST("/v1/matches", {
  body: { ruleset: "kaluki-hunt", players: ["kim", "lou"] },
}));
const id = created.id;
if (!id) throw new Error("the service answered no match id");

// One logical append: one Idempotency-Key, kept across retries; If-Match from the ETag.
const hand = await kaluki.appendHand(id, {
  score: { winner: "kim", finish: "out",
           players: [{ id: "kim", cards: [] }, { id: "lou", cards: ["Qs", "4d"] }] },
});
console.log(hand.data.match?.hands_played, hand.idempotencyKey, hand.replayed); // 1 … false

const match = await unwrap(kaluki.GET("/v1/matches/{match_id}", { params: { path: { match_id: id } } }));
for (const s of match.standings ?? []) console.log(s.player, s.points, s.penalty);

// Errors are thrown as ProblemError, with the problem's stable code.
try {
  await kaluki.POST("/v1/hands/score", {
    body: { ruleset: "kaluki-hunt", winner: "kim", finish: "out",
            players: [{ id: "kim", cards: [] }, { id: "lou", cards: ["Qz"] }] },
  });
} catch (error) {
  if (!isProblem(error, "invalid-card")) throw error;
  console.log(error.status, error.code, error.errors); // 422 invalid-card { 'players.1.cards.0': […] }
}
