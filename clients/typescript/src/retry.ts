/**
 * When to try a request again, and how long to wait first.
 *
 * Only answers that say "not done, come back later" are retried: 503 (the ledger's
 * Redis is unreachable or busy; nothing was written) and 429 (over the rate limit),
 * plus a network failure, where the request may or may not have arrived. And only
 * requests that are safe to repeat, as the OpenAPI document says (`routes.ts`):
 * operations marked `x-idempotent` (reads, the stateless rulings, an import), and
 * those that take an `Idempotency-Key` when the request carries one (the service
 * answers a repeat with its first answer).
 */

import type { RouteFacts } from "./routes.js";

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  method: string;
  url: string;
  /** The status that caused the retry, or undefined after a network error. */
  status: number | undefined;
  error: unknown;
}

export interface RetryOptions {
  /** Tries in all, the first included (default 4; 1 turns retries off). */
  attempts?: number;
  /** First backoff step when the answer has no `Retry-After` (default 200 ms, doubling). */
  baseDelayMs?: number;
  /**
   * Longest wait (default 10 000 ms). A `Retry-After` asking for more is not cut
   * short (the service would only refuse again): the error is thrown at once, with
   * `retryAfterMs`, for the caller to schedule.
   */
  maxDelayMs?: number;
  /** Statuses to retry (default 429 and 503). */
  statuses?: readonly number[];
  /** Retry idempotent requests after a network error (default true). */
  networkErrors?: boolean;
  /** Called before each wait: logging, metrics, tests. */
  onRetry?: (info: RetryInfo) => void;
}

export type RetryPolicy = Required<Omit<RetryOptions, "onRetry">> & Pick<RetryOptions, "onRetry">;

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  const o = options === false ? { attempts: 1 } : options ?? {};
  const policy: RetryPolicy = {
    attempts: Math.max(1, Math.floor(o.attempts ?? 4)),
    baseDelayMs: Math.max(0, o.baseDelayMs ?? 200),
    maxDelayMs: Math.max(0, o.maxDelayMs ?? 10_000),
    statuses: o.statuses ?? [429, 503],
    networkErrors: o.networkErrors ?? true,
  };
  if (o.onRetry) policy.onRetry = o.onRetry;
  return policy;
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3);
 * undefined when absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text !== "" && [...text].every((c) => c >= "0" && c <= "9")) return Number(text) * 1000;
  if (text.toLowerCase() === text.toUpperCase()) return undefined; // no letter: "-1", "1.5" are neither form
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full-jitter exponential backoff for the `attempt`-th retry (1-based). */
export function backoff(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

/**
 * May this request be sent twice without changing what it does? What the OpenAPI document
 * says of its operation (`routes.ts`): `x-idempotent`, or an `Idempotency-Key` header
 * parameter when the request carries the key. A request the route facts do not know (sent
 * around the client's middleware): only GET and HEAD.
 */
export function isIdempotent(method: string, facts: RouteFacts | undefined, headers: Headers): boolean {
  if (facts === undefined) return method === "GET" || method === "HEAD";
  return facts.idempotent || (facts.idempotencyKey !== "none" && headers.has("Idempotency-Key"));
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
