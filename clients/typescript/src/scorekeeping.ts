/**
 * Scorekeeping calls (SPEC §7.1) on a `KalukiClient`: corrections, the score sheet (JSON
 * or CSV), the settlement, and the live events as an async iterator that reconnects
 * with `Last-Event-ID`, so a dropped connection loses no event.
 */

import type { AppendOptions, Appended, KalukiClient, RequestBody, ResponseBody } from "./client.js";
import { ProblemError, toProblem } from "./problem.js";
import type { Fetch } from "./transport.js";

export type CorrectionBody = RequestBody<"/v1/matches/{match_id}/hands/{seq}/corrections">;
export type CorrectionResult = ResponseBody<"/v1/matches/{match_id}/hands/{seq}/corrections", "post", 201>;
export type Sheet = ResponseBody<"/v1/matches/{match_id}/sheet", "get", 200>;
export type Settlement = ResponseBody<"/v1/matches/{match_id}/settlement", "get", 200>;
export type MatchView = ResponseBody<"/v1/matches/{match_id}", "get", 200>;

/** One live event: `id` is the entry's seq (null for `deleted`). */
export interface MatchEvent {
  id: number | null;
  event: "hand" | "correction" | "buy-in" | "finished" | "deleted";
  /** `{entry, match}`; for `deleted`, `{id}`. */
  data: { entry?: Record<string, unknown>; match?: MatchView; id?: string };
}

async function problemOf(response: Response): Promise<ProblemError> {
  const text = await response.text();
  return new ProblemError(toProblem(response.status, response.statusText,
                                    response.headers.get("Content-Type"), text),
                          { method: "GET", url: response.url });
}

/** POST /v1/matches/{id}/hands/{seq}/corrections (token, fresh or given Idempotency-Key). */
export async function correctHand(client: KalukiClient, matchId: string, seq: number,
                                  body: CorrectionBody, o: AppendOptions = {}
): Promise<Appended<CorrectionResult>> {
  const token = o.token ?? client.memory.tokens.get(matchId);
  if (!token) throw new Error(`No token for match ${matchId}: setToken(id, token) or pass { token }.`);
  const key = o.idempotencyKey ?? crypto.randomUUID();
  const header: { "Idempotency-Key": string; Authorization: string; "If-Match"?: string } =
    { "Idempotency-Key": key, Authorization: `Bearer ${token}` };
  if (typeof o.ifMatch === "string") header["If-Match"] = o.ifMatch;
  const { data, response } = await client.POST("/v1/matches/{match_id}/hands/{seq}/corrections", {
    params: { path: { match_id: matchId, seq }, header }, body,
    ...(o.signal ? { signal: o.signal } : {}) });
  if (data === undefined) throw new TypeError(`${response.url}: ${response.status} without a body`);
  const etag = response.headers.get("ETag");
  if (etag) client.memory.etags.set(matchId, etag);  // the next append's If-Match
  return { data, response, idempotencyKey: key, etag: etag ?? undefined,
           replayed: response.headers.get("Idempotent-Replayed") === "true" };
}

/** GET /v1/matches/{id}/sheet as JSON. */
export async function getSheet(client: KalukiClient, matchId: string): Promise<Sheet> {
  const { data, response } = await client.GET("/v1/matches/{match_id}/sheet", {
    params: { path: { match_id: matchId } }, parseAs: "json" });
  if (data === undefined) throw await problemOf(response);
  return data as Sheet;
}

/** GET /v1/matches/{id}/sheet as RFC 4180 CSV text (for a spreadsheet). */
export async function getSheetCsv(client: KalukiClient, matchId: string): Promise<string> {
  const { data, response } = await client.GET("/v1/matches/{match_id}/sheet", {
    params: { path: { match_id: matchId } }, headers: { Accept: "text/csv" }, parseAs: "text" });
  if (data === undefined) throw await problemOf(response);
  return data;
}

/** GET /v1/matches/{id}/settlement (a ProblemError `no-stakes` without stakes). */
export async function getSettlement(client: KalukiClient, matchId: string): Promise<Settlement> {
  const { data, response } = await client.GET("/v1/matches/{match_id}/settlement", {
    params: { path: { match_id: matchId } } });
  if (data === undefined) throw await problemOf(response);
  return data;
}

export interface EventsOptions {
  /** Where the service is, e.g. `http://localhost:8000`. */
  baseUrl: string;
  fetch?: Fetch;
  /** Resume after this event id (the entry's seq); default: every entry so far. */
  lastEventId?: number;
  /** Wait this long before reconnecting after a dropped connection (default 1000 ms). */
  reconnectMs?: number;
  /** Give up after this many reconnects in a row without an event (default 10). */
  maxReconnects?: number;
  signal?: AbortSignal;
}

/**
 * GET /v1/matches/{id}/events (Server-Sent Events) as an async iterator: each event
 * once, in order; a dropped connection is reopened with `Last-Event-ID`; the iterator
 * ends after `finished` or `deleted`. A 4xx answer throws its ProblemError.
 */
export async function* matchEvents(matchId: string, o: EventsOptions): AsyncGenerator<MatchEvent> {
  const send = o.fetch ?? ((request: Request) => globalThis.fetch(request));
  let last = o.lastEventId;
  let failures = 0;
  const url = `${o.baseUrl.replace(/\/$/, "")}/v1/matches/${encodeURIComponent(matchId)}/events`;
  for (;;) {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (last !== undefined) headers["Last-Event-ID"] = String(last);
    let response: Response | undefined;
    try {
      response = await send(new Request(url, { headers, ...(o.signal ? { signal: o.signal } : {}) }));
    } catch (error) {
      if (o.signal?.aborted) return;
      response = undefined;
      if (++failures > (o.maxReconnects ?? 10)) throw error;
    }
    if (response !== undefined) {
      if (response.status >= 400 && response.status < 500) throw await problemOf(response);
      if (response.ok && response.body) {
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let cut: number;
            while ((cut = buffer.indexOf("\n\n")) >= 0) {
              const block = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              const fields: Record<string, string> = {};
              for (const line of block.split("\n")) {
                if (line.startsWith(":")) continue;
                const at = line.indexOf(": ");
                if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
              }
              if (!fields.event || fields.data === undefined) continue;
              const ev: MatchEvent = { id: fields.id === undefined ? null : Number(fields.id),
                                       event: fields.event as MatchEvent["event"],
                                       data: JSON.parse(fields.data) as MatchEvent["data"] };
              failures = 0;
              if (ev.id !== null && ev.event !== "finished") last = ev.id;
              yield ev;
              if (ev.event === "finished" || ev.event === "deleted") return;
            }
          }
        } catch (error) {
          if (o.signal?.aborted) return;
          if (++failures > (o.maxReconnects ?? 10)) throw error;
        } finally {
          reader.releaseLock();
        }
      } else if (++failures > (o.maxReconnects ?? 10)) {
        throw await problemOf(response);
      }
    }
    if (o.signal?.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, o.reconnectMs ?? 1000));
  }
}
