// The transport against a scripted fetch: retries, Retry-After, idempotency keys,
// If-Match, tokens and problems, without a server. node --test build/…/test/unit.test.js
import assert from "node:assert/strict";
import { test } from "node:test";
import { createKalukiClient, isProblem, parseRetryAfter, ProblemError, ROUTES, unwrap,
         type KalukiClientOptions, type RequestBody, type RetryInfo } from "../src/index.js";

interface Sent { method: string; path: string; headers: Headers; body: string }

const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: `/problems/${code}`, title: code, status, code, detail: "d" }),
               { status, headers: { "Content-Type": "application/problem+json", ...headers } });
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** A client whose fetch answers from `script` in order and records what it was sent. */
function scripted(script: Array<Response | Error>, options: Partial<KalukiClientOptions> = {}) {
  const sent: Sent[] = [];
  const retries: RetryInfo[] = [];
  const client = createKalukiClient({
    baseUrl: "http://kaluki.test",
    ...options,
    retry: { baseDelayMs: 1, onRetry: (r) => retries.push(r), ...options.retry },
    fetch: async (request) => {
      sent.push({ method: request.method, path: new URL(request.url).pathname, headers: request.headers,
                  body: await request.text() });
      const next = script.shift();
      if (next === undefined) throw new Error("the script ran out");
      if (next instanceof Error) throw next;
      return next;
    },
  });
  return { client, sent, retries };
}

const validate = { ruleset: "kaluki-hunt", cards: ["Jd", "JK", "Kd"], kind: "run" as const };
const score = { score: { winner: "kim", finish: "out" as const,
                         players: [{ id: "kim", cards: [] }, { id: "lou", cards: ["4d"] }] } };

