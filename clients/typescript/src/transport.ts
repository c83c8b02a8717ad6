/**
 * The fetch that openapi-fetch calls: every behaviour the contract asks of a client
 * that is not a type lives here, so path-based calls get it as much as the helpers.
 *
 * Per request, in order: an `Idempotency-Key` for an append that has none (one per
 * logical append, kept across its retries); `If-Match` from the last `ETag` seen for
 * the match (writes only, unless turned off); the match's bearer token on the calls
 * that need one; then the request is sent, retried by the policy in `retry.ts`; the
 * answer's `ETag` (and a new match's token) is remembered; an error answer is thrown
 * as a `ProblemError`.
 */

import { ProblemError, toProblem } from "./problem.js";
import { backoff, isIdempotent, parseRetryAfter, sleep, type RetryPolicy } from "./retry.js";

export type Fetch = (input: Request) => Promise<Response>;

/** What the client remembers per match: write tokens and the last ETag seen. */
export class MatchMemory {
  readonly tokens = new Map<string, string>();
  readonly etags = new Map<string, string>();

  constructor(tokens?: Record<string, string>) {
    for (const [id, token] of Object.entries(tokens ?? {})) this.tokens.set(id, token);
  }
}

interface Route {
  /** The match the request is about, when the path names it. */
  matchId: string | undefined;
  /** POST …/hands or …/buy-ins: gets an Idempotency-Key and If-Match. */
  append: boolean;
  /** DELETE of a match: gets If-Match. */
  remove: boolean;
  /** Needs the match's token: appends, delete, export, import. */
  token: boolean;
  create: boolean;
  importing: boolean;
}

const MATCH = /^\/v1\/matches\/([^/]+)(\/hands|\/buy-ins|\/export|\/hands\/\d+)?$/;

function route(method: string, path: string): Route {
  const r: Route = { matchId: undefined, append: false, remove: false, token: false,
                     create: method === "POST" && path === "/v1/matches",
                     importing: method === "POST" && path === "/v1/matches/import" };
  const m = MATCH.exec(path);
  if (m && !r.importing) {
    r.matchId = decodeURIComponent(m[1] ?? "");
    const sub = m[2];
    r.append = method === "POST" && (sub === "/hands" || sub === "/buy-ins");
    r.remove = method === "DELETE" && sub === undefined;
    r.token = r.append || r.remove || (method === "GET" && sub === "/export");
  }
  r.token ||= r.importing;
  return r;
}

function idFromLocation(location: string | null): string | undefined {
  const m = location ? /\/v1\/matches\/([^/?#]+)$/.exec(new URL(location, "http://x").pathname) : null;
  return m?.[1] === undefined ? undefined : decodeURIComponent(m[1]);
}

async function readJson(source: Request | Response): Promise<unknown> {
  try {
    return JSON.parse(await source.clone().text());
  } catch {
    return undefined;
  }
}

function field(doc: unknown, name: string): string | undefined {
  if (typeof doc !== "object" || doc === null) return undefined;
  const value = (doc as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

export interface TransportOptions {
  baseUrl: string;
  fetch: Fetch;
  retry: RetryPolicy;
  /** Send If-Match from the last ETag seen on appends and deletes. */
  ifMatch: boolean;
  memory: MatchMemory;
}

export class Transport {
  constructor(readonly options: TransportOptions) {}

  /** The same transport with some options changed (one call's `fetch`). */
  with(overrides: Partial<Pick<TransportOptions, "ifMatch" | "retry">>): Transport {
    return new Transport({ ...this.options, ...overrides });
  }

  readonly fetch: Fetch = (input) => this.send(input);

  private path(url: URL): string {
    const base = new URL(this.options.baseUrl, url).pathname.replace(/\/+$/, "");
    return base && url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname;
  }

  private async prepare(request: Request, r: Route): Promise<Request> {
    const { memory } = this.options;
    const headers = new Headers(request.headers);
    if (r.append && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", crypto.randomUUID());
    if ((r.append || r.remove) && this.options.ifMatch && !headers.has("If-Match") && r.matchId) {
      const tag = memory.etags.get(r.matchId);
      if (tag) headers.set("If-Match", tag);
    }
    if (r.token && !headers.has("Authorization")) {
      const id = r.importing ? field(await readJson(request), "id") : r.matchId;
      const token = id === undefined ? undefined : memory.tokens.get(id);
      if (token) headers.set("Authorization", `Bearer ${token}`);
    }
    return new Request(request, { headers });
  }

  private async remember(response: Response, r: Route): Promise<void> {
    if (!response.ok) return;
    const { memory } = this.options;
    const id = r.create || r.importing ? idFromLocation(response.headers.get("Location")) : r.matchId;
    if (id === undefined) return;
    if (r.remove) {
      memory.etags.delete(id); // the token stays: it is what re-imports a deleted match
      return;
    }
    const tag = response.headers.get("ETag");
    if (tag) memory.etags.set(id, tag);
    if (r.create) {
      const token = field(await readJson(response), "token");
      if (token) memory.tokens.set(id, token);
    }
  }

  private async send(input: Request): Promise<Response> {
    const { retry } = this.options;
    const url = new URL(input.url);
    const r = route(input.method, this.path(url));
    const request = await this.prepare(input, r);
    const idempotent = isIdempotent(request.method, this.path(url), request.headers);
    const key = request.headers.get("Idempotency-Key") ?? undefined;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= retry.attempts || !idempotent;
      let response: Response;
      try {
        response = await this.options.fetch(last ? request : request.clone());
      } catch (error) {
        // fetch rejects with a TypeError when the network fails; aborts and timeouts
        // are DOMExceptions and are never retried.
        if (last || !retry.networkErrors || !(error instanceof TypeError) || request.signal.aborted) {
          throw error;
        }
        await this.wait(attempt, backoff(retry, attempt), request, undefined, error);
        continue;
      }
      await this.remember(response, r);
      if (response.status < 400) return response;
      const retryAfterMs = parseRetryAfter(response.headers.get("Retry-After"));
      const delay = retryAfterMs ?? backoff(retry, attempt);
      if (!last && retry.statuses.includes(response.status) && delay <= retry.maxDelayMs) {
        await response.body?.cancel();
        await this.wait(attempt, delay, request, response.status, undefined);
        continue;
      }
      const problem = toProblem(response.status, response.statusText,
                                response.headers.get("Content-Type"), await response.text());
      const init: ConstructorParameters<typeof ProblemError>[1] = { method: request.method, url: request.url };
      if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
      if (key !== undefined) init.idempotencyKey = key;
      throw new ProblemError(problem, init);
    }
  }

  private async wait(attempt: number, delayMs: number, request: Request, status: number | undefined,
                     error: unknown): Promise<void> {
    this.options.retry.onRetry?.({ attempt, delayMs, method: request.method, url: request.url,
                                   status, error });
    await sleep(delayMs, request.signal);
  }
}
