/**
 * What the contract asks of a client that is not a type, in two parts:
 *
 * * `Transport.middleware`, an openapi-fetch middleware, acts on the route facts generated
 *   from the OpenAPI document (`routes.ts`, keyed by the operation's schemaPath): it adds
 *   an `Idempotency-Key` to an operation that takes one (one per logical append, kept across
 *   its retries), `If-Match` from the last `ETag` seen for the match where the operation
 *   takes it, and the match's bearer token where the operation's `security` asks for it;
 *   it remembers each answer's `ETag` (and a new match's token); and it throws every answer
 *   with status >= 400 as a `ProblemError`: the client's one error channel.
 * * `Transport.fetch`, the fetch openapi-fetch sends with: it retries what the route facts
 *   say is safe to send twice, as `retry.ts` decides.
 *
 * A header the caller set always wins. Nothing here knows a path by heart.
 */

import type { Middleware } from "openapi-fetch";
import { ProblemError, toProblem } from "./problem.js";
import { backoff, isIdempotent, parseRetryAfter, sleep, type RetryPolicy } from "./retry.js";
import { ROUTES, type RouteFacts } from "./routes.js";

export type Fetch = (input: Request) => Promise<Response>;

/** What the client remembers per match: write tokens and the last ETag seen. */
export class MatchMemory {
  readonly tokens = new Map<string, string>();
  readonly etags = new Map<string, string>();

  constructor(tokens?: Record<string, string>) {
    for (const [id, token] of Object.entries(tokens ?? {})) this.tokens.set(id, token);
  }
}

/** One call's own settings (a helper's options), keyed by the `params` object it passes. */
export interface CallSettings {
  /** `false`: no If-Match on this call, whatever the client's default. */
  ifMatch?: false;
  /** The match's token for this call, instead of the remembered one. */
  token?: string;
}

export interface TransportOptions {
  fetch: Fetch;
  retry: RetryPolicy;
  /** Send If-Match from the last ETag seen, where an operation takes it. */
  ifMatch: boolean;
  memory: MatchMemory;
}

interface Seen {
  facts: RouteFacts;
  matchId: string | undefined;
}

type Params = { path?: Record<string, unknown> } | undefined;

function record(doc: unknown): Record<string, unknown> | undefined {
  return typeof doc === "object" && doc !== null && !Array.isArray(doc) ? doc as Record<string, unknown> : undefined;
}

async function readJson(source: Request | Response): Promise<Record<string, unknown> | undefined> {
  try {
    return record(JSON.parse(await source.clone().text()));
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export class Transport {
  /** The route facts of each request the middleware prepared, for the retries and the answer. */
  private readonly seen = new WeakMap<Request, Seen>();
  /** Per-call settings, keyed by the call's `params` (see `CallSettings`). */
  readonly calls = new WeakMap<object, CallSettings>();

  constructor(readonly options: TransportOptions) {}

  readonly fetch: Fetch = (input) => this.send(input);

  readonly middleware: Middleware = {
    onRequest: async ({ request, schemaPath, params }) => this.prepare(request, schemaPath, params),
    onResponse: async ({ request, response, schemaPath, params }) => {
      const seen = this.seen.get(request) ?? await this.look(request, schemaPath, params);
      if (seen !== undefined) await this.remember(request, response, seen);
      if (response.status >= 400) throw await this.problem(request, response);
      return undefined;
    },
  };

  private async look(request: Request, schemaPath: string, params: Params): Promise<Seen | undefined> {
    const facts = ROUTES[`${request.method} ${schemaPath}`];
    if (facts === undefined) return undefined;
    let matchId: string | undefined;
    if (facts.match?.in === "path") matchId = text(params?.path?.[facts.match.name]);
    else if (facts.match?.in === "body" && !request.bodyUsed) {
      matchId = text((await readJson(request))?.[facts.match.name]);
    }
    return { facts, matchId };
  }

  private async prepare(request: Request, schemaPath: string, params: Params): Promise<Request | undefined> {
    const seen = await this.look(request, schemaPath, params);
    if (seen === undefined) return undefined; // an operation this build does not know: as it is
    const { facts, matchId } = seen;
    const { memory } = this.options;
    const call = (params && this.calls.get(params)) ?? {};
    const headers = new Headers(request.headers);
    if (facts.idempotencyKey !== "none" && !headers.has("Idempotency-Key")) {
      headers.set("Idempotency-Key", crypto.randomUUID());
    }
    if (facts.ifMatch && !headers.has("If-Match") && matchId !== undefined && call.ifMatch !== false
        && this.options.ifMatch) {
      const tag = memory.etags.get(matchId);
      if (tag) headers.set("If-Match", tag);
    }
    if (facts.token !== "none" && !headers.has("Authorization")) {
      const token = call.token ?? (matchId === undefined ? undefined : memory.tokens.get(matchId));
      if (token) headers.set("Authorization", `Bearer ${token}`);
    }
    const prepared = new Request(request, { headers });
    this.seen.set(prepared, seen);
    return prepared;
  }

  private async remember(request: Request, response: Response, { matchId }: Seen): Promise<void> {
    if (!response.ok) return;
    const { memory } = this.options;
    // a 201 to a request about no match yet (createMatch): the match its answer names, and
    // its token (a ruling answers 200, and is not read twice)
    const answer = matchId === undefined && response.status === 201 ? await readJson(response) : undefined;
    const id = matchId ?? text(answer?.id);
    if (id === undefined) return;
    if (request.method === "DELETE") {
      memory.etags.delete(id); // the token stays: it is what re-imports a deleted match
      return;
    }
    const tag = response.headers.get("ETag");
    if (tag) memory.etags.set(id, tag);
    const token = text(answer?.token); // answered once, at creation
    if (token) memory.tokens.set(id, token);
  }

  private async problem(request: Request, response: Response): Promise<ProblemError> {
    const retryAfterMs = parseRetryAfter(response.headers.get("Retry-After"));
    const key = request.headers.get("Idempotency-Key");
    const problem = toProblem(response.status, response.statusText, response.headers.get("Content-Type"),
                              await response.text());
    const init: ConstructorParameters<typeof ProblemError>[1] = { method: request.method, url: request.url };
    if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
    if (key !== null) init.idempotencyKey = key;
    return new ProblemError(problem, init);
  }

  private async send(request: Request): Promise<Response> {
    const { retry } = this.options;
    const idempotent = isIdempotent(request.method, this.seen.get(request)?.facts, request.headers);
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
      if (last || !retry.statuses.includes(response.status)) return response;
      const delay = parseRetryAfter(response.headers.get("Retry-After")) ?? backoff(retry, attempt);
      if (delay > retry.maxDelayMs) return response; // longer than we wait: the caller decides
      await response.body?.cancel();
      await this.wait(attempt, delay, request, response.status, undefined);
    }
  }

  private async wait(attempt: number, delayMs: number, request: Request, status: number | undefined,
                     error: unknown): Promise<void> {
    this.options.retry.onRetry?.({ attempt, delayMs, method: request.method, url: request.url,
                                   status, error });
    await sleep(delayMs, request.signal);
  }
}