test("Retry-After: delta-seconds, HTTP dates, and nonsense", () => {
  const now = Date.parse("2026-12-01T10:00:00Z");
  assert.equal(parseRetryAfter("3", now), 3000);
  assert.equal(parseRetryAfter(" 0 ", now), 0);
  assert.equal(parseRetryAfter("Tue, 01 Dec 2026 10:00:05 GMT", now), 5000);
  assert.equal(parseRetryAfter("Tue, 01 Dec 2026 09:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("-1", now), undefined);
  assert.equal(parseRetryAfter("1.5", now), undefined);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test("a 429 on a GET is retried after its Retry-After", async () => {
  const { client, sent, retries } = scripted([problem(429, "rate-limited", { "Retry-After": "0" }),
                                              json({ rulesets: [] })]);
  const data = await unwrap(client.GET("/v1/rulesets"));
  assert.deepEqual(data, { rulesets: [] });
  assert.equal(sent.length, 2);
  assert.deepEqual(retries.map((r) => [r.attempt, r.status, r.delayMs]), [[1, 429, 0]]);
});

test("a rulings POST is pure: a 503 is retried, waiting the Retry-After it names", async () => {
  const { client, sent, retries } = scripted([problem(503, "service-unavailable", { "Retry-After": "1" }),
                                              json({ valid: true, violations: [] })]);
  const started = Date.now();
  const ruling = await unwrap(client.POST("/v1/melds/validate", { body: validate }));
  assert.equal(ruling.valid, true);
  assert.equal(retries[0]?.delayMs, 1000);
  assert.ok(Date.now() - started >= 900, "waited for Retry-After");
  assert.equal(sent[0]?.body, sent[1]?.body, "the same body, twice");
});

test("creating a match is not idempotent: a 503 is thrown, not retried", async () => {
  const { client, sent } = scripted([problem(503, "ledger-unavailable", { "Retry-After": "2" })]);
  await assert.rejects(client.POST("/v1/matches", { body: { ruleset: "kaluki-hunt", players: ["a", "b"] } }),
    (e: unknown) => isProblem(e, "ledger-unavailable") && e.retryAfterMs === 2000);
  assert.equal(sent.length, 1);
});

test("a network failure on a non-idempotent POST is not retried", async () => {
  const { client, sent } = scripted([new TypeError("fetch failed")]);
  await assert.rejects(client.POST("/v1/matches", { body: { ruleset: "kaluki-hunt", players: ["a", "b"] } }),
                       TypeError);
  assert.equal(sent.length, 1);
});

test("attempts are bounded", async () => {
  const busy = () => problem(503, "ledger-busy", { "Retry-After": "0" });
  const { client, sent } = scripted([busy(), busy(), busy(), busy()], { retry: { attempts: 3 } });
  await assert.rejects(client.GET("/v1/violations"), (e: unknown) => isProblem(e, "ledger-busy"));
  assert.equal(sent.length, 3);
});

test("a Retry-After beyond maxDelayMs is handed to the caller at once", async () => {
  const { client, sent } = scripted([problem(429, "rate-limited", { "Retry-After": "60" })],
                                    { retry: { maxDelayMs: 10_000 } });
  await assert.rejects(client.GET("/v1/violations"),
                       (e: unknown) => isProblem(e, "rate-limited") && e.retryAfterMs === 60_000);
  assert.equal(sent.length, 1);
});

test("without Retry-After the backoff doubles, with jitter, under maxDelayMs", async () => {
  const busy = () => problem(503, "ledger-busy");
  const { client, retries } = scripted([busy(), busy(), busy(), json({})],
                                       { retry: { baseDelayMs: 8, maxDelayMs: 20 } });
  await unwrap(client.GET("/v1/violations"));
  const delays = retries.map((r) => r.delayMs);
  assert.ok(delays[0]! >= 4 && delays[0]! <= 8, `${delays}`);
  assert.ok(delays[1]! >= 8 && delays[1]! <= 16, `${delays}`);
  assert.ok(delays[2]! >= 10 && delays[2]! <= 20, `${delays}`);
});

test("an append keeps its Idempotency-Key across retries, with If-Match and the token", async () => {
  const { client, sent } = scripted([
    json({ id: "m1", token: "secret", match: {} }, 201, { Location: "/v1/matches/m1", ETag: '"0.aaaa"' }),
    problem(503, "ledger-unavailable", { "Retry-After": "0" }),
    new TypeError("fetch failed"),
    json({ seq: 0, match: { hands_played: 1 } }, 201, { ETag: '"1.bbbb"', "Idempotent-Replayed": "true" }),
  ]);
  await unwrap(client.POST("/v1/matches", { body: { ruleset: "kaluki-hunt", players: ["kim", "lou"] } }));
  assert.equal(client.etag("m1"), '"0.aaaa"');
  const appended = await client.appendHand("m1", score);
  const appends = sent.slice(1);
  assert.equal(appends.length, 3);
  const keys = new Set(appends.map((s) => s.headers.get("Idempotency-Key")));
  assert.equal(keys.size, 1);
  assert.deepEqual([...keys], [appended.idempotencyKey]);
  assert.match(appended.idempotencyKey, /^[0-9a-f-]{36}$/);
  for (const s of appends) {
    assert.equal(s.headers.get("If-Match"), '"0.aaaa"');
    assert.equal(s.headers.get("Authorization"), "Bearer secret");
    assert.equal(s.body, JSON.stringify(score));
  }
  assert.equal(appended.replayed, true);
  assert.equal(client.etag("m1"), '"1.bbbb"');
});

test("two appends are two logical appends: two keys", async () => {
  const ok = () => json({ seq: 0, match: {} }, 201);
  const { client, sent } = scripted([ok(), ok()], { tokens: { m1: "t" } });
  await client.appendHand("m1", score);
  await client.appendHand("m1", score);
  assert.notEqual(sent[0]?.headers.get("Idempotency-Key"), sent[1]?.headers.get("Idempotency-Key"));
});

test("If-Match can be turned off per call or per client, or given", async () => {
  const ok = () => json({ seq: 0, match: {} }, 201, { ETag: '"1.cccc"' });
  const read = () => json({ id: "m1" }, 200, { ETag: '"0.aaaa"' });
  const { client, sent } = scripted([read(), ok(), json({}, 201), ok()], { tokens: { m1: "t" } });
  await unwrap(client.GET("/v1/matches/{match_id}", { params: { path: { match_id: "m1" } } }));
  await client.appendHand("m1", score, { ifMatch: false });
  await client.buyIn("m1", { player: "lou" }, { ifMatch: '"7.dddd"' });
  await client.appendHand("m1", score);
  assert.deepEqual(sent.map((s) => s.headers.get("If-Match")), [null, null, '"7.dddd"', '"1.cccc"']);
  assert.ok(sent[2]?.headers.get("Idempotency-Key"), "a buy-in carries a key too");

  const off = scripted([read(), ok()], { tokens: { m1: "t" }, ifMatch: false });
  await unwrap(off.client.GET("/v1/matches/{match_id}", { params: { path: { match_id: "m1" } } }));
  await off.client.appendHand("m1", score);
  assert.equal(off.sent[1]?.headers.get("If-Match"), null);
});

test("a refused append throws its problem with the key to resend", async () => {
  const { client } = scripted([problem(412, "precondition-failed")], { tokens: { m1: "t" } });
  await assert.rejects(client.appendHand("m1", score, { idempotencyKey: "hand-7" }), (e: unknown) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.code, "precondition-failed");
    assert.equal(e.idempotencyKey, "hand-7");
    assert.equal(e.method, "POST");
    return true;
  });
});

test("an append with no token known fails before sending", async () => {
  const { client, sent } = scripted([]);
  await assert.rejects(client.appendHand("m9", score), /No token for match m9/);
  assert.equal(sent.length, 0);
});

test("reads carry no token; export and delete do", async () => {
  const { client, sent } = scripted([json({}, 200, { ETag: '"2.ffff"' }), json({}),
                                     new Response(null, { status: 204 })], { tokens: { m1: "t1" } });
  await unwrap(client.GET("/v1/matches/{match_id}", { params: { path: { match_id: "m1" } } }));
  await unwrap(client.GET("/v1/matches/{match_id}/export", { params: { path: { match_id: "m1" } } }));
  await client.DELETE("/v1/matches/{match_id}", { params: { path: { match_id: "m1" } } });
  assert.deepEqual(sent.map((s) => s.headers.get("Authorization")), [null, "Bearer t1", "Bearer t1"]);
  assert.equal(sent[2]?.headers.get("If-Match"), '"2.ffff"', "a delete is conditional too");
  assert.equal(client.etag("m1"), undefined, "a deleted match has no ETag");
});

test("an import carries the token of the match its export names, and is retried", async () => {
  const { client, sent } = scripted([problem(503, "ledger-unavailable", { "Retry-After": "0" }),
                                     json({ id: "m1" }, 201, { Location: "/v1/matches/m1", ETag: '"3.eeee"' })],
                                    { tokens: { m1: "t1" } });
  const body = { id: "m1", entries: [] } as unknown as RequestBody<"/v1/matches/import">;
  await unwrap(client.POST("/v1/matches/import", { body }));
  assert.deepEqual(sent.map((s) => s.headers.get("Authorization")), ["Bearer t1", "Bearer t1"]);
  assert.equal(client.etag("m1"), '"3.eeee"');
});

test("an answer that is not a problem still throws a ProblemError", async () => {
  const { client } = scripted([new Response("<h1>Bad gateway</h1>", { status: 502, statusText: "Bad Gateway",
                                                                      headers: { "Content-Type": "text/html" } })]);
  await assert.rejects(client.GET("/v1/violations"), (e: unknown) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.code, "http-502");
    assert.equal(e.type, "about:blank");
    assert.equal(e.title, "Bad Gateway");
    return true;
  });
});

