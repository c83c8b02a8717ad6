// Retries, idempotency and optimistic concurrency, made explicit.
import { createKalukiClient, isProblem, unwrap, type RetryInfo } from "@kaluki/client";

const kaluki = createKalukiClient({
  baseUrl: process.env.KALUKI_URL ?? "http://localhost:8000",
  // 429 and 503 (and network errors) on idempotent requests: at most 5 tries, waiting what
  // Retry-After says, or 200 ms doubling; a Retry-After beyond 5 s is thrown to the caller.
  retry: { attempts: 5, maxDelayMs: 5_000,
           onRetry: (r: RetryInfo) => console.warn(`retry ${r.attempt} in ${r.delayMs} ms`, r.status ?? r.error) },
  // A match created on another device: its id and token, from wherever the app keeps them.
  tokens: process.env.MATCH_ID && process.env.MATCH_TOKEN
    ? { [process.env.MATCH_ID]: process.env.MATCH_TOKEN } : {},
});

export async function recordHand(matchId: string, winner: string, loserCards: Record<string, string[]>) {
  const body = {
    score: { winner, finish: "out" as const,
             players: [{ id: winner, cards: [] },
                       ...Object.entries(loserCards).map(([id, cards]) => ({ id, cards }))] },
  };
  // Know the match's current version before writing (this also records its ETag).
  await unwrap(kaluki.GET("/v1/matches/{match_id}", { params: { path: { match_id: matchId } } }));
  try {
    return await kaluki.appendHand(matchId, body);
  } catch (error) {
    if (isProblem(error, "precondition-failed")) {
      // Someone else wrote a hand since we read: show the new standings before retrying,
      // the same hand may be the one they entered.
      const now = await unwrap(kaluki.GET("/v1/matches/{match_id}", { params: { path: { match_id: matchId } } }));
      console.warn(`match moved on to ${now.hands_played} hands; not appending twice blindly`);
      return undefined;
    }
    if (isProblem(error) && error.retryAfterMs !== undefined && error.idempotencyKey) {
      // The service asked for a longer pause than this app waits: keep the key, try later.
      console.warn(`retry the same append after ${error.retryAfterMs} ms with key ${error.idempotencyKey}`);
    }
    throw error;
  }
}

if (process.env.MATCH_ID) {
  const result = await recordHand(process.env.MATCH_ID, "kim", { lou: ["Qs", "4d"] });
  console.log(result?.data.match?.standings);
}
