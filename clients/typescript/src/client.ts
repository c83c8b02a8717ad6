/**
 * `createKalukiClient`: an openapi-fetch client over the generated `paths`, with the
 * Kaluki middleware (headers from the generated route facts, problems thrown) and
 * transport (retries) underneath, plus the two calls that need more than a path:
 * appending a hand and buying in, where the client mints an Idempotency-Key it can
 * hand back. Both pass their headers the same way: as the operation's header
 * parameters, with their per-call options handed to the middleware.
 */

import createClient, { type Client, type HeadersOptions } from "openapi-fetch";
import { ProblemError, toProblem } from "./problem.js";
import { retryPolicy, type RetryOptions } from "./retry.js";
import { MatchMemory, Transport, type Fetch } from "./transport.js";
import type { paths } from "./schema.js";

type Method = "get" | "post" | "delete";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The JSON body an operation takes: `RequestBody<"/v1/melds/validate", "post">`. */
export type RequestBody<P extends keyof paths, M extends Method = "post"> =
  JsonOf<NonNullable<Operation<P, M> extends { requestBody?: infer B } ? B : never>>;

/** The JSON body an operation answers with a given status. */
export type ResponseBody<P extends keyof paths, M extends Method, S extends number> =
  Operation<P, M> extends { responses: infer R } ? S extends keyof R ? JsonOf<R[S]> : never : never;

export type AppendHandBody = RequestBody<"/v1/matches/{match_id}/hands">;
export type AppendHandResult = ResponseBody<"/v1/matches/{match_id}/hands", "post", 201>;
export type BuyInBody = RequestBody<"/v1/matches/{match_id}/buy-ins">;
export type BuyInResult = ResponseBody<"/v1/matches/{match_id}/buy-ins", "post", 201>;

export interface KalukiClientOptions {
  /** Where the service is, e.g. `http://localhost:8000` (paths start with `/v1`). */
  baseUrl: string;
  /** The fetch to send with (default `globalThis.fetch`): inject one for tests or proxies. */
  fetch?: Fetch;
  /** Headers for every request, e.g. `{"Accept-Language": "nl"}`. */
  headers?: HeadersOptions;
  /** Retry policy for 429, 503 and network errors on idempotent requests; `false`: none. */
  retry?: RetryOptions | false;
  /**
   * Send `If-Match` with the last `ETag` this client saw for the match on every append
   * and delete (default true), so a write based on stale standings is refused (412
   * `precondition-failed`) instead of landing unseen. Per call: `ifMatch: false`.
   */
  ifMatch?: boolean;
  /** Write tokens of matches created elsewhere: match id → token. */
  tokens?: Record<string, string>;
}

export interface AppendOptions {
  /**
   * The key of this logical append (default: a fresh `crypto.randomUUID()`). Pass the
   * key of an earlier attempt (`result.idempotencyKey`, `ProblemError.idempotencyKey`)
   * to continue that append after the client gave up or the process restarted.
   */
  idempotencyKey?: string;
  /** An ETag to require, or `false` for none; default: the last one seen (see options). */
  ifMatch?: string | false;
  /** The match's token; default: the one remembered from its creation or `setToken`. */
  token?: string;
  signal?: AbortSignal;
}

export interface Appended<T> {
  data: T;
  /** True when the service answered a repeat of an append it had already made. */
  replayed: boolean;
  idempotencyKey: string;
  /** The match's ETag after the append. */
  etag: string | undefined;
  response: Response;
}

export interface KalukiExtras {
  /** Tokens and ETags this client remembers, per match id. */
  readonly memory: MatchMemory;
  setToken(matchId: string, token: string): void;
  /** The last ETag seen for a match. */
  etag(matchId: string): string | undefined;
  /** POST /v1/matches/{id}/hands with a fresh (or given) Idempotency-Key and the token. */
  appendHand(matchId: string, body: AppendHandBody, options?: AppendOptions): Promise<Appended<AppendHandResult>>;
  /** POST /v1/matches/{id}/buy-ins, idempotent the same way. */
  buyIn(matchId: string, body: BuyInBody, options?: AppendOptions): Promise<Appended<BuyInResult>>;
}

export type KalukiClient = Client<paths> & KalukiExtras;

/** The header parameters an append and a buy-in take (both declare these in openapi.json). */
interface AppendHeader {
  "Idempotency-Key": string;
  "If-Match"?: string;
}

/**
 * The data of a path-based call, or a thrown ProblemError. The middleware already
 * throws for every status >= 400; this turns the remaining non-2xx (a 304 to a
 * conditional GET) into one too, and drops `| undefined` from the type.
 */
export async function unwrap<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const result = await call;
  const { response } = result;
  if (!response.ok) {
    throw new ProblemError(toProblem(response.status, response.statusText, null, ""),
                           { method: "", url: response.url });
  }
  return result.data as D;
}

export function createKalukiClient(options: KalukiClientOptions): KalukiClient {
  const memory = new MatchMemory(options.tokens);
  const transport = new Transport({
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    retry: retryPolicy(options.retry),
    ifMatch: options.ifMatch ?? true,
    memory,
  });
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: transport.fetch,
                                       ...(options.headers ? { headers: options.headers } : {}) });
  client.use(transport.middleware);

  /** An append's params: its match, its key and If-Match as header parameters, and the
   * per-call token and If-Match choice handed to the middleware. */
  function appendParams(matchId: string, o: AppendOptions) {
    if (!o.token && !memory.tokens.get(matchId)) {
      throw new Error(`No token for match ${matchId}: create it with this client, ` +
                      "call setToken(id, token), or pass { token }.");
    }
    const header: AppendHeader = { "Idempotency-Key": o.idempotencyKey ?? crypto.randomUUID() };
    if (typeof o.ifMatch === "string") header["If-Match"] = o.ifMatch;
    const params = { path: { match_id: matchId }, header };
    transport.calls.set(params, { ...(o.ifMatch === false ? { ifMatch: false as const } : {}),
                                  ...(o.token ? { token: o.token } : {}) });
    return params;
  }

  function appended<T>(data: T | undefined, response: Response, key: string): Appended<T> {
    if (data === undefined) throw new TypeError(`${response.url}: ${response.status} without a body`);
    return { data, response, idempotencyKey: key, etag: response.headers.get("ETag") ?? undefined,
             replayed: response.headers.get("Idempotent-Replayed") === "true" };
  }

  const extras: KalukiExtras = {
    memory,
    setToken(matchId, token) {
      memory.tokens.set(matchId, token);
    },
    etag(matchId) {
      return memory.etags.get(matchId);
    },
    async appendHand(matchId, body, o = {}) {
      const params = appendParams(matchId, o);
      const { data, response } = await client.POST("/v1/matches/{match_id}/hands", {
        params, body, ...(o.signal ? { signal: o.signal } : {}) });
      return appended(data, response, params.header["Idempotency-Key"]);
    },
    async buyIn(matchId, body, o = {}) {
      const params = appendParams(matchId, o);
      const { data, response } = await client.POST("/v1/matches/{match_id}/buy-ins", {
        params, body, ...(o.signal ? { signal: o.signal } : {}) });
      return appended(data, response, params.header["Idempotency-Key"]);
    },
  };
  return Object.assign(client, extras);
}