test("an abort during the wait stops the retries", async () => {
  const { client, sent } = scripted([problem(503, "ledger-busy", { "Retry-After": "5" })]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("user gave up")), 20);
  await assert.rejects(client.GET("/v1/violations", { signal: controller.signal }), /user gave up/);
  assert.equal(sent.length, 1);
});

test("a base URL with a path prefix still recognises the routes", async () => {
  const { client, sent } = scripted([json({ seq: 0, match: {} }, 201)],
                                    { baseUrl: "http://kaluki.test/api/", tokens: { m1: "t" } });
  await client.appendHand("m1", score);
  assert.equal(sent[0]?.path, "/api/v1/matches/m1/hands");
  assert.equal(sent[0]?.headers.get("Authorization"), "Bearer t");
});

test("the route facts are the OpenAPI document's: security, x-idempotent, header parameters", () => {
  const append = ROUTES["POST /v1/matches/{match_id}/hands"];
  assert.deepEqual(append, { operationId: "appendHand", token: "required", idempotent: false,
                             idempotencyKey: "required", ifMatch: true, match: { in: "path", name: "match_id" } });
  assert.equal(ROUTES["POST /v1/melds/validate"]?.idempotent, true);
  assert.equal(ROUTES["POST /v1/matches"]?.idempotent, false);
  assert.equal(ROUTES["POST /v1/matches/import"]?.token, "optional");
  assert.deepEqual(ROUTES["POST /v1/matches/import"]?.match, { in: "body", name: "id" });
  assert.equal(ROUTES["GET /v1/matches/{match_id}"]?.token, "none");
});

test("one error channel: a problem is thrown, and openapi-fetch's error is never set", async () => {
  const body = JSON.stringify({ type: "/problems/invalid-card", title: "Invalid card", status: 422,
                                code: "invalid-card", detail: "'Qz' is not a card",
                                errors: { "cards.0": ["'Qz' is not a card"] }, request_id: "r-1" });
  const { client } = scripted([new Response(body, { status: 422, headers: { "Content-Type": "application/problem+json" } }),
                               json({ valid: true, violations: [] })]);
  await assert.rejects(client.POST("/v1/melds/validate", { body: validate }), (e: unknown) => {
    assert.ok(isProblem(e, "invalid-card"));
    assert.equal(e.requestId, "r-1");
    assert.equal(e.problem.request_id, "r-1");
    assert.equal("instance" in e.problem, false);
    assert.deepEqual(e.errors, { "cards.0": ["'Qz' is not a card"] });
    return true;
  });
  const ok = await client.POST("/v1/melds/validate", { body: validate });
  assert.equal(ok.error, undefined);
  assert.equal(ok.data?.valid, true);
});

test("appendHand and buyIn send their headers the same way", async () => {
  const ok = () => json({ seq: 0, match: {} }, 201, { ETag: '"1.aaaa"' });
  const { client, sent } = scripted([ok(), ok()], { tokens: { m1: "t" } });
  await client.appendHand("m1", score, { idempotencyKey: "k-1", ifMatch: '"0.zzzz"', token: "other" });
  await client.buyIn("m1", { player: "lou" }, { idempotencyKey: "k-2", ifMatch: '"0.zzzz"', token: "other" });
  const view = (s: Sent) => [s.headers.get("Idempotency-Key"), s.headers.get("If-Match"), s.headers.get("Authorization")];
  assert.deepEqual(sent.map(view), [["k-1", '"0.zzzz"', "Bearer other"], ["k-2", '"0.zzzz"', "Bearer other"]]);
});

test("a buy-in is retried under its key; creating a match after a network failure is not", async () => {
  const { client, sent } = scripted([problem(503, "ledger-busy", { "Retry-After": "0" }),
                                     json({ seq: 1, match: {} }, 201)], { tokens: { m1: "t" } });
  await client.buyIn("m1", { player: "lou" });
  assert.equal(sent.length, 2);
  assert.equal(sent[0]?.headers.get("Idempotency-Key"), sent[1]?.headers.get("Idempotency-Key"));
});

test("headers come from the client's openapi-fetch middleware, so a caller's own middleware sees them", async () => {
  const { client } = scripted([json({ seq: 0, match: {} }, 201)], { tokens: { m1: "t" } });
  const seen: Array<string | null> = [];
  client.use({ onRequest: ({ request }) => { seen.push(request.headers.get("Authorization")); return undefined; } });
  await client.appendHand("m1", score);
  assert.deepEqual(seen, ["Bearer t"]);
});
